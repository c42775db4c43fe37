@testable import AVFoundation
import Foundation
import Testing

/// The player's state machine on its own: handlers are strings and times are those of a manual clock,
/// so every decision is a value.
@Suite("Player state machine")
struct PlayerStateMachineTests {
    typealias Machine = PlayerStateMachine<String>
    struct DeviceGone: Error {}

    static func t(_ seconds: Int64) -> CMTime { CMTime(value: seconds, timescale: 1) }
    static let ready = Machine.ItemFacts(present: true, ready: true, empty: false, likelyToKeepUp: true, readEnd: t(10))

    @Test func playingWaitsForAnItemThenForItsMediaThenRuns() {
        var m = Machine()
        let rate = m.setRate(1)
        #expect(rate.old == 0 && rate.new == 1 && rate.interrupted.isEmpty && m.rate == 1)
        var step = m.refresh(Machine.ItemFacts(), at: .zero, waitsToMinimizeStalling: true, jumped: false)
        #expect(m.timeControlStatus == .waitingToPlayAtSpecifiedRate && m.waitingReason == .noItemToPlay && step.restart == nil)
        step = m.refresh(Machine.ItemFacts(present: true), at: .zero, waitsToMinimizeStalling: true, jumped: false)
        #expect(m.waitingReason == .evaluatingBufferingRate)
        var thin = Self.ready
        thin.likelyToKeepUp = false
        step = m.refresh(thin, at: .zero, waitsToMinimizeStalling: true, jumped: false)
        #expect(m.waitingReason == .toMinimizeStalls && !step.stalled, "too little read to start: waiting, not a stall")
        step = m.refresh(thin, at: .zero, waitsToMinimizeStalling: false, jumped: false)
        #expect(m.timeControlStatus == .playing, "without waiting to minimize stalls it starts")
        #expect(step.restart?.rate == 1 && step.restart?.anchor == .zero && m.runningRate == 1)
        step = m.refresh(Self.ready, at: Self.t(1), waitsToMinimizeStalling: true, jumped: false)
        #expect(step.restart == nil && step.oldStatus == .playing, "nothing changes while it plays")
    }

    @Test func aBufferRunningDryIsAStallAnchoredWhereTheMediaEnds() {
        var m = Machine()
        _ = m.setRate(2)
        _ = m.refresh(Self.ready, at: .zero, waitsToMinimizeStalling: true, jumped: false)
        #expect(m.runningRate == 2)
        var dry = Self.ready
        (dry.empty, dry.readEnd) = (true, Self.t(4))
        let step = m.refresh(dry, at: Self.t(5), waitsToMinimizeStalling: true, jumped: false)
        #expect(step.stalled && m.waitingReason == .toMinimizeStalls)
        #expect(step.restart?.rate == 0 && step.restart?.anchor == Self.t(4), "the time stops where the read media ends")
        // After a seek, waiting for media there is not a stall.
        var n = Machine()
        _ = n.setRate(1)
        _ = n.refresh(Self.ready, at: .zero, waitsToMinimizeStalling: true, jumped: false)
        #expect(!n.refresh(dry, at: Self.t(5), waitsToMinimizeStalling: true, jumped: true).stalled)
    }

    @Test func rates() {
        var m = Machine()
        #expect(m.setRate(-1).new == 0, "no reverse play")
        #expect(m.setRate(.nan).new == 0)
        let started = m.setRate(1.5, immediately: true)
        #expect(started.old == 0 && started.new == 1.5 && m.immediately)
        var thin = Self.ready
        thin.likelyToKeepUp = false
        _ = m.refresh(thin, at: .zero, waitsToMinimizeStalling: true, jumped: false)
        #expect(m.timeControlStatus == .playing, "an immediate start does not wait for the buffer")
        _ = m.setRate(0)
        #expect(!m.immediately && m.refresh(Self.ready, at: Self.t(1), waitsToMinimizeStalling: true, jumped: false).restart?.rate == 0)
        #expect(m.timeControlStatus == .paused && m.waitingReason == nil)
    }

