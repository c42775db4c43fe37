@testable import AVFoundation
import Testing

/// The shared-load state machine on its own: waiters are plain strings, so every transition is a value.
@Suite("Shared load state machine")
struct SharedLoadStateMachineTests {
    typealias Machine = SharedLoadStateMachine<Int, String>
    struct Failure: Error {}

    @Test func firstWaiterStartsLaterOnesJoinAndAllGetTheValue() {
        var m = Machine()
        guard case .start(let generation) = m.wait(id: 1, waiter: "a") else { Issue.record("the first waiter starts"); return }
        guard case .join = m.wait(id: 2, waiter: "b") else { Issue.record("the second joins"); return }
        let answered = m.finish(generation: generation, result: .success(7), isCancellation: false)
        #expect(Set(answered) == ["a", "b"])
        guard case .deliver(.success(7)) = m.wait(id: 3, waiter: "c") else { Issue.record("a loaded value is delivered at once"); return }
    }

    @Test func aFailureStaysAndIsDeliveredAtOnce() {
        var m = Machine()
        guard case .start(let generation) = m.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        #expect(m.finish(generation: generation, result: .failure(Failure()), isCancellation: false) == ["a"])
        guard case .deliver(.failure(let error)) = m.wait(id: 2, waiter: "b") else { Issue.record("the failure is kept"); return }
        #expect(error is Failure)
    }

    @Test func oneWaiterLeavingKeepsTheLoadForTheOthers() {
        var m = Machine()
        guard case .start(let generation) = m.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        _ = m.wait(id: 2, waiter: "b")
        guard case .resume("a") = m.leave(id: 1) else { Issue.record("the leaver is answered, the load goes on"); return }
        #expect(m.finish(generation: generation, result: .success(1), isCancellation: false) == ["b"])
    }

    @Test func theLastWaiterLeavingCancelsAndTheNextCallerStartsAfresh() {
        var m = Machine()
        guard case .start(let first) = m.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        guard case .resumeAndCancel("a", generation: first) = m.leave(id: 1) else { Issue.record("cancels the work"); return }
        guard case .cancelled = m.state else { Issue.record("cancelled"); return }
        guard case .start(let second) = m.wait(id: 2, waiter: "b") else { Issue.record("starts afresh"); return }
        #expect(second != first)
        // The cancelled load's late completion has no say.
        #expect(m.finish(generation: first, result: .success(1), isCancellation: false).isEmpty)
        guard case .loading = m.state else { Issue.record("the new load is still in flight"); return }
        #expect(m.finish(generation: second, result: .success(2), isCancellation: false) == ["b"])
        guard case .loaded(2) = m.state else { Issue.record("the new load's value"); return }
    }

    @Test func leavingTwiceOrAfterTheAnswerDoesNothing() {
        var m = Machine()
        guard case .start(let generation) = m.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        _ = m.finish(generation: generation, result: .success(1), isCancellation: false)
        guard case .none = m.leave(id: 1) else { Issue.record("already answered"); return }
        guard case .none = m.leave(id: 9) else { Issue.record("never waited"); return }
    }

    @Test func cancelAllAnswersEveryWaiterAndALaterCallerStartsAfresh() {
        var m = Machine()
        guard case .start(let generation) = m.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        _ = m.wait(id: 2, waiter: "b")
        let cancelled = m.cancelAll()
        #expect(Set(cancelled?.waiters ?? []) == ["a", "b"] && cancelled?.generation == generation)
        #expect(m.cancelAll() == nil, "nothing left in flight")
        guard case .start = m.wait(id: 3, waiter: "c") else { Issue.record("starts afresh"); return }
    }

    @Test func aCancelledResultLeavesTheLoadFreeToStartAgain() {
        var m = Machine()
        guard case .start(let generation) = m.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        #expect(m.finish(generation: generation, result: .failure(CancellationError()), isCancellation: true) == ["a"])
        guard case .start = m.wait(id: 2, waiter: "b") else { Issue.record("a cancellation is not kept as a failure"); return }
    }

    @Test func anEarlyFailureAnswersWaitersButNeverOverwritesAValue() {
        var m = Machine()
        _ = m.wait(id: 1, waiter: "a")
        #expect(m.fail(Failure()) == ["a"])
        guard case .failed = m.state else { Issue.record("failed"); return }
        var loaded = Machine()
        guard case .start(let generation) = loaded.wait(id: 1, waiter: "a") else { Issue.record("starts"); return }
        _ = loaded.finish(generation: generation, result: .success(5), isCancellation: false)
        #expect(loaded.fail(Failure()).isEmpty)
        guard case .loaded(5) = loaded.state else { Issue.record("a value never changes"); return }
    }
}
