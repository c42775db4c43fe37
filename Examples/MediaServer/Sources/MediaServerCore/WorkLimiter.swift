import Foundation
import Synchronization

/// Lets at most `limit` operations run at once; the next ones wait in order, up to `maxQueued` of
/// them, and the ones past that are refused at once (503).
///
/// Used around Avocet's work for `/inspect` and `/thumbnail`, so that a burst of requests cannot
/// start more FFmpeg work than the machine can do. Waiting holds no thread: a waiter is a
/// continuation, resumed (outside the lock) when a slot frees or its task is cancelled.
final class WorkLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Waiters cancelled before they were queued.
        var cancelledIDs: Set<UInt64> = []
    }

    private let limit: Int
    private let maxQueued: Int
    private let state = Mutex(State())

    init(limit: Int, maxQueued: Int) {
        self.limit = max(1, limit)
        self.maxQueued = max(0, maxQueued)
    }

    /// Runs `body` once a slot is free. Throws `APIError` 503 when too many wait already, and
    /// `CancellationError` when the task is cancelled while waiting.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    /// How many operations run now (for tests and logs).
    var running: Int { state.withLock { $0.running } }

    /// How many operations wait for a slot now (for tests and logs).
    var waiting: Int { state.withLock { $0.waiters.count } }

    private func acquire() async throws {
        enum Decision { case go, wait(UInt64), refuse }
        let decision = state.withLock { state -> Decision in
            if state.running < limit {
                state.running += 1
                return .go
            }
            guard state.waiters.count < maxQueued else { return .refuse }
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch decision {
        case .go: return
        case .refuse:
            throw APIError(.serviceUnavailable, "The server is busy with other media work; try again shortly.", headers: [.retryAfter: "1"])
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = state.withLock { state -> Bool in
                        if state.cancelledIDs.remove(id) != nil { return true }
                        state.waiters.append(Waiter(id: id, continuation: continuation))
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                        return state.waiters.remove(at: index)
                    }
                    state.cancelledIDs.insert(id)
                    return nil
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    private func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiters.isEmpty {
                state.running -= 1
                return nil
            }
            // The slot passes to the first waiter: `running` stays.
            return state.waiters.removeFirst()
        }
        next?.continuation.resume()
    }
}
