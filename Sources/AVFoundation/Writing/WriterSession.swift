internal import MediaEngine
import Foundation
internal import Locking

/// An asset writer's file while it is written: the engine's `SampleWriter` and the work queued for it.
///
/// Appends return at once: each becomes a job, run in order, one at a time, on the engine's threads
/// (a job is queued on `IOExecutor` only while work is waiting, so an idle writer holds no thread).
/// Each input counts its jobs not yet done; an input is ready for more while that count is under its
/// limit, and hears (`onReady`) when a job of its own is done. The first failure stops the work, closes
/// the file and removes it; `cancel()` does the same at once.
final class WriterSession: @unchecked Sendable {
    // @unchecked Sendable: `engine` is touched only by the one job running; the rest is behind `state`.

    enum Ending {
        case completed
        case failed(any Error)
        case cancelled
    }

    private struct State {
        var jobs: [(input: Int?, work: @Sendable (SampleWriter, CancellationToken) throws -> Void)] = []
        var running = false
        var pending: [Int]
        var ending: Ending?
        var finishWaiters: [@Sendable (Ending) -> Void] = []
        var finishRequested = false
        /// Inputs held back because their samples run too far ahead of the leading track's (segments).
        var heldBack: Set<Int> = []
    }

    /// How far (seconds) an input's samples may run ahead of the leading track's before it is held
    /// back, so that segments interleave without gathering a file's worth of sound.
    static let maximumLead = 2.0

    private let state: Locked<State>
    private let engine: SampleWriter
    private let token = CancellationToken()
    private let limits: [Int]
    /// The file written (removed when the session fails or is cancelled); nil for segments.
    let path: String?
    /// Told, on an engine thread, when one of input `i`'s jobs is done (it may be ready again).
    let onReady: @Sendable (Int) -> Void
    /// Told once when the session fails (not when cancelled), on the thread that saw the failure.
    let onFailure: @Sendable (any Error) -> Void

    /// A session over `engine`, whose file, tracks and header `AVAssetWriter.startWriting()` has
    /// already made; `limits` is how many appends each input may have queued.
    init(path: String?, engine: SampleWriter, limits: [Int], onReady: @escaping @Sendable (Int) -> Void,
         onFailure: @escaping @Sendable (any Error) -> Void) {
        self.path = path
        self.engine = engine
        self.limits = limits
        self.onReady = onReady
        self.onFailure = onFailure
        state = Locked(State(pending: Array(repeating: 0, count: limits.count)))
    }

    /// Whether input `input` takes more now: the session is live and its queued work is under its limit.
    func isReady(_ input: Int) -> Bool {
        state.withLock { s in
            s.ending == nil && !s.finishRequested && s.pending.indices.contains(input) && s.pending[input] < limits[input]
                && !s.heldBack.contains(input)
        }
    }

    /// How the session ended, once it has.
    var ending: Ending? { state.withLock { $0.ending } }

    /// Queues `work` for input `input` (nil: the file as a whole); false when the session has ended.
    @discardableResult
    func enqueue(_ input: Int?, _ work: @escaping @Sendable (SampleWriter, CancellationToken) throws -> Void) -> Bool {
        let start = state.withLock { s -> Bool? in
            guard s.ending == nil else { return nil }
            s.jobs.append((input, work))
            if let input, s.pending.indices.contains(input) { s.pending[input] += 1 }
            guard !s.running else { return false }
            s.running = true
            return true
        }
        guard let start else { return false }
        if start { IOExecutor.shared.submit { [self] in run() } }
        return true
    }

    /// Runs queued jobs until none is left.
    private func run() {
        while true {
            let next = state.withLock { s -> (input: Int?, work: @Sendable (SampleWriter, CancellationToken) throws -> Void)? in
                guard s.ending == nil, !s.jobs.isEmpty else {
                    s.running = false
                    return nil
                }
                return s.jobs.removeFirst()
            }
            guard let next else { return }
            do {
                if token.isCancelled { return }
                try next.work(engine, token)
            } catch {
                fail(token.isCancelled ? nil : AVError.converting(error))
                return
            }
            let held = Set(engine.secondsAheadOfLead.filter { $0.value > Self.maximumLead }.map(\.key))
            let released = state.withLock { s -> Set<Int> in
                if let input = next.input, s.pending.indices.contains(input) { s.pending[input] -= 1 }
                defer { s.heldBack = held }
                return s.heldBack.subtracting(held)
            }
            if let input = next.input { onReady(input) }
            for input in released where input != next.input { onReady(input) }
        }
    }

    /// Finishes the file after the work queued so far; `done` hears how it ended (at once if it has).
    func finish(_ done: @escaping @Sendable (Ending) -> Void) {
        let ended = state.withLock { s -> Ending? in
            if let ending = s.ending { return ending }
            s.finishWaiters.append(done)
            s.finishRequested = true
            return nil
        }
        if let ended { return done(ended) }
        enqueue(nil) { [self] engine, _ in
            try engine.finish()
            let waiters = state.withLock { s -> [@Sendable (Ending) -> Void] in
                if s.ending == nil { s.ending = .completed }
                defer { s.finishWaiters = [] }
                return s.finishWaiters
            }
            for waiter in waiters { waiter(.completed) }
        }
    }

    /// Stops the work at once, closes and removes the file. Blocks until the job running (if any) has
    /// seen the cancellation.
    func cancel() {
        token.cancel()
        fail(nil)
    }

    /// Ends the session with `error` (nil: cancelled): queued work is dropped, the file removed, and
    /// whoever waits for the finish hears it.
    private func fail(_ error: (any Error)?) {
        let ending: Ending = error.map { .failed($0) } ?? .cancelled
        let waiters = state.withLock { s -> [@Sendable (Ending) -> Void]? in
            guard s.ending == nil else { return nil }
            s.ending = ending
            s.jobs = []
            defer { s.finishWaiters = [] }
            return s.finishWaiters
        }
        guard let waiters else { return }
        // The engine's file stays open until the engine is dropped; removing the path now leaves
        // nothing behind whatever it still writes into the unlinked file.
        if let path { LeftoverOutput.remove(atPath: path) }
        if let error { onFailure(error) }
        for waiter in waiters { waiter(ending) }
    }
}
