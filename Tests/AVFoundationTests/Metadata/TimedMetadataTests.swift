import AVFoundation
import FixtureSupport
import Foundation
import Synchronization
import Testing

/// Timed ID3 metadata (Fixtures/timed-id3.ts and hls-id3/, facts.json's `timed_metadata`): a metadata
/// track whose samples read back as the cues' groups, through a track output and the metadata adaptor.
@Suite("Timed metadata")
struct TimedMetadataTests {
    static let facts = Fixtures.facts.timedMetadata

    /// The values a cue's frames give, as the items of its group should carry them: identifier, info
    /// (TXXX's description, PRIV's owner) and value (text, or PRIV's bytes as hex).
    static func expected(_ cue: FixtureFacts.TimedMetadata.Cue) -> [[String]] {
        cue.frames.map { frame in
            switch frame[0] {
            case "TXXX", "PRIV": return ["id3/\(frame[0])", frame[1], frame[2]]
            default: return ["id3/\(frame[0])", "", frame[1]]
            }
        }
    }

    static func described(_ group: AVTimedMetadataGroup) async throws -> [[String]] {
        var described: [[String]] = []
        for item in group.items {
            let info = try await item.load(.extraAttributes)?[.info] as? String ?? ""
            let bytes = try await item.load(.dataValue).map { $0.map { String(format: "%02x", $0) }.joined() }
            let value = try await item.load(.stringValue)
            described.append([item.identifier?.rawValue ?? "?", info, bytes ?? value ?? "?"])
        }
        return described
    }

