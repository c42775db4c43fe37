import Dispatch
import Foundation

/// A byte source fed asynchronously (by a resource loader delegate, by an HTTP client): FFmpeg's
/// small synchronous reads are served from a bounded cache of what has arrived, and the feeder is
/// asked for large ranges ahead of them (`FeedStateMachine` has the rules).
///
/// Waiting comes in two kinds, so that a silent feeder never holds an engine thread it does not need:
/// - An operation whose token says `.giveUp` (the header parse) is not kept waiting at all: a read of
///   bytes not yet here fails at once, the token records the offset, and the caller waits with
///   `whenReadable(at:cancellation:_:)`, holding no thread, before running the operation again over
///   the bytes now cached.
/// - Any other read waits on its engine thread, set aside by `IOExecutor.parking` so that it does not
///   count against the engine's threads, until the bytes arrive, the source fails, the token is
///   cancelled (a callback on the token wakes it at once) or the feeder's stall timeout passes with
///   nothing arriving.
///
/// When the last waiter of a cancelled operation leaves, the requests in flight are cancelled at the
/// feeder (a resource loader delegate hears `didCancel`). Dropping the source cancels them too.
package final class BufferedByteSource: ByteSource, FeedSink, @unchecked Sendable {
    // @unchecked Sendable: every mutable field is guarded by `condition`'s lock.
    package let name: String
    private let feeder: any ByteFeeder
    private let condition = NSCondition()
    private var machine: FeedStateMachine
    /// Counts every feeder event: a waiter that sees it change knows something arrived.
    private var progress: UInt64 = 0
    private var blockedReaders = 0
    private var waiters: [Int: AsyncWaiter] = [:]
    private var nextWaiter = 0

    private struct AsyncWaiter {
        var offset: Int64
        var token: CancellationToken
        var cancelKey: Int?
        var callback: @Sendable (Result<Void, MediaEngineError>) -> Void
    }

    /// How many bytes a header parse may ask of a feeder and read, in all (`CancellationToken`'s read
    /// budget): far more than any real header needs (a fragmented MP4's parse asks for tens of MiB),
    /// and a bound on a source that claims an endless length and answers every range with noise.
    package static let headerReadBudget: Int64 = 128 << 20

    package init(feeder: any ByteFeeder, configuration: FeedStateMachine.Configuration = .init()) {
        name = feeder.name
        self.feeder = feeder
        machine = FeedStateMachine(configuration: configuration)
    }

    deinit {
        let cancel = machine.requestsInFlight
        for id in cancel { feeder.cancel(id) }
    }

    /// The cache's and the requests' counters so far.
    package var statistics: FeedStateMachine.Statistics {
        condition.lock()
        defer { condition.unlock() }
        return machine.statistics
    }

    /// The content information, once it has arrived.
    package var contentInfo: ContentInfo? {
        condition.lock()
        defer { condition.unlock() }
        return machine.info
    }

    // MARK: - ByteSource

    package func size(cancellation: CancellationToken) throws -> Int64? {
        try waitFor(offset: 0, cancellation: cancellation) { machine -> Bool? in
            machine.prepare()
            return machine.isPrepared ? true : nil
        }
        condition.lock()
        defer { condition.unlock() }
        if let failure = machine.failure { throw failure }
        // The length the feeder stated, never one found since: it must not change between operations.
        return machine.info?.length
    }

    /// Forgets an earlier failure (a timeout, a server error), so that a new load asks the feeder again
    /// rather than failing with the old error.
    package func recoverIfFailed() {
        condition.lock()
        machine.recover()
        condition.unlock()
    }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        var result = 0
        try waitFor(offset: offset, cancellation: cancellation) { machine -> Bool? in
            switch machine.read(at: offset, into: buffer) {
            case .copied(let n):
                result = n
                guard cancellation.charge(Int64(n)) else {
                    machine.fail(overBudgetError)
                    return false
                }
                return true
            case .end:
                result = 0
                return true
            case .wait:
                return nil
            case .failed:
                return false
            }
        }
        return result
    }

    /// Runs `attempt` on the state machine until it answers (non-nil), waiting between tries as the
    /// token's policy says. `attempt` runs under the lock; requests it makes are sent outside it.
    private func waitFor(offset: Int64, cancellation: CancellationToken,
                         _ attempt: (inout FeedStateMachine) -> Bool?) throws {
        var cancelKey: Int?
        var waitingSince: (progress: UInt64, time: Date)?
        defer { cancellation.removeOnCancel(cancelKey) }
        condition.lock()
        while true {
            var answer = attempt(&machine)
            var actions = machine.takeActions()
            if !chargeRequests(&actions, to: cancellation) { answer = false }
            let failure = machine.failure
            let seen = progress
            if answer != nil || failure != nil {
                if waitingSince != nil { blockedReaders -= 1 }
                condition.unlock()
                send(actions)
                if answer == false, let failure { throw failure }
                return
            }
            if cancellation.isCancelled || cancellation.missingBytes == .giveUp {
                if waitingSince != nil { blockedReaders -= 1 }
                let abandon = cancellation.isCancelled ? abandonIfUnwatched() : []
                condition.unlock()
                send(actions)
                send((start: [], cancel: abandon))
                if !cancellation.isCancelled {
                    cancellation.noteMissingBytes(at: offset)
                    throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "the bytes at \(offset) have not arrived yet")
                }
                throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "the operation was cancelled")
            }
            if waitingSince == nil {
                blockedReaders += 1
                waitingSince = (seen, Date())
            }
            condition.unlock()
            send(actions)
            if cancelKey == nil {
                cancelKey = cancellation.onCancel { [weak self] in self?.wakeAll() }
            }
            condition.lock()
            if progress != seen || cancellation.isCancelled { continue }
            if let since = waitingSince, since.progress != progress { waitingSince = (progress, Date()) }
            // No deadline without a stall timeout: Foundation's wait(until: .distantFuture) traps here.
            guard let stall = feeder.stallTimeout else {
                IOExecutor.parking { condition.wait() }
                continue
            }
            let deadline = (waitingSince?.time ?? Date()).addingTimeInterval(stall)
            let arrived = IOExecutor.parking { condition.wait(until: deadline) }
            if !arrived, progress == seen, !cancellation.isCancelled {
                // Everyone else waiting learns of it now, not at their own deadlines.
                condition.unlock()
                settle { $0.fail(stalledError(stall)) }
                condition.lock()
            }
        }
    }

    /// The failure of a source that an operation read more of than its budget allows.
    private var overBudgetError: MediaEngineError {
        MediaEngineError(.notMedia, source: name, operation: "open",
                         reason: "no media header was found in the \(Self.headerReadBudget >> 20) MiB a header may take (the source may claim a length it does not have)")
    }

    /// Charges the requests about to start to the operation's read budget. Over budget, the source fails
    /// instead: the requests are never sent, the others in flight are cancelled. Call under the lock.
    private func chargeRequests(_ actions: inout (start: [FeedRequest], cancel: [Int]), to token: CancellationToken) -> Bool {
        let asked = actions.start.reduce(Int64(0)) {
            $0.addingSaturating($1.length ?? Int64(machine.configuration.onDemandRequest))
        }
        guard !actions.start.isEmpty, !token.charge(asked) else { return true }
        let unsent = Set(actions.start.map(\.id))
        machine.fail(overBudgetError)
        actions = (start: [], cancel: actions.cancel + machine.takeActions().cancel.filter { !unsent.contains($0) })
        return false
    }

    /// The failure of a source whose feeder sent nothing for its stall timeout.
    private func stalledError(_ stall: Double) -> MediaEngineError {
        let seconds = stall == stall.rounded() ? "\(Int(stall)) s" : "\(stall) s"
        return MediaEngineError(.readFailed, source: name, operation: "read", reason: "no data arrived for \(seconds)")
    }

    // MARK: - Waiting without a thread

    /// Calls `callback` once the byte at `offset` can be read without waiting (or lies past the end),
    /// the source fails, the feeder stalls past its timeout, or `cancellation` fires. Starts the request
    /// that brings the byte if none is coming. Holds no thread while it waits; the callback runs on
    /// whichever thread ended the wait (a feeder's, a timer's, the canceller's), perhaps this one.
    package func whenReadable(at offset: Int64, cancellation: CancellationToken,
                              _ callback: @escaping @Sendable (Result<Void, MediaEngineError>) -> Void) {
        condition.lock()
        machine.want(offset)
        // Over the operation's budget, the source fails, which ends this wait at once below.
        var actions = machine.takeActions()
        _ = chargeRequests(&actions, to: cancellation)
        if machine.isReadable(at: offset) {
            let failure = machine.failure
            condition.unlock()
            send(actions)
            callback(failure.map { .failure($0) } ?? .success(()))
            return
        }
        nextWaiter += 1
        let id = nextWaiter
        waiters[id] = AsyncWaiter(offset: offset, token: cancellation, cancelKey: nil, callback: callback)
        let seen = progress
        condition.unlock()
        send(actions)
        let key = cancellation.onCancel { [weak self] in self?.cancelWaiter(id) }
        condition.lock()
        let stillWaiting = waiters[id] != nil
        waiters[id]?.cancelKey = key
        condition.unlock()
        // Settled before its key was stored: nothing will remove the callback but this.
        guard stillWaiting else { return cancellation.removeOnCancel(key) }
        armStallTimer(waiter: id, seen: seen)
    }

    private func armStallTimer(waiter id: Int, seen: UInt64) {
        guard let stall = feeder.stallTimeout else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + stall) { [weak self] in
            guard let self else { return }
            condition.lock()
            guard waiters[id] != nil else {
                condition.unlock()
                return
            }
            if progress != seen {
                let now = progress
                condition.unlock()
                armStallTimer(waiter: id, seen: now)
                return
            }
            condition.unlock()
            settle { $0.fail(stalledError(stall)) }
        }
    }

    private func cancelWaiter(_ id: Int) {
        condition.lock()
        guard let waiter = waiters.removeValue(forKey: id) else {
            condition.unlock()
            return
        }
        let abandon = abandonIfUnwatched()
        condition.unlock()
        send((start: [], cancel: abandon))
        waiter.callback(.failure(MediaEngineError(.cancelled, source: name, operation: "read", reason: "the operation was cancelled")))
    }

    /// With nobody waiting any more, the requests in flight are cancelled. Call under the lock.
    private func abandonIfUnwatched() -> [Int] {
        guard waiters.isEmpty, blockedReaders == 0 else { return [] }
        machine.cancelAll()
        return machine.takeActions().cancel
    }

    // MARK: - FeedSink

    package func received(info: ContentInfo, for requestID: Int) {
        settle { $0.received(info: info, for: requestID) }
    }

    package func received(_ data: Data, for requestID: Int) {
        settle { $0.received(data, for: requestID) }
    }

    package func finished(_ requestID: Int, error: MediaEngineError?) {
        settle { $0.finished(requestID, error: error) }
    }

    /// Applies an event to the state machine, then wakes blocked readers and calls the async waiters
    /// whose bytes are now readable; one pass under the lock, callbacks and feeder calls after it.
    private func settle(after event: (inout FeedStateMachine) -> Void = { _ in }) {
        condition.lock()
        event(&machine)
        progress &+= 1
        condition.broadcast()
        var ready: [AsyncWaiter] = []
        for (id, waiter) in waiters where machine.isReadable(at: waiter.offset) {
            waiters.removeValue(forKey: id)
            ready.append(waiter)
        }
        let failure = machine.failure
        let actions = machine.takeActions()
        condition.unlock()
        send(actions)
        for waiter in ready {
            waiter.token.removeOnCancel(waiter.cancelKey)
            waiter.callback(failure.map { .failure($0) } ?? .success(()))
        }
    }

    private func wakeAll() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    private func send(_ actions: (start: [FeedRequest], cancel: [Int])) {
        for id in actions.cancel { feeder.cancel(id) }
        for request in actions.start { feeder.start(request, sink: self) }
    }
}
