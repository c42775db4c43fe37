import AVFoundation
import CoreMedia
import FixtureSupport
import Foundation
import Testing

/// `AVPlayerLooper` in an `AVQueuePlayer` on a manual clock (time moves exactly when the test says) with
/// ALSA's null device for the sound: the looper's status, its replicas in the queue, loops counted
/// exactly over the whole item and over a range of it, disabling, the ordering among items already
/// queued, and templates that cannot be looped.
@Suite("Player looper", .serialized)
struct PlayerLooperTests {
    typealias Recorder = PlayerTests.Recorder

    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static let nullDevice = (name: "avocetnull", configuration: Optional("pcm.avocetnull { type null }"))
    /// The clock's step: 0.05 s, exact at timescale 600.
    static let step = t(0.05)

    /// An empty queue player on a manual clock, its sound going to the null device.
    static func queuePlayer() -> (AVQueuePlayer, CMClock) {
        let player = AVQueuePlayer()
        let clock = CMClock.manual()
        player.sourceClock = clock
        player.audioDevice = nullDevice
        return (player, clock)
    }

    /// Waits until the current item plays with all of it read ahead (the fixtures are short), so that
    /// the clock moved on in steps never finds the media unread.
    static func playing(_ player: AVQueuePlayer) async {
        await until("the current item playing, read to its end") {
            guard let item = player.currentItem else { return false }
            return item.status == .failed || (player.timeControlStatus == .playing && item.isPlaybackBufferFull)
        }
        #expect(player.currentItem?.status == .readyToPlay, "\(String(describing: player.currentItem?.error))")
    }

