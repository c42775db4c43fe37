import AVFoundation
import CoreMedia
import FixtureSupport
import Foundation
import Locking
import Synchronization
import Testing

/// A resource loader delegate that serves a file's bytes below `gate` at once and holds the rest until
/// `open()` (a slow network) or fails them at `fail(with:)` (a connection lost midway).
final class GatedDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: the held requests sit behind a lock; the rest is immutable.
    let queue = DispatchQueue(label: "test.gated-delegate")
    let bytes: Data
    let gate: Int
    private let held = Locked<(open: Bool, requests: [(request: AVAssetResourceLoadingRequest, from: Int, stop: Int)])>((false, []))

    init(file: String, gate: Int) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        self.gate = gate
    }

    func asset() -> AVURLAsset {
        let asset = AVURLAsset(url: URL(string: "gated://media/av.mp4")!)
        asset.resourceLoader.setDelegate(self, queue: queue)
        return asset
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentType = AVFileType.mp4.rawValue
            info.contentLength = Int64(bytes.count)
            info.isByteRangeAccessSupported = true
        }
        guard let data = loadingRequest.dataRequest else {
            loadingRequest.finishLoading()
            return true
        }
        let start = Int(clamping: data.requestedOffset)
        let stop = data.requestsAllDataToEndOfResource ? bytes.count : min(bytes.count, start &+ data.requestedLength)
        let isOpen = held.withLock { $0.open }
        let limit = isOpen ? stop : min(stop, gate)
        if start < limit { data.respond(with: bytes.subdata(in: start..<limit)) }
        if limit >= stop {
            loadingRequest.finishLoading()
        } else {
            held.withLock { $0.requests.append((loadingRequest, max(start, limit), stop)) }
        }
        return true
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
        held.withLock { $0.requests.removeAll { $0.request === loadingRequest } }
    }

    /// Fails what was held with `error`.
    func fail(with error: NSError) {
        queue.async { [self] in
            let requests = held.withLock { h in
                defer { h.requests = [] }
                return h.requests.map(\.request)
            }
            for request in requests where !request.isCancelled { request.finishLoading(with: error) }
        }
    }

    /// Serves what was held, and every later request in full.
    func open() {
        queue.async { [self] in
            let requests = held.withLock { h -> [(request: AVAssetResourceLoadingRequest, from: Int, stop: Int)] in
                h.open = true
                defer { h.requests = [] }
                return h.requests
            }
            for (request, from, stop) in requests where !request.isCancelled {
                request.dataRequest?.respond(with: bytes.subdata(in: from..<stop))
                request.finishLoading()
            }
        }
    }
}

/// The read-ahead buffer behind `loadedTimeRanges` and the buffer flags, and the stalls of a source
/// too slow to keep up, on a manual clock.
@Suite("Playback buffer", .serialized)
struct PlaybackBufferTests {
    static func player(_ item: AVPlayerItem) async throws -> (AVPlayer, CMClock) {
        let player = AVPlayer(playerItem: item)
        let clock = CMClock.manual()
        player.sourceClock = clock
        try await PlayerTests.ready(item, in: player)
        return (player, clock)
    }

