import AVFoundation
import CoreMedia
import FixtureSupport
import Foundation
import Locking
import Testing

/// The player's timeline: item loading and status, key-value observation, rate and time against a
/// manual clock (exact and fast) and the host clock (generous bounds), time observers, seeks and the
/// end of an item.
@Suite("Player timeline", .serialized)
struct PlayerTests {
    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }

    /// Waits until `item` has loaded and `player`, which plays it, has heard of it: the item tells its
    /// player just after its status changes (on the loading thread), and the player's status turns
    /// ready then. (A player already ready with an earlier item shows nothing new: for a queue's next
    /// item this waits for the item alone, and the test waits for what it needs of the player.)
    static func ready(_ item: AVPlayerItem, in player: AVPlayer) async throws {
        await until("\(item) loaded and its player ready") {
            item.status == .failed || (item.status == .readyToPlay && player.status == .readyToPlay)
        }
    }

    /// Waits until `item`'s read-ahead is full (for the short fixtures: read to the end), so a manual
    /// clock moved on in a burst finds the media read and playing does not stall on a loaded machine.
    static func readAhead(_ item: AVPlayerItem) async throws {
        await until("item.status == .failed || item.isPlaybackBufferFull") { item.status == .failed || item.isPlaybackBufferFull }
        #expect(item.isPlaybackBufferFull, "the read-ahead of \(item) did not fill")
    }

    /// Plays `player`, whose source clock is the manual `clock`, until `condition` holds or playing
    /// stops (the item's end pauses it): once time runs, the clock moves on 40 ms at each poll, so what
    /// the player does at each time does not depend on how busy the machine is. The clock is moved on a
    /// Dispatch queue (each move runs the player's tick, which should not hold a thread of the
    /// cooperative pool). With a deadline.
    static func play(_ player: AVPlayer, on clock: CMClock, until what: String, keepingUp: @escaping () -> Bool = { true },
                     _ condition: @escaping () -> Bool) async {
        player.play()
        await until("time runs for \(what)") { player.timeControlStatus == .playing || player.rate == 0 }
        await advance(player, on: clock, until: what, keepingUp: keepingUp, condition)
    }

    /// Moves `player`'s manual source `clock` on 40 ms at each poll while it plays, until `condition`
    /// holds or playing stops, as ``play(_:on:until:keepingUp:_:)`` does; the clock waits while
    /// `keepingUp` is false (work that must keep ahead of the time, such as the sound written, does not
    /// fall behind on a loaded machine).
    static func advance(_ player: AVPlayer, on clock: CMClock, until what: String, keepingUp: @escaping () -> Bool = { true },
                        _ condition: @escaping () -> Bool) async {
        let ticking = DispatchQueue(label: "test.clock")
        await until(what, timeout: 30) { () async -> Bool in
            if condition() || player.rate == 0 { return true }
            guard keepingUp() else { return false }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                ticking.async {
                    clock.advance(by: CMTime(value: 1, timescale: 25))
                    done.resume()
                }
            }
            return false
        }
    }

    /// A player of `item` on a manual clock, its sound written to ALSA's file device at `path`, the
    /// item loaded.
    static func soundPlayer(_ item: AVPlayerItem, writingTo path: String) async throws -> (AVPlayer, CMClock) {
        let player = AVPlayer(playerItem: item)
        let clock = CMClock.manual()
        player.sourceClock = clock
        player.audioDevice = AudioOutputTests.fileDevice(path)
        try await ready(item, in: player)
        return (player, clock)
    }

    /// For `play` and `advance`'s `keepingUp`: whether the sound written since `frames` frames were,
    /// when the item's time was `start`, reaches a tenth of a second past the clock's time (or `end`
    /// seconds of sound, where the item's sound ends).
    static func soundAhead(of player: AVPlayer, on clock: CMClock, since frames: Int = 0, from start: Double = 0,
                           upTo end: Double = .infinity) -> () -> Bool {
        { Double(player.audioFramesWritten - frames) / 48_000 >= min(clock.time.seconds - start + 0.1, end) }
    }

    /// A player of `name` on a manual clock, its item loaded.
    static func player(_ name: String = "av.mp4") async throws -> (AVPlayer, AVPlayerItem, CMClock) {
        let item = AVPlayerItem(url: url(name))
        let player = AVPlayer(playerItem: item)
        let clock = CMClock.manual()
        player.sourceClock = clock
        try await ready(item, in: player)
        try await readAhead(item)
        return (player, item, clock)
    }

    final class Recorder<T: Sendable>: @unchecked Sendable {
        private let list = Locked<[T]>([])
        func add(_ value: T) { list.withLock { $0.append(value) } }
        var values: [T] { list.withLock { $0 } }
    }

    /// Seed 004's flow with the block form of key-value observing: the status goes from unknown to
    /// ready only once the automatically loaded keys are loaded.
    @Test func statusBecomesReadyAfterTheKeysLoad() async throws {
        let asset = AVAsset(url: Self.url("av.mp4"))
        let requiredAssetKeys = ["playable", "hasProtectedContent"]
        let playerItem = AVPlayerItem(asset: asset, automaticallyLoadedAssetKeys: requiredAssetKeys)
        let seen = Recorder<String>()
        let observation = playerItem.observe(\.status, options: [.initial, .new]) { item, change in
            switch item.status {
            case .readyToPlay:
                // The keys are loaded by then.
                if case .loaded = asset.status(of: .hasProtectedContent) { seen.add("ready, keys loaded") } else { seen.add("ready, keys NOT loaded") }
            case .failed: seen.add("failed")
            case .unknown: seen.add("unknown \(change.newValue == .unknown)")
            @unknown default: seen.add("?")
            }
        }
        #expect(seen.values == ["unknown true"], "nothing loads before a player takes the item")
        let player = AVPlayer(playerItem: playerItem)
        try await Self.ready(playerItem, in: player)
        await until("seen.values.count == 2 && player.status == .readyToPlay") { seen.values.count == 2 && player.status == .readyToPlay }
        #expect(seen.values == ["unknown true", "ready, keys loaded"])
        #expect(player.status == .readyToPlay && playerItem.duration.seconds == 2 && playerItem.presentationSize == CGSize(width: 320, height: 240))
        observation.invalidate()
    }

    @Test func anItemThatCannotLoadFails() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        let errors = Recorder<Bool>()
        let observation = item.observe(\.status) { item, _ in errors.add(item.error != nil) }
        let player = AVPlayer(playerItem: item)
        try await Self.ready(item, in: player)
        await until("errors.values.count == 1") { errors.values.count == 1 }
        #expect(item.status == .failed && errors.values == [true] && player.currentItem === item)
        #expect((item.error as? AVError)?.code == .failedToLoadMediaData, "\(String(describing: item.error))")
        _ = observation
    }

    @Test func timeRunsAtTheRateAgainstTheClock() async throws {
        let (player, item, clock) = try await Self.player()
        await until("player.status == .readyToPlay") { player.status == .readyToPlay }
        let statuses = Recorder<AVPlayer.TimeControlStatus>()
        let observation = player.observe(\.timeControlStatus, options: [.new]) { _, change in
            if let value = change.newValue { statuses.add(value) }
        }
        #expect(player.currentTime() == .zero && player.timeControlStatus == .paused)
        player.play()
        clock.advance(by: Self.t(0.5))
        #expect(player.currentTime() == Self.t(0.5) && item.currentTime() == Self.t(0.5))
        player.rate = 2
        clock.advance(by: Self.t(0.25))
        #expect(player.currentTime() == Self.t(1))
        player.pause()
        clock.advance(by: Self.t(1))
        #expect(player.currentTime() == Self.t(1) && player.rate == 0)
        #expect(statuses.values == [.playing, .paused])
        observation.invalidate()
    }

    @Test func waitingUntilTheItemIsReady() async throws {
        let player = AVPlayer()
        player.play()
        #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate && player.reasonForWaitingToPlay == .noItemToPlay)
        let item = AVPlayerItem(url: Self.url("av.mp4"))
        player.replaceCurrentItem(with: item)
        if item.status == .unknown { #expect(player.reasonForWaitingToPlay == .evaluatingBufferingRate) }
        try await Self.ready(item, in: player)
        await until("player.timeControlStatus == .playing") { player.timeControlStatus == .playing }
        #expect(player.timeControlStatus == .playing && player.reasonForWaitingToPlay == nil)
        player.pause()
    }

    @Test func periodicAndBoundaryObservers() async throws {
        let (player, _, clock) = try await Self.player()
        let queue = DispatchQueue(label: "test.observers")
        let ticks = Recorder<Double>(), crossings = Recorder<Int>()
        let periodic = player.addPeriodicTimeObserver(forInterval: Self.t(0.5), queue: queue) { ticks.add($0.seconds) }
        let boundary = player.addBoundaryTimeObserver(forTimes: [NSValue(time: Self.t(0.75)), NSValue(time: Self.t(1.25))], queue: queue) {
            crossings.add(1)
        }
        player.play()
        // The start may be decided on an engine thread (the player's own status comes a moment after
        // the item's); the clock moves only once time runs.
        await until("player.timeControlStatus == .playing") { player.timeControlStatus == .playing }
        await until("the start's tick") { !ticks.values.isEmpty }
        for _ in 0..<14 { clock.advance(by: Self.t(0.1)) }   // to 1.4 s
        queue.sync {}
        #expect(ticks.values == [0, 0.5, 1.0], "the start, then each half second: \(ticks.values)")
        #expect(crossings.values.count == 2)
        _ = await player.seek(to: Self.t(0.2), toleranceBefore: .zero, toleranceAfter: .zero)
        queue.sync {}
        #expect(ticks.values.last == 0.2, "a jump is reported")
        #expect(crossings.values.count == 2, "a seek does not cross boundaries")
        player.removeTimeObserver(periodic)
        player.removeTimeObserver(boundary)
        for _ in 0..<10 { clock.advance(by: Self.t(0.1)) }
        queue.sync {}
        #expect(ticks.values.count == 4 && crossings.values.count == 2, "nothing after removal")
    }

    @Test func theEndOfAnItem() async throws {
        for action in [AVPlayer.ActionAtItemEnd.pause, .none, .advance] {
            let (player, item, clock) = try await Self.player()
            player.actionAtItemEnd = action
            let ends = Recorder<Bool>()
            let observer = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil) { _ in ends.add(true) }
            player.play()
            for _ in 0..<30 { clock.advance(by: Self.t(0.1)) }
            NotificationCenter.default.removeObserver(observer)
            #expect(ends.values.count == 1, "\(action)")
            switch action {
            case .pause: #expect(player.rate == 0 && player.currentTime() == Self.t(2))
            case .none: #expect(player.rate == 1 && player.currentTime() == Self.t(2))
            case .advance: #expect(player.currentItem == nil)
            @unknown default: break
            }
        }
        #expect(AVPlayerItem.didPlayToEndTimeNotification == .AVPlayerItemDidPlayToEndTime)
    }

    @Test func seeksAndTheirHandlers() async throws {
        let (player, item, _) = try await Self.player()
        // Tolerances: wide ones (the default) land on the nearest keyframe (av.mp4's are at 0 and 1 s),
        // zero ones exactly, narrow ones without a keyframe inside them exactly too.
        #expect(await player.seek(to: Self.t(1.4)))
        #expect(player.currentTime() == Self.t(1.0), "the nearest keyframe")
        #expect(await player.seek(to: Self.t(0.4), toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity))
        #expect(player.currentTime() == .zero)
        #expect(await player.seek(to: Self.t(1.5), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(player.currentTime() == Self.t(1.5))
        #expect(await player.seek(to: Self.t(1.3), toleranceBefore: Self.t(0.1), toleranceAfter: Self.t(0.1)))
        #expect(player.currentTime() == Self.t(1.3))
        #expect(await player.seek(to: Self.t(0.95), toleranceBefore: Self.t(0.1), toleranceAfter: Self.t(0.1)))
        #expect(player.currentTime() == Self.t(1.0), "the keyframe inside the tolerances")
        let older = Recorder<Bool>(), newer = Recorder<Bool>()
        let both = DispatchGroup()
        both.enter(); both.enter()
        player.seek(to: Self.t(0.5), toleranceBefore: .zero, toleranceAfter: .zero) { older.add($0); both.leave() }
        player.seek(to: Self.t(1.0)) { newer.add($0); both.leave() }
        await withHandOffContinuation { done in both.notify(queue: .global()) { done.resume() } }
        // The older one is interrupted (false) unless it finished before the newer came: either way once.
        #expect(newer.values == [true] && older.values.count == 1)
        let cancelled = Recorder<Bool>()
        let one = DispatchGroup()
        one.enter()
        player.seek(to: Self.t(0.7)) { cancelled.add($0); one.leave() }
        item.cancelPendingSeeks()
        await withHandOffContinuation { done in one.notify(queue: .global()) { done.resume() } }
        #expect(cancelled.values.count == 1)
        _ = await player.seek(to: Self.t(1.0))
        #expect(player.currentTime() == Self.t(1.0))
        #expect(await item.seek(to: Self.t(9)), "past the end: the end")
        #expect(player.currentTime() == Self.t(2))
        item.step(byCount: -1)
        #expect(player.currentTime() < Self.t(2))
    }

    /// A tolerant seek still looking for its keyframe when the item is replaced never lands on the new
    /// item; its handler is called once.
    @Test func aSeekOnItsWayDoesNotLandOnTheNextItem() async throws {
        let (player, _, _) = try await Self.player()
        let next = AVPlayerItem(url: Self.url("av.mp4"))
        let results = Recorder<Bool>()
        let done = DispatchGroup()
        done.enter()
        player.seek(to: Self.t(1.4)) { results.add($0); done.leave() }
        player.replaceCurrentItem(with: next)
        await withHandOffContinuation { continuation in done.notify(queue: .global()) { continuation.resume() } }
        // A negative check: no second call. 100 ms more can only miss a late call on a slow machine,
        // never fail a right answer.
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(results.values.count == 1)
        #expect(player.currentItem === next && player.currentTime() == .zero)
    }

    @Test func theRealClock() async throws {
        let item = AVPlayerItem(url: Self.url("av.mp4"))
        let player = AVPlayer(playerItem: item)
        try await Self.ready(item, in: player)
        let rates = Recorder<Bool>()
        let observer = NotificationCenter.default.addObserver(forName: AVPlayer.rateDidChangeNotification, object: player, queue: nil) { _ in rates.add(true) }
        let ticks = Recorder<Double>()
        let token = player.addPeriodicTimeObserver(forInterval: Self.t(0.1), queue: DispatchQueue(label: "test.real")) { ticks.add($0.seconds) }
        let started = ContinuousClock.now
        player.play()
        // The real clock moves the time: past 0.15 s however late a busy machine starts playing, and never
        // further than the time gone by since play().
        await until("the time past 0.15 s on the real clock") { player.currentTime().seconds > 0.15 }
        let now = player.currentTime().seconds
        let gone = (ContinuousClock.now - started) / .seconds(1)
        player.pause()
        DispatchQueue(label: "test.flush").sync {}
        await until("ticks.values.count >= 2") { ticks.values.count >= 2 }
        #expect(now > 0.15 && now < gone + 0.01, "\(now) s played in \(gone) s")
        #expect(ticks.values.count >= 2, "\(ticks.values)")
        #expect(rates.values.count == 2)
        player.removeTimeObserver(token)
        NotificationCenter.default.removeObserver(observer)
    }

    @Test func aQueuePlaysItsItemsInTurn() async throws {
        let first = AVPlayerItem(url: Self.url("av.mp4")), second = AVPlayerItem(url: Self.url("frames-h264.mp4"))
        let queue = AVQueuePlayer(items: [first, second])
        let clock = CMClock.manual()
        queue.sourceClock = clock
        #expect(queue.items() == [first, second] && queue.actionAtItemEnd == .advance)
        let changes = Recorder<Bool>()
        let observation = queue.observe(\.currentItem, options: [.new]) { _, change in changes.add(change.newValue == second) }
        try await Self.ready(first, in: queue)
        try await Self.readAhead(first)
        await until("queue.status == .readyToPlay") { queue.status == .readyToPlay }
        queue.play()
        await until("queue.timeControlStatus == .playing") { queue.timeControlStatus == .playing }
        for _ in 0..<21 { clock.advance(by: Self.t(0.1)) }
        #expect(queue.currentItem === second && changes.values == [true], "the end of the first advances to the second")
        try await Self.ready(second, in: queue)
        await until("queue.timeControlStatus == .playing") { queue.timeControlStatus == .playing }
        #expect(queue.timeControlStatus == .playing && queue.currentTime() < Self.t(0.5))
        let third = AVPlayerItem(url: Self.url("av.mp4"))
        #expect(queue.canInsert(third, after: nil) && !queue.canInsert(second, after: nil))
        queue.insert(third, after: second)
        #expect(queue.items() == [second, third])
        queue.remove(third)
        queue.advanceToNextItem()
        #expect(queue.currentItem == nil && queue.items().isEmpty)
        queue.insert(first, after: nil)
        #expect(queue.currentItem === first)
        queue.removeAllItems()
        #expect(queue.items().isEmpty)
        observation.invalidate()
    }

    /// Marks are counted exactly: a 0.1 s observer fires at 0.3 s, where 0.3 / 0.1 in floating point is
    /// 2.999...
    @Test func periodicMarksAreExact() async throws {
        let (player, _, clock) = try await Self.player()
        let queue = DispatchQueue(label: "test.exact")
        let ticks = Recorder<Int64>()
        let token = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 10), queue: queue) { ticks.add($0.value) }
        player.play()
        for _ in 0..<7 { clock.advance(by: CMTime(value: 1, timescale: 10)) }
        queue.sync {}
        #expect(ticks.values.count == 8, "the start and seven tenths: \(ticks.values)")
        player.removeTimeObserver(token)
    }

    /// Apps often observe the current item's status through the player.
    @Test func chainedKeyPathsThroughThePlayer() async throws {
        let player = AVPlayer()
        let seen = Recorder<String>()
        let observation = player.observe(\.currentItem?.status, options: [.initial, .new]) { _, change in
            seen.add("\(String(describing: change.newValue))")
        }
        let item = AVPlayerItem(url: Self.url("av.mp4"))
        player.replaceCurrentItem(with: item)
        try await Self.ready(item, in: player)
        await until("seen.values.count == 3") { seen.values.count == 3 }
        #expect(seen.values == ["Optional(nil)", "Optional(Optional(AVFoundation.AVPlayerItem.Status.unknown))",
                                "Optional(Optional(AVFoundation.AVPlayerItem.Status.readyToPlay))"], "\(seen.values)")
        observation.invalidate()
    }
}
