import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// Records what a metadata output delivers, in order, on its queue.
final class MetadataRecorder: NSObject, AVPlayerItemMetadataOutputPushDelegate, @unchecked Sendable {
    enum Event: Equatable {
        /// A group, with the item time when it arrived and the track it came from.
        case group(AVTimedMetadataGroup, arrivedAt: Double, trackID: CMPersistentTrackID)
        case flushed
    }

    let queue = DispatchQueue(label: "metadata-recorder")
    let events = Locked<[Event]>([])
    weak var player: AVPlayer?

    func metadataOutput(_ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
                        from track: AVPlayerItemTrack?) {
        let now = player?.currentTime().seconds ?? .nan
        events.withLock { $0 += groups.map { .group($0, arrivedAt: now, trackID: track?.assetTrack?.trackID ?? 0) } }
    }

    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {
        events.withLock { $0.append(.flushed) }
    }

    /// Forgets what was delivered, after what is already queued for the delegate has arrived.
    func clear() {
        queue.sync {}
        events.withLock { $0 = [] }
    }

    var groups: [AVTimedMetadataGroup] {
        events.withLock { $0 }.compactMap { if case .group(let group, _, _) = $0 { return group } else { return nil } }
    }

    /// Each group's first item: its text, or its identifier when it has none.
    func names() async throws -> [String] {
        var names: [String] = []
        for group in groups {
            let first = group.items.first
            names.append(try await first?.load(.stringValue) ?? first?.identifier?.rawValue ?? "?")
        }
        return names
    }
}

/// Timed ID3 metadata reaches a metadata output's delegate as the item plays (Fixtures/timed-id3.ts and
/// hls-id3/: cues "Opening", "Interview" and "Closing" 0.5, 1.5 and 2.5 s after the first picture).
@Suite("Metadata output", .serialized)
struct MetadataOutputTests {
    static let facts = Fixtures.facts.timedMetadata
    static var titles: [String] { facts.cues.map { $0.frames[0][1] } }

    /// A player on the timed ID3 movie (or its HLS stream, served by `server`, or the file `name`) with
    /// `output` added.
    static func setUp(_ output: AVPlayerItemMetadataOutput, hls server: LoopbackHTTPServer? = nil, playlist: String = "/index.m3u8",
                      file name: String = facts.name) async throws -> (AVPlayer, AVPlayerItem, MetadataRecorder) {
        let url = server?.url(playlist) ?? URL(fileURLWithPath: Fixtures.path(name))
        let item = AVPlayerItem(asset: AVURLAsset(url: url))
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        let recorder = MetadataRecorder()
        recorder.player = player
        output.setDelegate(recorder, queue: recorder.queue)
        item.add(output)
        try await PlayerTests.ready(item, in: player)
        return (player, item, recorder)
    }

