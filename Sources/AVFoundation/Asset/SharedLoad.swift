import Dispatch
import Foundation
internal import MediaEngine
internal import Locking

/// One shared load (an asset's header parse, or its packet scan): its state machine behind a lock, the
/// work on the engine's threads, and the callers' continuations resumed outside the lock.
///
/// Every reader goes through here: `load(_:)` (async), the deprecated synchronous getters (blocking
/// the calling thread, as Apple's do), the legacy string API and `status(of:)`. So there is one parse,
/// one set of track objects and no race between them. Cancelling the last waiting task cancels the
/// work down to FFmpeg (a job still queued never runs); the callers return at once either way.
final class SharedLoad<Value: Sendable>: Sendable {
    typealias Waiter = @Sendable (Result<Value, any Error>) -> Void
    typealias Operation = @Sendable (CancellationToken) throws -> Value

    private struct State {
        var machine = SharedLoadStateMachine<Value, Waiter>()
        var nextID = 0
        /// The token of the work in flight.
        var token: CancellationToken?
    }

    private enum Action {
        case start(generation: Int, token: CancellationToken)
        case none
        case deliver(Result<Value, any Error>)
    }

    private let state = Locked(State())
    private let executor: IOExecutor
    /// The slow source the operation reads, if any: the operation then holds an engine thread only
    /// while bytes are there to parse (see `IOExecutor.submitRestarting`).
    private let feed: BufferedByteSource?

    /// How many bytes each run of the operation may take from a slow source (see `CancellationToken`).
    private let readBudget: Int64?

    init(executor: IOExecutor = .shared, restartingOver feed: BufferedByteSource? = nil, readBudget: Int64? = nil) {
        self.executor = executor
        self.feed = feed
        self.readBudget = readBudget
    }

    /// The value: at once when loaded (or failed), by joining the load in flight, or by starting
    /// `operation` on an engine thread. Throws the load's error, or `CancellationError` when the calling
    /// task is cancelled (the load itself is cancelled when nobody else waits).
    func value(_ operation: @escaping Operation) async throws -> Value {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingHandOffContinuation { (continuation: UnsafeContinuation<Value, any Error>) in
                let waiter: Waiter = { continuation.resume(with: $0) }
                perform(register(id: id, checkingCancellation: true, waiter), waiter, operation)
            }
        } onCancel: {
            leave(id: id)
        }
    }

    /// The value, blocking the calling thread until it is known (the work still runs on an engine
    /// thread). For the deprecated synchronous getters only; never call it on Swift's cooperative pool.
    func blockingValue(_ operation: @escaping Operation) -> Result<Value, any Error> {
        if case .loaded(let value) = status() { return .success(value) }
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Value, any Error>?>(nil)
        let waiter: Waiter = { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        perform(register(id: id, checkingCancellation: false, waiter), waiter, operation)
        done.wait()
        return outcome.withLock { $0 } ?? .failure(AVAsset.cancelledError)
    }

    private func register(id: Int, checkingCancellation: Bool, _ waiter: @escaping Waiter) -> Action {
        state.withLock { s -> Action in
            // Checked under the lock: a cancellation handler that ran before this finds nothing to do. A
            // value already loaded is still given: it costs nothing.
            if checkingCancellation && Task.isCancelled {
                if case .loaded(let value) = s.machine.state { return .deliver(.success(value)) }
                return .deliver(.failure(CancellationError()))
            }
            switch s.machine.wait(id: id, waiter: waiter) {
            case .start(let generation):
                let token = CancellationToken(readBudget: readBudget)
                s.token = token
                return .start(generation: generation, token: token)
            case .join:
                return .none
            case .deliver(let result):
                return .deliver(result)
            }
        }
    }

    private func perform(_ action: Action, _ waiter: Waiter, _ operation: @escaping Operation) {
        switch action {
        case .none:
            break
        case .deliver(let result):
            waiter(result)
        case .start(let generation, let token):
            if let feed {
                executor.submitRestarting(over: feed, cancellation: token, operation) { [self] result in
                    // The feed's own failures (a delegate's error, a timeout) come as engine errors.
                    finish(generation: generation, result: result.mapError { AVError.converting($0) })
                }
                return
            }
            // A job whose token is cancelled before a thread reaches it never runs (see IOExecutor).
            executor.submit(cancellation: token) { [self] in
                let result = Result { try operation(token) }
                finish(generation: generation, result: result)
            }
        }
    }

    private func finish(generation: Int, result: Result<Value, any Error>) {
        let isCancellation: Bool
        if case .failure(let error) = result { isCancellation = SharedLoad.isCancellation(error) } else { isCancellation = false }
        let waiters = state.withLock { s -> [Waiter] in
            let waiters = s.machine.finish(generation: generation, result: result, isCancellation: isCancellation)
            if case .loading = s.machine.state {} else { s.token = nil }
            return waiters
        }
        for waiter in waiters { waiter(result) }
    }

    private func leave(id: Int) {
        let (waiter, token) = state.withLock { s -> (Waiter?, CancellationToken?) in
            switch s.machine.leave(id: id) {
            case .none: return (nil, nil)
            case .resume(let waiter): return (waiter, nil)
            case .resumeAndCancel(let waiter, _):
                let token = s.token
                s.token = nil
                return (waiter, token)
            }
        }
        token?.cancel()
        waiter?(.failure(CancellationError()))
    }

    /// Ends the load in flight: its waiters get `error`, its work is cancelled, and the next caller
    /// starts afresh.
    func cancelAll(with error: any Error) {
        let (waiters, token) = state.withLock { s -> ([Waiter], CancellationToken?) in
            guard let cancelled = s.machine.cancelAll() else { return ([], nil) }
            let token = s.token
            s.token = nil
            return (cancelled.waiters, token)
        }
        token?.cancel()
        for waiter in waiters { waiter(.failure(error)) }
    }

    /// Records a failure known before any work, unless a value is loaded.
    func fail(_ error: any Error) {
        let (waiters, token) = state.withLock { s -> ([Waiter], CancellationToken?) in
            let waiters = s.machine.fail(error)
            let token = s.token
            s.token = nil
            return (waiters, token)
        }
        token?.cancel()
        for waiter in waiters { waiter(.failure(error)) }
    }

    func status() -> LoadStatus<Value> {
        state.withLock { s in
            switch s.machine.state {
            case .idle: return .notYetLoaded
            case .loading: return .loading
            case .loaded(let value): return .loaded(value)
            case .failed(let error): return .failed(error)
            case .cancelled: return .cancelled
            }
        }
    }

    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let av = error as? AVError, av.code == .operationCancelled { return true }
        if let engine = error as? MediaEngineError, engine.code == .cancelled { return true }
        return false
    }
}