    /// The first answer given to a waiting continuation: the reading thread's groups, or nil from the
    /// deadline, whichever comes first; a later answer is dropped. An answer given before the wait
    /// starts is kept for it.
    final class FirstAnswer<Value: Sendable>: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<Value?, Never>)
            case answered(Value?)
            case done
        }

        private let state = Mutex(State.idle)

        func wait() async -> Value? {
            await withCheckedContinuation { continuation in
                let early: Value?? = state.withLock { state in
                    guard case .answered(let value) = state else {
                        state = .waiting(continuation)
                        return nil
                    }
                    state = .done
                    return .some(value)
                }
                if let early { continuation.resume(returning: early) }
            }
        }

        func answer(_ value: Value?) {
            let waiting: CheckedContinuation<Value?, Never>? = state.withLock { state in
                switch state {
                case .idle:
                    state = .answered(value)
                    return nil
                case .waiting(let continuation):
                    state = .done
                    return continuation
                case .answered, .done:
                    return nil
                }
            }
            waiting?.resume(returning: value)
        }
    }

    /// The groups of the asset's metadata track, read through a metadata adaptor on a thread of its own.
    /// A reading that takes longer than a minute (times `TestTiming.scale`) is cancelled and recorded
    /// as an issue, so a hung adaptor fails the test instead of hanging the suite.
    static func groups(of asset: AVAsset) async throws -> (track: AVAssetTrack, groups: [AVTimedMetadataGroup], videoStart: CMTime) {
        let metadata = try #require(try await asset.loadTracks(withMediaType: .metadata).first)
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: metadata, outputSettings: nil)
        let pictures = AVAssetReaderTrackOutput(track: video, outputSettings: nil)
        reader.add(output)
        reader.add(pictures)
        #expect(reader.startReading())
        let adaptor = AVAssetReaderOutputMetadataAdaptor(assetReaderTrackOutput: output)
        let answer = FirstAnswer<([AVTimedMetadataGroup], CMTime)>()
        let deadline = TestTiming.seconds(60)
        let timer = Task {
            try await Task.sleep(for: deadline)
            answer.answer(nil)
        }
        Thread.detachNewThread {
            let first = pictures.copyNextSampleBuffer()?.presentationTimeStamp ?? .invalid
            var groups: [AVTimedMetadataGroup] = []
            while let group = adaptor.nextTimedMetadataGroup() { groups.append(group) }
            answer.answer((groups, first))
        }
        let result = await answer.wait()
        timer.cancel()
        // Past the deadline: cancel the reading (the thread may still end), and record the issue.
        if result == nil { reader.cancelReading() }
        let found = try #require(result, "the metadata adaptor ends its groups within \(deadline)")
        #expect(reader.status == .reading, "the pictures are still to be read")
        reader.cancelReading()
        return (metadata, found.0, found.1)
    }

    /// An MPEG-TS file's timeline starts where its earliest stream does (ffmpeg starts the clock at
    /// 1.4 s), as an HLS stream's does: the duration ends at its last sample.
    @Test func anMPEGTSFileCountsFromItsStart() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(Self.facts.name)))
        let duration = try await asset.load(.duration).seconds
        #expect(abs(duration - Self.facts.duration) < 0.05, "\(duration)")
        var starts: [Double] = [], ends: [Double] = []
        for track in try await asset.load(.tracks) {
            let range = try await track.load(.timeRange)
            starts.append(range.start.seconds)
            ends.append(range.end.seconds)
        }
        #expect(starts.min() == 0 && starts.allSatisfy { $0 < 0.6 }, "\(starts)")
        #expect(ends.allSatisfy { $0 <= duration + 0.001 }, "every track ends within the duration: \(ends)")
    }

    @Test(arguments: ["file", "hls"])
    func id3CuesReadBackAsGroups(_ kind: String) async throws {
        let server = try LoopbackHTTPServer(routes: LoopbackHTTPServer.routes(serving: Fixtures.directory.appendingPathComponent(Self.facts.hlsDirectory)))
        let asset = AVURLAsset(url: kind == "file" ? URL(fileURLWithPath: Fixtures.path(Self.facts.name)) : server.url("/index.m3u8"))
        let (track, groups, videoStart) = try await Self.groups(of: asset)
        let format = try #require(try await track.load(.formatDescriptions).first)
        #expect(format.mediaType == .metadata && format.mediaSubType.rawValue == kCMMetadataFormatType_ID3)
        #expect(groups.count == Self.facts.cues.count)
        for (group, cue) in zip(groups, Self.facts.cues) {
            #expect(try await Self.described(group) == Self.expected(cue))
            let offset = (group.timeRange.start - videoStart).seconds
            #expect(abs(offset - cue.time) < 0.001, "\(group.timeRange.start.seconds) is \(cue.time) s after the first picture")
            #expect(group.timeRange.duration == .indefinite, "an ID3 cue lasts until the next one")
            #expect(group.items.allSatisfy { $0.keySpace == .id3 && $0.time == group.timeRange.start })
        }
        #expect(groups.first?.items.first?.commonKey == .commonKeyTitle, "TIT2 is the title")
    }

    /// A QuickTime timed metadata track (Fixtures/timed-metadata.mov, facts.json's `boxed_metadata`):
    /// its samples read back as groups of the keys' items, typed by the key table, over the samples'
    /// times; the key table reaches the track's format description.
    @Test func boxedMetadataReadsBackByItsKeyTable() async throws {
        let facts = Fixtures.facts.boxedMetadata
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(facts.name)))
        let (track, groups, _) = try await Self.groups(of: asset)
        let format = try #require(try await track.load(.formatDescriptions).first)
        #expect(format.mediaSubType.rawValue == kCMMetadataFormatType_Boxed)
        #expect(groups.count == facts.samples.count)
        for (group, sample) in zip(groups, facts.samples) {
            #expect(abs(group.timeRange.start.seconds - sample.start) < 0.001 && abs(group.timeRange.end.seconds - sample.end) < 0.001,
                    "\(group.timeRange.start.seconds)-\(group.timeRange.end.seconds)")
            #expect(group.items.map { $0.identifier?.rawValue } == facts.keys.map { "\($0.namespace)/\($0.key)" })
            for (item, (value, key)) in zip(group.items, zip(sample.values, facts.keys)) {
                #expect(item.keySpace == AVMetadataKeySpace(rawValue: key.namespace))
                switch value {
                case .text(let text):
                    #expect(try await item.load(.stringValue) == text)
                    #expect(item.dataType == "com.apple.metadata.datatype.UTF-8")
                case .number(let number):
                    #expect(try await item.load(.numberValue)?.doubleValue == number)
                    #expect(item.dataType == "com.apple.metadata.datatype.float32")
                }
            }
        }
        #expect(groups.first?.items.first?.commonKey == .commonKeyLocation, "the ISO 6709 location is the common location")
    }
}