    /// Moves the clock on a step at a time until the player leaves its current item.
    ///
    /// - Returns: The steps it took; nil when the item was still current after `limit` steps.
    static func playOut(_ player: AVQueuePlayer, _ clock: CMClock, limit: Int = 60, inRange range: CMTimeRange? = nil) -> Int? {
        let item = player.currentItem
        for steps in 1...limit {
            clock.advance(by: step)
            if player.currentItem !== item { return steps }
            if let range { #expect(range.containsTime(player.currentTime()) || player.currentTime() == range.end, "\(player.currentTime().seconds)") }
        }
        return nil
    }

    @Test func loopsTheWholeItem() async throws {
        let (player, clock) = Self.queuePlayer()
        let template = AVPlayerItem(url: Self.url("tone.wav"))
        let looper = AVPlayerLooper(player: player, templateItem: template)
        let statuses = Recorder<AVPlayerLooper.Status>(), counts = Recorder<Int>()
        let statusObservation = looper.observe(\.status, options: [.initial, .new]) { _, change in if let status = change.newValue { statuses.add(status) } }
        let countObservation = looper.observe(\.loopCount, options: [.new]) { _, change in if let count = change.newValue { counts.add(count) } }
        // The observers hear of a change just after the property holds it: the wait is for them.
        await until("the looper's status observed") { statuses.values.contains { $0 != .unknown } }
        // The initial value may already be the new one (an observation made as the looper became ready
        // hears it twice): what counts is that it was seen and nothing else was.
        let seen = statuses.values.filter { $0 != .unknown }
        #expect(looper.status == .ready && looper.error == nil && !seen.isEmpty && seen.allSatisfy { $0 == .ready }, "\(statuses.values)")
        let replicas = looper.loopingPlayerItems
        #expect(replicas.count >= 3 && !replicas.contains { $0 === template })
        #expect(player.items().count == replicas.count && replicas.allSatisfy { replica in player.items().contains { $0 === replica } })
        #expect(player.currentItem === replicas.first && player.actionAtItemEnd == .advance)
        #expect(looper.loopCount == 0)
        player.play()
        let whole = CMTimeRange(start: .zero, duration: Self.t(1))
        for pass in 1...4 {
            await Self.playing(player)
            let before = player.currentItem
            let steps = Self.playOut(player, clock, inRange: whole)
            #expect(steps == 20, "one second in steps of 0.05 s: \(String(describing: steps))")
            #expect(looper.loopCount == pass, "after pass \(pass)")
            #expect(player.currentTime() == .zero, "the next replica starts at the start: \(player.currentTime().seconds)")
            // The replica that ended is back in the queue, last; the queue is the replicas still.
            #expect(player.items().last === before && player.items().count == replicas.count)
        }
        await until("four loops observed") { counts.values.count >= 4 }
        #expect(counts.values == [1, 2, 3, 4])
        #expect(looper.loopCount == 4 && looper.status == .ready)
        player.pause()
        statusObservation.invalidate()
        countObservation.invalidate()
    }

    /// 0.2 s to 0.7 s of a one-second movie: each replica starts at 0.2 s and ends at 0.7 s exactly.
    @Test func loopsARangeOfTheItem() async throws {
        let (player, clock) = Self.queuePlayer()
        let range = CMTimeRange(start: Self.t(0.2), end: Self.t(0.7))
        let looper = AVPlayerLooper(player: player, templateItem: AVPlayerItem(url: Self.url("rotated.mov")), timeRange: range)
        await until("looper.status != .unknown") { looper.status != .unknown }
        #expect(looper.status == .ready)
        #expect(looper.loopingPlayerItems.allSatisfy { $0.forwardPlaybackEndTime == Self.t(0.7) })
        #expect(player.currentTime() == Self.t(0.2), "the first replica starts at the range's start")
        player.play()
        for pass in 1...3 {
            await Self.playing(player)
            #expect(player.currentTime() == Self.t(0.2))
            let steps = Self.playOut(player, clock, inRange: range)
            #expect(steps == 10, "half a second in steps of 0.05 s: \(String(describing: steps))")
            #expect(looper.loopCount == pass)
            #expect(range.containsTime(player.currentTime()), "\(player.currentTime().seconds)")
        }
        player.pause()
    }

    /// After `disableLooping()` the replica playing plays to its end and playback ends there: the other
    /// replicas have left the queue and the player's own action at an item's end is back.
    @Test func disablingLetsTheCurrentReplicaEnd() async throws {
        let (player, clock) = Self.queuePlayer()
        player.actionAtItemEnd = .pause
        let looper = AVPlayerLooper(player: player, templateItem: AVPlayerItem(url: Self.url("tone.wav")),
                                    timeRange: CMTimeRange(start: .zero, end: .positiveInfinity))
        await until("looper.status != .unknown") { looper.status != .unknown }
        #expect(looper.status == .ready && player.actionAtItemEnd == .advance)
        #expect(looper.loopingPlayerItems.allSatisfy { $0.forwardPlaybackEndTime.seconds == 1 }, "an infinite end is the item's end")
        player.play()
        await Self.playing(player)
        #expect(Self.playOut(player, clock) != nil)
        #expect(looper.loopCount == 1)
        await Self.playing(player)
        for _ in 0..<4 { clock.advance(by: Self.step) }
        let playing = player.currentItem
        looper.disableLooping()
        #expect(looper.status == .cancelled && looper.error == nil)
        #expect(player.items().count == 1 && player.currentItem === playing, "only the replica playing is left")
        #expect(player.actionAtItemEnd == .advance, "restored at the replica's end, not before")
        #expect(Self.playOut(player, clock) == 16, "the rest of the second")
        #expect(player.currentItem == nil && player.items().isEmpty)
        #expect(looper.loopCount == 1 && looper.status == .cancelled)
        #expect(player.actionAtItemEnd == .pause)
        for _ in 0..<10 { clock.advance(by: Self.step) }
        #expect(player.currentItem == nil && looper.loopCount == 1)
        looper.disableLooping()
        #expect(looper.status == .cancelled)
    }

    /// A looper let go stops looping as a disabled one does: the queue and the action are the player's own.
    @Test func releasingTheLooperStopsLooping() async throws {
        let (player, clock) = Self.queuePlayer()
        player.actionAtItemEnd = .none
        var looper: AVPlayerLooper? = AVPlayerLooper(player: player, templateItem: AVPlayerItem(url: Self.url("tone.wav")))
        await until("the looper ready") { looper?.status == .ready }
        let first = looper?.loopingPlayerItems.first
        #expect(player.items().count == 3 && player.currentItem === first)
        looper = nil
        #expect(player.items().count == 1 && player.currentItem === first && player.actionAtItemEnd == .none)
        player.play()
        await Self.playing(player)
        #expect(Self.playOut(player, clock, limit: 30) == nil, "with .none the item stays at its end")
        #expect(player.currentItem === first && player.currentTime().seconds == 1)
    }

    /// A template whose asset's duration is loaded already: the looper is ready before its init returns,
    /// and its replicas go before, or after, the items already queued.
    @Test func theOrderingAmongItemsAlreadyQueued() async throws {
        let asset = AVURLAsset(url: Self.url("rotated.mov"))
        _ = try await asset.load(.duration, .isPlayable)
        for ordering in [AVPlayerLooper.ItemOrdering.loopingItemsPrecedeExistingItems, .loopingItemsFollowExistingItems] {
            let existing = AVPlayerItem(url: Self.url("tone.wav"))
            let player = AVQueuePlayer(items: [existing])
            player.audioDevice = Self.nullDevice
            let looper = AVPlayerLooper(player: player, templateItem: AVPlayerItem(asset: asset), timeRange: .invalid, existingItemsOrdering: ordering)
            #expect(looper.status == .ready, "\(ordering)")
            let replicas = looper.loopingPlayerItems
            let expected = ordering == .loopingItemsPrecedeExistingItems ? replicas + [existing] : [existing] + replicas
            #expect(player.items().elementsEqual(expected, by: ===), "\(ordering)")
            looper.disableLooping()
            let left = ordering == .loopingItemsPrecedeExistingItems ? Array(replicas.prefix(1)) + [existing] : [existing]
            #expect(player.items().elementsEqual(left, by: ===), "\(ordering): the replica playing and the items queued before")
        }
    }

    @Test func aMissingFileFails() async throws {
        let (player, _) = Self.queuePlayer()
        let statuses = Recorder<AVPlayerLooper.Status>()
        let looper = AVPlayerLooper(player: player, templateItem: AVPlayerItem(url: URL(fileURLWithPath: "/nonexistent/loop.mp4")))
        // With the initial value: a missing file can fail the looper before the observation is made
        // (seen under ThreadSanitizer), and then only the initial value tells of it.
        let observation = looper.observe(\.status, options: [.initial, .new]) { _, change in if let status = change.newValue { statuses.add(status) } }
        player.play()
        await until("the looper's status observed") { statuses.values.contains { $0 != .unknown } }
        let seen = statuses.values.filter { $0 != .unknown }
        #expect(looper.status == .failed && looper.error != nil && !seen.isEmpty && seen.allSatisfy { $0 == .failed }, "\(statuses.values)")
        #expect((looper.error as? AVError)?.code == .failedToLoadMediaData, "\(String(describing: looper.error))")
        #expect(player.items().isEmpty && player.currentItem == nil && looper.loopCount == 0)
        observation.invalidate()
    }

    @Test func whatCannotBeLoopedFails() async throws {
        // Not media.
        let (player, _) = Self.queuePlayer()
        let notMedia = AVPlayerLooper(player: player, templateItem: AVPlayerItem(url: Self.url("not-media.mp4")))
        await until("notMedia.status != .unknown") { notMedia.status != .unknown }
        #expect(notMedia.status == .failed && notMedia.error is AVError, "\(String(describing: notMedia.error))")
        #expect(player.items().isEmpty)
        // A range after the item's end, and one of no time.
        for range in [CMTimeRange(start: Self.t(2), end: Self.t(3)), CMTimeRange(start: Self.t(0.5), duration: .zero)] {
            let looper = AVPlayerLooper(player: player, templateItem: AVPlayerItem(url: Self.url("tone.wav")), timeRange: range)
            await until("looper.status != .unknown") { looper.status != .unknown }
            #expect(looper.status == .failed && (looper.error as? AVError)?.code == .operationNotAllowed, "\(String(describing: looper.error))")
            #expect(player.items().isEmpty)
        }
        // Disabled before it was ready: never queues anything.
        let template = AVPlayerItem(url: Self.url("tone.wav"))
        let early = AVPlayerLooper(player: player, templateItem: template)
        early.disableLooping()
        #expect(early.status == .cancelled)
        // The duration loads all the same (for the template's asset, here); a negative check then: 50 ms
        // more can only miss a late setup on a slow machine, never fail a right answer.
        _ = try await template.asset.load(.duration)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(early.status == .cancelled && player.items().isEmpty)
    }

    /// The range is cut to the item, as the player ends items.
    @Test func theLoopRange() {
        let second = Self.t(1)
        func range(_ requested: CMTimeRange, _ duration: CMTime = second) -> CMTimeRange? {
            try? AVPlayerLooper.loopRange(requested, in: duration).get()
        }
        #expect(range(.invalid) == CMTimeRange(start: .zero, end: second))
        #expect(range(CMTimeRange(start: .zero, end: .positiveInfinity)) == CMTimeRange(start: .zero, end: second))
        #expect(range(CMTimeRange(start: Self.t(0.2), end: Self.t(5))) == CMTimeRange(start: Self.t(0.2), end: second))
        #expect(range(CMTimeRange(start: Self.t(-1), end: Self.t(0.5))) == CMTimeRange(start: .zero, end: Self.t(0.5)))
        #expect(range(CMTimeRange(start: Self.t(0.2), end: Self.t(0.7)), .indefinite) == CMTimeRange(start: Self.t(0.2), end: Self.t(0.7)))
        #expect(range(.invalid, .indefinite) == nil && range(.invalid, .zero) == nil)
        #expect(range(CMTimeRange(start: second, end: Self.t(2))) == nil)
    }
}
