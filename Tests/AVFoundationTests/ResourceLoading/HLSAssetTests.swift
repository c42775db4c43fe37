import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// HTTP Live Streaming assets from a loopback server: media and master playlists load their duration
/// and tracks, every nested open goes through Avocet's own HTTP sources (so timeouts and cancellation
/// hold for segments), and a playlist cannot make Avocet open anything but http(s) URLs.
@Suite("HLS assets")
struct HLSAssetTests {
    static let hls = Fixtures.facts.hls
    static var quick: [String: Any] { [AvocetURLAssetHTTPConnectTimeoutKey: 1.0, AvocetURLAssetHTTPReadTimeoutKey: 1.0] }

    /// Every file of the HLS fixture under /hls/..., plus `extra` routes.
    func server(_ extra: [String: LoopbackHTTPServer.Route] = [:]) throws -> LoopbackHTTPServer {
        let root = Fixtures.directory.appendingPathComponent(Self.hls.directory)
        let routes = LoopbackHTTPServer.routes(serving: root, at: "/hls").merging(extra) { _, given in given }
        return try LoopbackHTTPServer(routes: routes)
    }

    func playlist(_ lines: [String]) -> LoopbackHTTPServer.Route {
        .data(Data((lines.joined(separator: "\n") + "\n").utf8), contentType: "application/vnd.apple.mpegurl")
    }