    /// Reading runs `preferredForwardBufferDuration` ahead of the item's time: a second at first, all of
    /// av.mp4 once the time moves on; a seek past what was read starts the range over there.
    @Test func loadedRangesFollowTheReadAhead() async throws {
        let item = AVPlayerItem(url: PlayerTests.url("av.mp4"))
        item.preferredForwardBufferDuration = 1
        let ranges = PlayerTests.Recorder<[CMTimeRange]>()
        let observation = item.observe(\.loadedTimeRanges, options: [.new]) { _, change in
            ranges.add((change.newValue ?? []).map(\.timeRangeValue))
        }
        let (player, clock) = try await Self.player(item)
        let first = item.loadedTimeRanges.map(\.timeRangeValue)
        #expect(first.count == 1 && first.first?.start == .zero)
        let end = first.first?.end.seconds ?? 0
        #expect(end >= 1 && end < 1.7, "a second read ahead, not the whole file: \(first)")
        #expect(item.isPlaybackLikelyToKeepUp && item.isPlaybackBufferFull && !item.isPlaybackBufferEmpty)

        player.play()
        #expect(player.timeControlStatus == .playing)
        clock.advance(by: PlayerTests.t(1.2))
        await until("the item read to its end") { item.loadedTimeRanges.first?.timeRangeValue.end == item.duration }
        #expect(item.loadedTimeRanges.map(\.timeRangeValue) == [CMTimeRange(start: .zero, end: item.duration)])
        // Observers hear of the change after the property holds it (seen late under ThreadSanitizer).
        await until("observers hearing the whole range (\(ranges.values))") {
            ranges.values.last == [CMTimeRange(start: .zero, end: item.duration)]
        }
        #expect(ranges.values.count >= 2 && ranges.values.last == [CMTimeRange(start: .zero, end: item.duration)],
                "observers heard the range grow: \(ranges.values)")
        observation.invalidate()