    @Test func aNewerSeekInterruptsAnOlderOne() {
        var m = Machine()
        let first = m.beginSeek("first")
        #expect(first.interrupted.isEmpty)
        let second = m.beginSeek("second")
        #expect(second.interrupted == ["first"] && second.generation == first.generation + 1)
        #expect(!m.land(first.generation) && m.finishSeek(first.generation) == nil, "the older seek never lands")
        #expect(m.land(second.generation) && m.finishSeek(second.generation) == "second")
        #expect(m.finishSeek(second.generation) == nil, "told once")
        let third = m.beginSeek("third")
        #expect(m.cancelSeeks() == ["third"] && !m.land(third.generation))
        let fourth = m.beginSeek("fourth")
        #expect(m.replaceItem(changed: true) == ["fourth"] && !m.isCurrent(fourth.generation), "a new item ends the seek")
        #expect(m.replaceItem(changed: false).isEmpty)
    }

    @Test func theEndIsActedOnOnceUntilASeekOrPlayingAgain() {
        var m = Machine()
        let generation = m.reachEnd()
        #expect(generation != nil && m.reachEnd() == nil)
        let seek = m.beginSeek("back")
        #expect(m.land(seek.generation) && m.reachEnd() == seek.generation)
        _ = m.setRate(1)
        #expect(m.reachEnd() != nil, "playing again forgets the end")
    }

    @Test func prerolls() {
        var m = Machine()
        let early = m.beginPreroll("early", itemReady: true)
        #expect(!early, "a player not ready cannot preroll")
        let (became, again) = (m.itemBecameReady(), m.itemBecameReady())
        #expect(became == .unknown && again == nil)
        let (a, b) = (m.beginPreroll("a", itemReady: true), m.beginPreroll("b", itemReady: true))
        #expect(a && b && m.prerolling)
        let finished = m.finishPrerolls()
        #expect(finished == ["a", "b"] && !m.prerolling)
        let c = m.beginPreroll("c", itemReady: true)
        let playing = m.setRate(1)
        #expect(c && playing.interrupted == ["c"], "playing interrupts a preroll")
        let d = m.beginPreroll("d", itemReady: true)
        #expect(!d, "a playing player cannot preroll")
        _ = m.setRate(0)
        let e = m.beginPreroll("e", itemReady: true)
        let seek = m.beginSeek("seek")
        #expect(e && seek.interrupted == ["e"], "a seek interrupts a preroll")
        let f = m.beginPreroll("f", itemReady: true)
        let cancelled = m.cancelPrerolls()
        #expect(f && cancelled == ["f"])
        let g = m.beginPreroll("g", itemReady: false)
        #expect(!g, "an item not ready cannot be prerolled")
    }

    @Test func aFailedPlayerStaysPausedAndFailed() throws {
        var m = Machine()
        _ = m.itemBecameReady()
        _ = m.setRate(1)
        _ = m.refresh(Self.ready, at: .zero, waitsToMinimizeStalling: true, jumped: false)
        let seek = m.beginSeek("seek")
        let failure = m.fail(DeviceGone())
        let failed = try #require(failure)
        #expect(failed.oldStatus == .readyToPlay && failed.oldRate == 1 && failed.interrupted == ["seek"])
        let landed = m.land(seek.generation)
        #expect(m.status == .failed && m.error is DeviceGone && m.rate == 0 && !landed)
        let second = m.fail(DeviceGone())
        #expect(second == nil, "fails once")
        let step = m.refresh(Self.ready, at: Self.t(1), waitsToMinimizeStalling: true, jumped: false)
        #expect(m.timeControlStatus == .paused && step.restart?.rate == 0)
        let rate = m.setRate(1)
        #expect(rate.new == 0 && m.rate == 0, "a failed player does not play again")
        let ready = m.itemBecameReady()
        #expect(ready == nil && m.status == .failed)
        let preroll = m.beginPreroll("p", itemReady: true)
        #expect(!preroll)
    }
}