    /// As on Apple's platforms, a streaming playlist is not exported (its media files are).
    @Test func aPlaylistIsNotExported() async throws {
        let server = try server()
        let variant = try #require(Self.hls.variants.first)
        let asset = AVURLAsset(url: server.url("/hls/\(variant.name)/index.m3u8"))
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
        let output = try Fixtures.temporaryDirectory().appendingPathComponent("stream.mp4")
        session.outputURL = output
        session.outputFileType = .mp4
        await session.export()
        #expect(session.currentStatus == .failed && (session.currentError as? AVError)?.code == .operationNotSupportedForPreset)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// AVAssetReader over a playlist: every segment's pictures in order, at item times from zero
    /// (not the segments' MPEG-TS timestamps), and the sound decoded across segment boundaries.
    @Test func anAssetReaderReadsThePlaylist() async throws {
        let server = try server()
        let variant = try #require(Self.hls.variants.first)
        let asset = AVURLAsset(url: server.url("/hls/\(variant.name)/index.m3u8"))
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let audio = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let reader = try AVAssetReader(asset: asset)
        let pictures = AVAssetReaderTrackOutput(track: video, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        let sound = AVAssetReaderTrackOutput(track: audio, outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 16000,
                                                                             AVNumberOfChannelsKey: 1])
        reader.add(pictures)
        reader.add(sound)
        #expect(reader.startReading())
        var times: [Double] = []
        for try await buffer in pictures.sampleBuffers { times.append(buffer.presentationTimeStamp.seconds) }
        var frames = 0
        var first: CMTime?
        for try await buffer in sound.sampleBuffers {
            first = first ?? buffer.presentationTimeStamp
            frames += buffer.numSamples
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        let expected = Int((Self.hls.duration * Double(Self.hls.fps)).rounded())
        #expect(abs(times.count - expected) <= 1, "\(times.count) pictures, \(expected) expected")
        #expect((times.first ?? 1) < 0.05)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        #expect(abs(Double(frames) / 16000 - Self.hls.duration) < 0.1, "\(frames) frames of sound")
        #expect((first?.seconds ?? 1) < 0.1)
    }

    @Test func aMediaPlaylistLoadsItsDurationAndTracks() async throws {
        let server = try server()
        let variant = try #require(Self.hls.variants.first)
        let asset = AVURLAsset(url: server.url("/hls/\(variant.name)/index.m3u8"))
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        #expect(abs(duration.seconds - Self.hls.duration) < 0.05, "\(duration.seconds)")
        #expect(tracks.map(\.mediaType) == [.video, .audio])
        let video = try #require(tracks.first)
        #expect(try await video.load(.naturalSize) == CGSize(width: variant.width, height: variant.height))
        let range = try await video.load(.timeRange)
        #expect(range.start.seconds < 0.1, "a playlist's timeline starts at zero, not at the segments' timestamps")
        let audio = try #require(try await tracks[1].load(.formatDescriptions).first?.audioStreamBasicDescription)
        #expect(audio.mSampleRate == 44100)
        // Reading every packet goes through every segment.
        #expect(try await video.load(.totalSampleDataLength) > 0)
        #expect(server.requests.filter { $0.path.hasSuffix(".ts") }.count >= Int(Self.hls.duration) / Self.hls.segmentSeconds)
    }

    /// FFmpeg's HLS demuxer reads the first segment of every variant while it opens the master playlist
    /// (to learn what each holds); after that, only the chosen variant's segments are fetched.
    @Test func aMasterPlaylistShowsTheBestVariantAndFetchesNoOtherSegments() async throws {
        let server = try server()
        let best = try #require(Self.hls.variants.max { $0.bandwidth < $1.bandwidth })
        let asset = AVURLAsset(url: server.url("/hls/master.m3u8"))
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        #expect(abs(duration.seconds - Self.hls.duration) < 0.05)
        #expect(tracks.map(\.mediaType) == [.video, .audio], "one variant's tracks, not every variant's")
        #expect(try await tracks[0].load(.naturalSize) == CGSize(width: best.width, height: best.height))
        _ = try await tracks[0].load(.totalSampleDataLength)
        let others = Self.hls.variants.filter { $0.name != best.name }.map { "/hls/\($0.name)/segment" }
        let fetched = server.requests.map(\.path).filter { path in others.contains { path.hasPrefix($0) } }
        #expect(fetched.allSatisfy { $0.hasSuffix("/segment0.ts") }, "beyond their first segment, other variants are never fetched: \(fetched)")
        #expect(server.requests.contains { $0.path == "/hls/\(best.name)/segment\(Int(Self.hls.duration) - 1).ts" },
                "the chosen variant is read to its end")
    }

    /// A master playlist's variants, in its order: the bandwidth it states, and what FFmpeg read of each
    /// variant's first segment (codecs, picture size and rate, channels). Other assets have none.
    @Test func aMasterPlaylistListsItsVariants() async throws {
        let server = try server()
        let asset = AVURLAsset(url: server.url("/hls/master.m3u8"))
        let variants = try await asset.load(.variants)
        #expect(variants.map(\.peakBitRate) == Self.hls.variants.map { Double($0.bandwidth) })
        #expect(variants.map { $0.videoAttributes?.presentationSize } == Self.hls.variants.map { CGSize(width: $0.width, height: $0.height) })
        for variant in variants {
            let video = try #require(variant.videoAttributes)
            #expect(video.codecTypes == [kCMVideoCodecType_H264] && video.videoRange == .sdr, "CODECS avc1.42c00d, no VIDEO-RANGE")
            #expect(try #require(variant.audioAttributes).formatIDs == [kAudioFormatMPEG4AAC], "CODECS mp4a.40.2")
            #expect(variant.averageBitRate == nil, "the playlist states no AVERAGE-BANDWIDTH")
        }
        // The playlist states no FRAME-RATE: the variant shown (the best) was analysed, the other not.
        #expect(variants.map { $0.videoAttributes?.nominalFrameRate } == [Double(Self.hls.fps), nil])
        let audible = try #require(try await asset.loadMediaSelectionGroup(for: .audible))
        #expect(variants[0].audioAttributes?.renditionSpecificAttributes(for: audible.options[0])?.channelCount == Self.hls.audio.channels)
        #expect(variants[1].audioAttributes?.renditionSpecificAttributes(for: audible.options[0])?.channelCount == nil)


        let media = AVURLAsset(url: server.url("/hls/\(try #require(Self.hls.variants.first).name)/index.m3u8"))
        #expect(try await media.load(.variants).isEmpty, "a media playlist has no variants")
        #expect(try await AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))).load(.variants).isEmpty)
    }

    /// The attributes a playlist states are the variants' (as Apple's, which reads the playlist), even
    /// where the segments say otherwise; what it leaves out stays unknown for a variant not shown.
    @Test func aVariantsAttributesAreThePlaylists() async throws {
        let server = try server(["/hls/written.m3u8": playlist([
            "#EXTM3U",
            "#EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=700000,RESOLUTION=640x360,FRAME-RATE=29.970,"
                + "CODECS=\"hvc1.2.4.L93.B0,ec-3\",VIDEO-RANGE=PQ",
            "high/index.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=150000,CODECS=\"mp4a.40.5\"",
            "low/index.m3u8",
        ])])
        let variants = try await AVURLAsset(url: server.url("/hls/written.m3u8")).load(.variants)
        #expect(variants.count == 2)
        let first = try #require(variants.first)
        #expect(first.peakBitRate == 900_000 && first.averageBitRate == 700_000)
        let video = try #require(first.videoAttributes)
        #expect(video.presentationSize == CGSize(width: 640, height: 360) && video.nominalFrameRate == 29.97)
        #expect(video.codecTypes == [kCMVideoCodecType_HEVC] && video.videoRange == .pq)
        #expect(first.audioAttributes?.formatIDs == [kAudioFormatEnhancedAC3])
        #expect(variants[1].videoAttributes == nil, "its CODECS name no video")
        #expect(variants[1].audioAttributes?.formatIDs == [kAudioFormatMPEG4AAC_HE])
    }

    /// Segments given as byte ranges of one file read those bytes (FFmpeg passes the range to the opener).
    @Test func byteRangeSegmentsReadTheirRanges() async throws {
        let server = try server()
        let variant = try #require(Self.hls.variants.first)
        let single = AVURLAsset(url: server.url("/hls/\(Self.hls.singleFile)/index.m3u8"))
        let segmented = AVURLAsset(url: server.url("/hls/\(variant.name)/index.m3u8"))
        let (duration, tracks) = try await single.load(.duration, .tracks)
        let (segmentedDuration, segmentedTracks) = try await segmented.load(.duration, .tracks)
        #expect(abs(duration.seconds - segmentedDuration.seconds) < 0.05)
        #expect(tracks.map(\.mediaType) == segmentedTracks.map(\.mediaType))
        let bytes = try await tracks[0].load(.totalSampleDataLength)
        // Read from the file's start instead of their own ranges, segments would repeat the first one.
        #expect(bytes == (try await segmentedTracks[0].load(.totalSampleDataLength)), "the same video, range by range")
    }

    @Test func aPlaylistNamingALocalFileOpensNothingButHTTP() async throws {
        let secret = Fixtures.path("av.mp4")
        let server = try server(["/evil.m3u8": playlist([
            "#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:1.0,", "file://\(secret)", "#EXT-X-ENDLIST",
        ])])
        do {
            let tracks = try await AVURLAsset(url: server.url("/evil.m3u8"), options: Self.quick).load(.tracks)
            Issue.record("a playlist of a local file must not load: \(tracks.count) tracks")
        } catch let error as AVError {
            #expect(!error.localizedDescription.contains(secret), "the message never repeats what the playlist names")
        }
    }

    /// A master playlist naming many variants cannot make Avocet hold a cache open for each: at most
    /// `FormatContext.maxNestedOpen` resources are open at once, and the load ends either way.
    @Test func aMasterPlaylistOfManyVariantsIsBounded() async throws {
        var lines = ["#EXTM3U"]
        for i in 0..<40 {
            lines += ["#EXT-X-STREAM-INF:BANDWIDTH=\(100_000 + i)", "/hls/high/index.m3u8?variant=\(i)"]
        }
        let server = try server(["/many.m3u8": playlist(lines)])
        do {
            _ = try await AVURLAsset(url: server.url("/many.m3u8"), options: Self.quick).load(.tracks)
        } catch {
            #expect(error is AVError, "\(error)")
        }
        let firstSegments = server.requests.filter { $0.path == "/hls/high/segment0.ts" }.count
        #expect(firstSegments <= 8, "\(firstSegments) segments opened")
    }

    @Test func aPlaylistDisguisedAsAMovieIsNotFollowed() async throws {
        let server = try server(["/movie.mp4": playlist(["#EXTM3U", "#EXTINF:1.0,", "/hls/high/segment0.ts", "#EXT-X-ENDLIST"])])
        do {
            _ = try await AVURLAsset(url: server.url("/movie.mp4")).load(.duration)
            Issue.record("a playlist named .mp4 must not load")
        } catch let error as AVError {
            #expect(error.code == .fileFormatNotRecognized)
        }
        #expect(server.requests.map(\.path).allSatisfy { $0 == "/movie.mp4" }, "nothing it names is fetched")
    }

    @Test func aSegmentThatNeverAnswersTimesOut() async throws {
        let server = try server(["/stuck.m3u8": playlist([
            "#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:1.0,", "/hang.ts", "#EXT-X-ENDLIST",
        ]), "/hang.ts": .hang])
        let start = ContinuousClock.now
        await #expect(throws: AVError.self) { try await AVURLAsset(url: server.url("/stuck.m3u8"), options: Self.quick).load(.tracks) }
        // A 1 s read timeout against the default 30 s: 14 s leaves a loaded machine room (8.1 s was seen
        // in CI's stress run beside two busy processes) and still tells the two apart.
        #expect(ContinuousClock.now - start < TestTiming.bound(14), "the segment's timeout holds: \(ContinuousClock.now - start)")
    }

    @Test func cancellingALoadBlockedOnASegmentEndsItAtOnce() async throws {
        let server = try server(["/stuck.m3u8": playlist([
            "#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:1.0,", "/hang.ts", "#EXT-X-ENDLIST",
        ]), "/hang.ts": .hang])
        let asset = AVURLAsset(url: server.url("/stuck.m3u8"))
        let load = Task { try await asset.load(.tracks) }
        await until("the request for the hung segment") { server.requests.contains { $0.path == "/hang.ts" } }
        let start = ContinuousClock.now
        asset.cancelLoading()
        await #expect(throws: (any Error).self) { try await load.value }
        #expect(ContinuousClock.now - start < TestTiming.bound(10), "at once, not when the 30 s read timeout gives up")
    }
}
