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

    @Test func marksCloserThanTheFineStepAreMetAtIt() {
        var s = Self.playing(at: 1)
        // Every millisecond: the clock wakes every 10 ms, as it always did, not a thousand times a second.
        s.periodic = [Self.periodic(every: 0.001, lastMark: 3000)]
        #expect(AVPlayer.nextTickDelay(s, now: Self.t(3.0002), raw: Self.t(3.0002), fine: false) == AVPlayer.fineTick)
    }

    @Test func theSoonestDeadlineWinsUntilATickSetsTheNext() {
        var s = Self.playing(at: 1)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "tick-schedule-test"))
        // Resumed, as the player's is (Dispatch traps when a suspended source is let go); it has no handler.
        timer.resume()
        defer { timer.cancel() }
        s.timer = timer
        // One host time for every call: a busy machine can take longer than the deadlines between two
        // lines, and a deadline passed is (rightly) replaced by any other.
        let now = DispatchTime.now()
        AVPlayer.scheduleTick(in: 0.040, now: now, &s)
        let first = s.nextTick
        #expect(first.uptimeNanoseconds == now.uptimeNanoseconds + 40_000_000)
        // A sooner one replaces it; a later one does not, unless a tick (replacing) sets it.
        AVPlayer.scheduleTick(in: 0.020, now: now, &s)
        let sooner = s.nextTick
        #expect(sooner.uptimeNanoseconds == now.uptimeNanoseconds + 20_000_000)
        AVPlayer.scheduleTick(in: 0.045, now: now, &s)
        #expect(s.nextTick == sooner)
        AVPlayer.scheduleTick(in: 0.045, replacing: true, now: now, &s)
        #expect(s.nextTick.uptimeNanoseconds == now.uptimeNanoseconds + 45_000_000)
        // Once the deadline has passed, its tick is on its way: a later one is taken.
        let later = now + .milliseconds(100)
        AVPlayer.scheduleTick(in: 0.030, now: later, &s)
        #expect(s.nextTick.uptimeNanoseconds == later.uptimeNanoseconds + 30_000_000)
        // Out of range and not a number: within 1 ms to 50 ms.
        AVPlayer.scheduleTick(in: .nan, replacing: true, now: now, &s)
        #expect(s.nextTick.uptimeNanoseconds == now.uptimeNanoseconds + 50_000_000)
        AVPlayer.scheduleTick(in: -5, replacing: true, now: now, &s)
        #expect(s.nextTick.uptimeNanoseconds == now.uptimeNanoseconds + 1_000_000)
        AVPlayer.scheduleTick(in: 1e300, replacing: true, now: now, &s)
        #expect(s.nextTick.uptimeNanoseconds == now.uptimeNanoseconds + 50_000_000)
    }

    @Test func absurdIntervalsAndTimesKeepTheStepInRange() {
        var s = Self.playing(at: 1)
        s.periodic = [Self.periodic(every: 1e-9, lastMark: .max), Self.periodic(every: 1e12, lastMark: .min)]
        s.boundary = [AVPlayer.BoundaryObserver(token: AVPlayer.TimeObserver(), times: [.positiveInfinity, .invalid, Self.t(-5)],
                                                queue: .main, block: {})]
        let delay = AVPlayer.nextTickDelay(s, now: Self.t(3), raw: Self.t(3), fine: false)
        #expect(delay.isFinite && delay >= AVPlayer.fineTick && delay <= AVPlayer.coarseTick + 0.001)
    }
}