        // A fresh item seeks past what it read: the range starts over at the seek.
        let other = AVPlayerItem(url: PlayerTests.url("av.mp4"))
        other.preferredForwardBufferDuration = 1
        let (second, _) = try await Self.player(other)
        #expect(await second.seek(to: PlayerTests.t(1.9), toleranceBefore: .zero, toleranceAfter: .zero))
        await until("the other item read to its end") { other.loadedTimeRanges.first?.timeRangeValue.end == other.duration }
        #expect(other.loadedTimeRanges.map(\.timeRangeValue) == [CMTimeRange(start: PlayerTests.t(1.9), end: other.duration)])
    }

    /// A browser recording that states no duration ends where its media does (what reading ahead
    /// found), with the end notification, instead of playing on past it.
    @Test func mediaWithoutADurationEndsWhereItsMediaDoes() async throws {
        let item = AVPlayerItem(url: PlayerTests.url("no-duration.webm"))
        let ends = PlayerTests.Recorder<Bool>()
        let token = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil) { _ in
            ends.add(true)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let (player, clock) = try await Self.player(item)
        #expect(!item.duration.isNumeric)
        // Reading ahead has reached the end of the media (the buffer is full only once it has).
        await until("item.isPlaybackBufferFull") { item.isPlaybackBufferFull }
        player.play()
        for _ in 0..<30 { clock.advance(by: PlayerTests.t(0.1)) }
        await until("player.rate == 0") { player.rate == 0 }
        let end = player.currentTime().seconds
        #expect(player.rate == 0 && end > 0.99 && end < 1.05, "stopped at the media's end (the last picture ends at 1.014 s): \(end)")
        #expect(ends.values == [true])
        #expect(item.loadedTimeRanges.last?.timeRangeValue.end == player.currentTime())
    }

    /// Bytes that do not come: playing stops where the read media ends, waits `.toMinimizeStalls` with
    /// the stall posted, and goes on from there when the bytes arrive.
    @Test func aSlowSourceStallsThenResumes() async throws {
        let delegate = try GatedDelegate(file: Fixtures.path("av.mp4"), gate: 85_000)
        let item = AVPlayerItem(asset: delegate.asset())
        let stalls = PlayerTests.Recorder<Bool>()
        let token = NotificationCenter.default.addObserver(forName: .AVPlayerItemPlaybackStalled, object: item, queue: nil) { _ in
            stalls.add(true)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let (player, clock) = try await Self.player(item)
        #expect(item.status == .readyToPlay)
        player.play()
        #expect(player.timeControlStatus == .playing)
        clock.advance(by: PlayerTests.t(1.7))
        await until("the player waiting (a stall)") { player.timeControlStatus == .waitingToPlayAtSpecifiedRate }
        #expect(player.reasonForWaitingToPlay == .toMinimizeStalls)
        #expect(stalls.values.count == 1)
        #expect(item.isPlaybackBufferEmpty && !item.isPlaybackLikelyToKeepUp)
        let stalledAt = player.currentTime()
        let readEnd = item.loadedTimeRanges.first?.timeRangeValue.end ?? .invalid
        #expect(stalledAt == readEnd && stalledAt.seconds > 1 && stalledAt.seconds < 1.6, "stopped where the read media ends: \(stalledAt.seconds)")
        clock.advance(by: PlayerTests.t(0.3))
        #expect(player.currentTime() == stalledAt, "no time passes while waiting")

        delegate.open()
        await until("player.timeControlStatus == .playing") { player.timeControlStatus == .playing }
        #expect(player.currentTime() == stalledAt)
        #expect(player.rate == 1 && !item.isPlaybackBufferEmpty)
        clock.advance(by: PlayerTests.t(1))
        await until("player.rate == 0") { player.rate == 0 }
        #expect(player.currentTime() == item.duration)
    }

    /// A connection lost midway: the item fails with the error, `.AVPlayerItemFailedToPlayToEndTime`
    /// carries it, and the player pauses.
    @Test func aSourceThatFailsMidwayFailsTheItem() async throws {
        let lost = NSError(domain: NSURLErrorDomain, code: NSURLErrorNetworkConnectionLost)
        let delegate = try GatedDelegate(file: Fixtures.path("av.mp4"), gate: 85_000)
        let item = AVPlayerItem(asset: delegate.asset())
        let failures = PlayerTests.Recorder<Bool>()
        let token = NotificationCenter.default.addObserver(forName: .AVPlayerItemFailedToPlayToEndTime, object: item, queue: nil) { note in
            failures.add(note.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] is any Error)
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let (player, _) = try await Self.player(item)
        player.play()
        #expect(item.status == .readyToPlay && player.timeControlStatus == .playing)
        delegate.fail(with: lost)
        await until("item.status == .failed && player.rate == 0") { item.status == .failed && player.rate == 0 }
        #expect(item.status == .failed && item.error != nil)
        #expect(failures.values == [true])
        #expect(player.rate == 0 && player.timeControlStatus == .paused)
    }

    /// Over HTTP from a server that sends av.mp4 at an eighth of the rate it plays (the host clock;
    /// sixteen seconds for two of media, so that a slow start cannot let the whole file arrive before
    /// playing reaches its end: at a quarter, a start delayed under AddressSanitizer once left the
    /// rest of the file arriving within the second buffered): playing stalls at least once, the stall
    /// is posted, and the item still plays to its end.
    @Test func aSlowServerStallsAndStillPlaysToTheEnd() async throws {
        let file = URL(fileURLWithPath: Fixtures.path("av.mp4"))
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .slow(file, bytesPerChunk: 750, delay: 0.1)])
        defer { server.stop() }
        let item = AVPlayerItem(url: server.url("/av.mp4"))
        let stalls = PlayerTests.Recorder<Bool>()
        let ends = PlayerTests.Recorder<Bool>()
        let stalled = NotificationCenter.default.addObserver(forName: .AVPlayerItemPlaybackStalled, object: item, queue: nil) { _ in
            stalls.add(true)
        }
        let ended = NotificationCenter.default.addObserver(forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil) { _ in
            ends.add(true)
        }
        defer {
            NotificationCenter.default.removeObserver(stalled)
            NotificationCenter.default.removeObserver(ended)
        }
        let player = AVPlayer(playerItem: item)
        player.play()
        await until("the end played", timeout: 40) { !ends.values.isEmpty }
        #expect(ends.values == [true], "played to the end within 40 s")
        #expect(!stalls.values.isEmpty, "at a quarter of the media's rate, playing stalled")
        #expect(player.currentTime() == item.duration)
    }
}
