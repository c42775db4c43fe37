/// The states of one shared load (an asset's header parse, or its packet scan) and the actions each
/// event calls for. A plain value: `SharedLoad` holds it behind a lock, runs one method inside the lock
/// and carries out the returned action (resume waiters, start or cancel the work) after releasing it.
///
/// Concurrent callers share one load: the first starts it, later ones join it. A caller that leaves
/// (its task was cancelled) is answered at once; when the last one leaves, the load is cancelled and a
/// later caller starts afresh. A loaded value never changes; a failure stays until `reset`.
/// `Waiter` is whatever resumes a caller (a continuation, a callback); generic so tests need no tasks.
struct SharedLoadStateMachine<Value, Waiter> {
    enum State {
        case idle
        /// `generation` tells this load's completion from a cancelled earlier one's.
        case loading(generation: Int, waiters: [Int: Waiter])
        case loaded(Value)
        case failed(any Error)
        /// The last waiter left, or `cancelAll()` ended the load; the next caller starts afresh.
        case cancelled
    }

    private(set) var state = State.idle
    private var generation = 0

    enum WaitAction {
        /// Start the work for `generation`; the waiter is registered.
        case start(generation: Int)
        /// A load is in flight; the waiter is registered.
        case join
        /// Answer the waiter now.
        case deliver(Result<Value, any Error>)
    }

    /// A caller wants the value.
    mutating func wait(id: Int, waiter: Waiter) -> WaitAction {
        switch state {
        case .loaded(let value):
            return .deliver(.success(value))
        case .failed(let error):
            return .deliver(.failure(error))
        case .loading(let current, var waiters):
            waiters[id] = waiter
            state = .loading(generation: current, waiters: waiters)
            return .join
        case .idle, .cancelled:
            generation += 1
            state = .loading(generation: generation, waiters: [id: waiter])
            return .start(generation: generation)
        }
    }

    enum LeaveAction {
        /// The caller was not waiting (already answered): nothing to do.
        case none
        /// Answer the caller with a cancellation; others still wait.
        case resume(Waiter)
        /// Answer the caller with a cancellation and cancel the work of `generation`: nobody waits.
        case resumeAndCancel(Waiter, generation: Int)
    }

    /// A caller stops waiting (its task was cancelled).
    mutating func leave(id: Int) -> LeaveAction {
        guard case .loading(let current, var waiters) = state, let waiter = waiters.removeValue(forKey: id) else { return .none }
        if waiters.isEmpty {
            state = .cancelled
            return .resumeAndCancel(waiter, generation: current)
        }
        state = .loading(generation: current, waiters: waiters)
        return .resume(waiter)
    }

    /// The work of `generation` ended. Returns the waiters to answer with `result`; none when that load
    /// was cancelled or overtaken meanwhile. A cancellation result leaves the load free to start again.
    mutating func finish(generation finished: Int, result: Result<Value, any Error>, isCancellation: Bool) -> [Waiter] {
        guard case .loading(let current, let waiters) = state, current == finished else { return [] }
        switch result {
        case .success(let value): state = .loaded(value)
        case .failure(let error): state = isCancellation ? .cancelled : .failed(error)
        }
        return Array(waiters.values)
    }

    /// Ends the load in flight, if any: returns its waiters (to answer with a cancellation) and its
    /// generation (to cancel the work).
    mutating func cancelAll() -> (waiters: [Waiter], generation: Int)? {
        guard case .loading(let current, let waiters) = state else { return nil }
        state = .cancelled
        return (Array(waiters.values), current)
    }

    /// Records a failure known before any work (a missing file), unless a value is loaded. Returns the
    /// waiters of a load in flight, to answer with the error.
    mutating func fail(_ error: any Error) -> [Waiter] {
        switch state {
        case .loaded: return []
        case .loading(_, let waiters):
            state = .failed(error)
            return Array(waiters.values)
        case .idle, .failed, .cancelled:
            state = .failed(error)
            return []
        }
    }
}
