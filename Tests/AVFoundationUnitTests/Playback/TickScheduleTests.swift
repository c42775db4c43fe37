@testable import AVFoundation
import Dispatch
import Foundation
import Testing

/// When the player's host-clock timer fires next: the next thing due (an observer's mark, a boundary,
/// the item's end), never later than the coarse step, at the fine step while something needs it.
@Suite("Player tick schedule")
struct TickScheduleTests {
    static func t(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 90_000) }

    /// A player's state playing at `rate`, its timebase running.
    static func playing(at rate: Float) -> AVPlayer.State {
        var s = AVPlayer.State()
        _ = s.machine.setRate(rate)
        let facts = PlayerStateMachine<AVPlayer.Handler>.ItemFacts(present: true, ready: true, empty: false, likelyToKeepUp: true,
                                                                   readEnd: t(100))
        _ = s.machine.refresh(facts, at: .zero, waitsToMinimizeStalling: true, jumped: false)
        s.timebase.setRate(Float64(rate))
        return s
    }

    static func periodic(every seconds: Double, lastMark: Int64) -> AVPlayer.PeriodicObserver {
        AVPlayer.PeriodicObserver(token: AVPlayer.TimeObserver(), interval: t(seconds), queue: .main, block: { _ in }, lastMark: lastMark)
    }

    @Test func nothingDueWaitsTheCoarseStep() {
        let s = Self.playing(at: 1)
        #expect(s.runningRate == 1)
        let delay = AVPlayer.nextTickDelay(s, now: Self.t(3), raw: Self.t(3), fine: false)
        #expect(abs(delay - AVPlayer.coarseTick) < 0.001)
    }

    @Test func aPeriodicObserversNextMarkComesFirst() {
        var s = Self.playing(at: 1)
        // Marks every 0.25 s; the third passed at 0.75 s, the fourth is due at 1.0 s.
        s.periodic = [Self.periodic(every: 0.25, lastMark: 3)]
        let delay = AVPlayer.nextTickDelay(s, now: Self.t(0.98), raw: Self.t(0.98), fine: false)
        #expect(delay > 0.02 && delay < 0.022)
        // At twice the rate the item time gets there in half the host time.
        var fast = Self.playing(at: 2)
        fast.periodic = s.periodic
        let half = AVPlayer.nextTickDelay(fast, now: Self.t(0.98), raw: Self.t(0.98), fine: false)
        #expect(half > 0.01 && half < 0.011)
    }

    @Test func aBoundaryAheadIsDueButOnesPassedAreNot() {
        var s = Self.playing(at: 1)
        s.boundary = [AVPlayer.BoundaryObserver(token: AVPlayer.TimeObserver(), times: [Self.t(1), Self.t(2.03)], queue: .main, block: {})]
        let delay = AVPlayer.nextTickDelay(s, now: Self.t(2), raw: Self.t(2), fine: false)
        #expect(delay > 0.03 && delay < 0.032)
    }

    @Test func followingSoundStandingStillOrAnOutputTicksFine() {
        let s = Self.playing(at: 1)
        #expect(AVPlayer.nextTickDelay(s, now: Self.t(3), raw: Self.t(3), fine: true) == AVPlayer.fineTick)
        s.timebase.setRate(0)
        #expect(AVPlayer.nextTickDelay(s, now: Self.t(3), raw: Self.t(3), fine: false) == AVPlayer.fineTick)
    }

    @Test func absurdIntervalsAndTimesKeepTheStepInRange() {
        var s = Self.playing(at: 1)
        s.periodic = [Self.periodic(every: 1e-9, lastMark: .max), Self.periodic(every: 1e12, lastMark: .min)]
        s.boundary = [AVPlayer.BoundaryObserver(token: AVPlayer.TimeObserver(), times: [.positiveInfinity, .invalid, Self.t(-5)],
                                                queue: .main, block: {})]
        let delay = AVPlayer.nextTickDelay(s, now: Self.t(3), raw: Self.t(3), fine: false)
        #expect(delay.isFinite && delay <= AVPlayer.coarseTick + 0.001)
    }
}