    static func hlsServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer(routes: LoopbackHTTPServer.routes(serving: Fixtures.directory.appendingPathComponent(facts.hlsDirectory)))
    }

    /// The start of each cue on the item's timeline: the first picture's time plus the cue's time.
    static func starts(_ item: AVPlayerItem) async throws -> [Double] {
        let video = try #require(try await item.asset.loadTracks(withMediaType: .video).first)
        let first = try await video.load(.timeRange).start.seconds
        return facts.cues.map { first + $0.time }
    }

    static func time(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 90_000) }

    @Test(arguments: ["file", "hls"])
    func groupsArriveAsTheItemPlays(_ kind: String) async throws {
        let server = try Self.hlsServer()
        let output = AVPlayerItemMetadataOutput(identifiers: nil)
        let (player, item, recorder) = try await Self.setUp(output, hls: kind == "hls" ? server : nil)
        #expect(output.delegate === recorder && output.delegateQueue === recorder.queue)
        // The track is read once the item is ready: a seek into the second cue's time delivers it once
        // it is read. Then play from the start.
        let starts = try await Self.starts(item)
        try await until("the output has read its track") {
            _ = await player.seek(to: Self.time(starts[1] + 0.1), toleranceBefore: .zero, toleranceAfter: .zero)
            return try await recorder.names().last == Self.titles[1]
        }
        #expect(recorder.events.withLock { $0 }.contains(.flushed))
        _ = await player.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero)
        recorder.clear()
        await PlayerTests.play(player, on: try #require(player.sourceClock), until: "every cue delivered") { recorder.groups.count >= Self.titles.count }
        player.pause()
        #expect(try await recorder.names() == Self.titles, "\(recorder.events.withLock { $0 })")
        let metadataTrack = try #require(try await item.asset.loadTracks(withMediaType: .metadata).first)
        for (event, start) in zip(recorder.events.withLock { $0 }.filter { $0 != .flushed }, starts) {
            guard case .group(let group, let arrived, let trackID) = event else { Issue.record("\(event)"); continue }
            let at = group.timeRange.start.seconds
            #expect(abs(at - start) < 0.001, "the group starts at its cue: \(at) for \(start)")
            #expect(arrived >= at - 0.05, "not delivered before its time: at \(arrived) for \(at)")
            #expect(trackID == metadataTrack.trackID)
        }
    }

    @Test func aSeekFlushesAndDeliversTheGroupInEffect() async throws {
        let output = AVPlayerItemMetadataOutput(identifiers: nil)
        let (player, item, recorder) = try await Self.setUp(output)
        let starts = try await Self.starts(item)
        try await until("the output has read its track") {
            _ = await player.seek(to: Self.time(starts[1] + 0.4), toleranceBefore: .zero, toleranceAfter: .zero)
            return try await recorder.names().last == Self.titles[1]
        }
        // Before the first cue, nothing is in effect: only the flush.
        recorder.clear()
        _ = await player.seek(to: Self.time(starts[0] - 0.3), toleranceBefore: .zero, toleranceAfter: .zero)
        await until("the flush") { recorder.events.withLock { $0 } == [.flushed] }
        // After the last one, it is in effect (an ID3 tag lasts until the next).
        _ = await player.seek(to: Self.time(starts[2] + 0.45), toleranceBefore: .zero, toleranceAfter: .zero)
        try await until("the last cue, again in effect") { try await recorder.names() == [Self.titles[2]] }
        #expect(recorder.events.withLock { $0 }.filter { $0 == .flushed }.count == 2)
    }

    @Test func identifiersFilterTheItemsAndAdvanceComesEarly() async throws {
        let output = AVPlayerItemMetadataOutput(identifiers: [AVMetadataIdentifier.id3MetadataPrivate.rawValue])
        output.advanceIntervalForDelegateInvocation = 0.4
        #expect(output.advanceIntervalForDelegateInvocation == 0.4)
        let (player, item, recorder) = try await Self.setUp(output)
        let start = try await Self.starts(item)[2]
        await until("the output has read its track") {
            _ = await player.seek(to: Self.time(start + 0.3), toleranceBefore: .zero, toleranceAfter: .zero)
            return !recorder.groups.isEmpty
        }
        // (Each try seeks again, so the group in effect may have come more than once.)
        let names = try await recorder.names()
        #expect(!names.isEmpty && names.allSatisfy { $0 == "id3/PRIV" }, "only the PRIV item, in the one group that has one: \(names)")
        #expect(recorder.groups.allSatisfy { $0.items.count == 1 })
        // From half a second before it, the PRIV cue arrives 0.4 s before its time.
        recorder.clear()
        _ = await player.seek(to: Self.time(start - 0.5), toleranceBefore: .zero, toleranceAfter: .zero)
        await PlayerTests.play(player, on: try #require(player.sourceClock), until: "the PRIV cue delivered") { !recorder.groups.isEmpty }
        player.pause()
        let arrival = recorder.events.withLock { $0 }.compactMap { if case .group(_, let arrived, _) = $0 { return arrived } else { return nil } }
        #expect(arrival.count == 1 && arrival[0] < start, "delivered ahead: at \(arrival) for \(start)")
        output.advanceIntervalForDelegateInvocation = -1
        #expect(output.advanceIntervalForDelegateInvocation == 0)
    }

    /// A tag without the items asked for still ends the one before it: after the second cue (no TXXX),
    /// the first cue's TXXX is not in effect.
    @Test func aLaterTagWithoutTheItemsEndsTheGroupInEffect() async throws {
        let output = AVPlayerItemMetadataOutput(identifiers: [AVMetadataIdentifier.id3MetadataUserText.rawValue])
        let (player, item, recorder) = try await Self.setUp(output)
        let starts = try await Self.starts(item)
        await until("the output has read its track") {
            _ = await player.seek(to: Self.time(starts[0] + 0.3), toleranceBefore: .zero, toleranceAfter: .zero)
            return !recorder.groups.isEmpty
        }
        #expect(try await recorder.names() .allSatisfy { $0 == "intro" })
        recorder.clear()
        _ = await player.seek(to: Self.time(starts[1] + 0.3), toleranceBefore: .zero, toleranceAfter: .zero)
        await until("the flush") { recorder.events.withLock { $0 }.contains(.flushed) }
        recorder.clear()
        #expect(recorder.groups.isEmpty, "no TXXX in effect after the second tag")
    }

    /// A phone-style timed metadata track (Fixtures/timed-metadata.mov): the sample in effect after a
    /// seek (its time range holds the landing time), then the next as playing reaches it.
    @Test func boxedMetadataArrivesWithItsTimes() async throws {
        let facts = Fixtures.facts.boxedMetadata
        let output = AVPlayerItemMetadataOutput(identifiers: ["mdta/com.apple.quicktime.location.ISO6709"])
        let (player, _, recorder) = try await Self.setUp(output, file: facts.name)
        let places = facts.samples.map { sample -> String in if case .text(let text) = sample.values[0] { return text } else { return "" } }
        try await until("the output has read its track") {
            _ = await player.seek(to: Self.time((facts.samples[2].start + facts.samples[2].end) / 2), toleranceBefore: .zero, toleranceAfter: .zero)
            return try await recorder.names().last == places[2]
        }
        recorder.clear()
        await PlayerTests.play(player, on: try #require(player.sourceClock), until: "the last sample delivered") { !recorder.groups.isEmpty }
        player.pause()
        #expect(try await recorder.names() == [places[3]])
        let group = try #require(recorder.groups.first)
        #expect(abs(group.timeRange.start.seconds - facts.samples[3].start) < 0.001)
        #expect(abs(group.timeRange.duration.seconds - (facts.samples[3].end - facts.samples[3].start)) < 0.001)
        #expect(group.items.count == 1, "only the location, as asked")
    }

    /// The HLS master with alternative audio and subtitles (Fixtures/hls-renditions/) carries timed ID3
    /// in its video rendition: the output delivers it with the renditions chosen.
    @Test func aMasterPlaylistsTimedID3() async throws {
        let root = Fixtures.directory.appendingPathComponent(Fixtures.facts.hlsRenditions.directory)
        let server = try LoopbackHTTPServer(routes: LoopbackHTTPServer.routes(serving: root))
        let output = AVPlayerItemMetadataOutput(identifiers: nil)
        let (player, item, recorder) = try await Self.setUp(output, hls: server, playlist: "/master.m3u8")
        let video = try #require(try await item.asset.loadTracks(withMediaType: .video).first)
        let first = try await video.load(.timeRange).start.seconds
        let cue = try #require(Fixtures.facts.hlsRenditions.id3.last)
        try await until("the second tag delivered") {
            _ = await player.seek(to: Self.time(first + cue.time + 0.1), toleranceBefore: .zero, toleranceAfter: .zero)
            return try await recorder.names().last == cue.frames[0][1]
        }
        let group = try #require(recorder.groups.last)
        #expect(abs(group.timeRange.start.seconds - (first + cue.time)) < 0.002)
        #expect(group.items.map { $0.identifier?.rawValue } == cue.frames.map { "id3/\($0[0])" })
    }
}
