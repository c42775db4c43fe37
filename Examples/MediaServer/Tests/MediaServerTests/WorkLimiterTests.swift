import Foundation
@testable import MediaServerCore
import Synchronization
import Testing

/// The limit on concurrent media work, on its own: slots, the bounded queue, cancellation of a
/// waiter, and the deadline.
@Suite("WorkLimiter and withDeadline")
struct WorkLimiterTests {
    /// A gate the test opens once; work waits on it without holding a thread.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    @Test func oneRunsOneWaitsTheNextIsRefusedAndTheWaiterRunsAfter() async throws {
        let limiter = WorkLimiter(limit: 1, maxQueued: 1)
        let gate = Gate()
        let first = Task { try await limiter.run { await gate.wait(); return 1 } }
        await until("the first to run") { limiter.running == 1 }
        let second = Task { try await limiter.run { 2 } }
        await until("the second to wait") { limiter.waiting == 1 }
        await #expect(throws: APIError.self, "a third is refused while one runs and one waits") {
            try await limiter.run { 3 }
        }
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(limiter.running == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let limiter = WorkLimiter(limit: 1, maxQueued: 1)
        let gate = Gate()
        let first = Task { try await limiter.run { await gate.wait(); return 1 } }
        await until("the first to run") { limiter.running == 1 }
        let waiter = Task { try await limiter.run { 2 } }
        await until("the second to wait") { limiter.waiting == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // Its place in the queue is free again.
        let another = Task { try await limiter.run { 3 } }
        gate.open()
        #expect(try await first.value == 1)
        #expect(try await another.value == 3)
        #expect(limiter.running == 0)
    }

    @Test func theDeadlineCancelsTheWork() async throws {
        let started = Date()
        await #expect(throws: CancellationError.self) {
            try await withDeadline(seconds: 0.1) { try await Task.sleep(nanoseconds: 60_000_000_000); return 1 }
        }
        // Far below the minute slept; generous, as other tests may keep both cores busy meanwhile.
        #expect(Date().timeIntervalSince(started) < 10 * testTimeScale)
        #expect(try await withDeadline(seconds: 5) { 42 } == 42)
    }
}
