import Foundation
import Synchronization

/// The status table of one loadable object (an asset, a track, a metadata item): per key, not yet
/// loaded, loading, loaded (the value, which never changes), failed (the error) or cancelled.
///
/// Concurrent loads of one key share one in-flight load: the first caller starts it, later callers
/// wait for it. A caller whose task is cancelled stops waiting at once; when the last waiter leaves,
/// the load itself is cancelled (down to FFmpeg) and the key becomes cancelled, so a later load starts
/// afresh. State sits behind a `Mutex`; continuations are resumed outside it.
final class PropertyStore: Sendable {
    enum Entry {
        case loading(Load)
        case loaded(UncheckedValue)
        /// The error as thrown (an `AVError` stays one, so `catch let e as AVError` works on Linux,
        /// which has no NSError bridging); `status` gives it as an `NSError`.
        case failed(UncheckedError)
        case cancelled
    }

    struct UncheckedError: @unchecked Sendable {
        let error: any Error
    }

    /// Where a key stands, as both status APIs read it.
    enum Status {
        case notYetLoaded
        case loading
        case loaded(Any)
        case failed(NSError)
        case cancelled
    }

    /// One in-flight load and the callers waiting for it. Only touched under the store's lock.
    final class Load: @unchecked Sendable {
        var waiters: [Int: CheckedContinuation<UncheckedValue, any Error>] = [:]
        var task: Task<Void, Never>?
    }

    /// Moves a value of any type across the continuation; values are immutable once loaded.
    struct UncheckedValue: @unchecked Sendable {
        let value: Any
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// The value for `key`: at once when loaded, by joining the load in flight, or by starting
    /// `compute` in a new task. Throws the load's error, `CancellationError` when the calling task is
    /// cancelled, or `AVError(.operationCancelled)` when `cancelAll()` ends the load.
    func value<V>(_ key: String, compute: @escaping @Sendable () async throws -> V) async throws -> V {
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let boxed = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UncheckedValue, any Error>) in
                let immediate = state.withLock { s -> Result<UncheckedValue, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    switch s.entries[key] {
                    case .loaded(let value)?:
                        return .success(value)
                    case .failed(let failure)?:
                        return .failure(failure.error)
                    case .loading(let load)?:
                        load.waiters[id] = continuation
                        return nil
                    case nil, .cancelled?:
                        let load = Load()
                        load.waiters[id] = continuation
                        s.entries[key] = .loading(load)
                        // The task only starts running after the lock is released.
                        load.task = Task { [self] in
                            let result: Result<UncheckedValue, any Error>
                            do {
                                result = .success(UncheckedValue(value: try await compute()))
                            } catch {
                                result = .failure(error)
                            }
                            finish(key, load: load, result: result)
                        }
                        return nil
                    }
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let (waiter, task) = state.withLock { s -> (CheckedContinuation<UncheckedValue, any Error>?, Task<Void, Never>?) in
                guard case .loading(let load)? = s.entries[key], let waiter = load.waiters.removeValue(forKey: id) else {
                    return (nil, nil)
                }
                if load.waiters.isEmpty {
                    s.entries[key] = .cancelled
                    return (waiter, load.task)
                }
                return (waiter, nil)
            }
            waiter?.resume(throwing: CancellationError())
            task?.cancel()
        }
        guard let value = boxed.value as? V else {
            preconditionFailure("property \(key) holds \(type(of: boxed.value)), not \(V.self)")
        }
        return value
    }

    private func finish(_ key: String, load: Load, result: Result<UncheckedValue, any Error>) {
        let waiters = state.withLock { s -> [CheckedContinuation<UncheckedValue, any Error>] in
            // A load that was cancelled, or overtaken by `fill`, has no say any more.
            guard case .loading(let current)? = s.entries[key], current === load else { return [] }
            switch result {
            case .success(let value):
                s.entries[key] = .loaded(value)
            case .failure(let error):
                s.entries[key] = PropertyStore.isCancellation(error) ? .cancelled : .failed(UncheckedError(error: error))
            }
            let waiting = Array(load.waiters.values)
            load.waiters.removeAll()
            return waiting
        }
        for waiter in waiters {
            waiter.resume(with: result)
        }
    }

    /// Marks `values` loaded (a header parse fills every header-level key at once). Keys already loaded
    /// keep their value; callers waiting on a load of one of these keys get the value now.
    func fill(_ values: [String: Any]) {
        let boxed = values.mapValues { UncheckedValue(value: $0) }
        var resumes: [(CheckedContinuation<UncheckedValue, any Error>, UncheckedValue)] = []
        state.withLock { s in
            for (key, value) in boxed {
                switch s.entries[key] {
                case .loaded?:
                    continue
                case .loading(let load)?:
                    resumes += load.waiters.values.map { ($0, value) }
                    load.waiters.removeAll()
                    s.entries[key] = .loaded(value)
                case nil, .failed?, .cancelled?:
                    s.entries[key] = .loaded(value)
                }
            }
        }
        for (waiter, value) in resumes { waiter.resume(returning: value) }
    }

    /// Marks `keys` failed with `error` unless already loaded; waiters on them get the error.
    func fail(_ keys: [String], error: any Error) {
        let failure = UncheckedError(error: error)
        var resumes: [CheckedContinuation<UncheckedValue, any Error>] = []
        state.withLock { s in
            for key in keys {
                if case .loaded? = s.entries[key] { continue }
                if case .loading(let load)? = s.entries[key] {
                    resumes += load.waiters.values
                    load.waiters.removeAll()
                }
                s.entries[key] = .failed(failure)
            }
        }
        for waiter in resumes { waiter.resume(throwing: failure.error) }
    }

    /// Cancels every load in flight: waiters get `AVError(.operationCancelled)`, keys become cancelled.
    func cancelAll() {
        var resumes: [CheckedContinuation<UncheckedValue, any Error>] = []
        var tasks: [Task<Void, Never>] = []
        state.withLock { s in
            for (key, entry) in s.entries {
                guard case .loading(let load) = entry else { continue }
                resumes += load.waiters.values
                load.waiters.removeAll()
                if let task = load.task { tasks.append(task) }
                s.entries[key] = .cancelled
            }
        }
        for waiter in resumes { waiter.resume(throwing: PropertyStore.cancelled) }
        for task in tasks { task.cancel() }
    }

    func status(_ key: String) -> Status {
        state.withLock { s in
            switch s.entries[key] {
            case nil: return .notYetLoaded
            case .loading?: return .loading
            case .loaded(let value)?: return .loaded(value.value)
            case .failed(let failure)?: return .failed(PropertyStore.nsError(failure.error))
            case .cancelled?: return .cancelled
            }
        }
    }

    /// The loaded value of `key`, if it is loaded.
    func loadedValue(_ key: String) -> Any? {
        if case .loaded(let value) = status(key) { return value }
        return nil
    }

    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let av = error as? AVError, av.code == .operationCancelled { return true }
        return false
    }

    static func nsError(_ error: any Error) -> NSError {
        if let av = error as? AVError { return av as NSError }
        return error as NSError
    }

    /// The error `cancelAll()` ends loads with.
    static let cancelled = AVError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "Loading was cancelled."])
    /// The same, as a cancelled key reports it through `status(of:)` and `statusOfValue`.
    static let cancelledError = cancelled as NSError
}
