import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing
import UniformTypeIdentifiers

/// AVAssetWriter's segment output, as Apple code packages HLS: an initialization segment and media
/// segments handed to the delegate with their reports, written out with a playlist, then played back
/// through Avocet's own HLS reading (over a loopback server) and checked with ffprobe.
@Suite("Asset writer segments", .serialized)
struct SegmentWriterTests {
    final class Collector: NSObject, AVAssetWriterDelegate, @unchecked Sendable {
        let segments = Locked<[(data: Data, type: AVAssetSegmentType, report: AVAssetSegmentReport?)]>([])

        func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                         segmentReport: AVAssetSegmentReport?) {
            let entry = UncheckedSendable((segmentData, segmentType, segmentReport))
            segments.withLock { $0.append(entry.value) }
        }
    }

    /// Three seconds of pictures (30 a second) and a tone, as HLS segments of one second.
    static func package(profile: AVFileTypeProfile, interval: CMTime) async throws -> (AVAssetWriter, Collector) {
        let writer = AVAssetWriter(contentType: try #require(UTType(AVFileType.mp4.rawValue)))
        let collector = Collector()
        writer.delegate = collector
        writer.outputFileTypeProfile = profile
        writer.preferredOutputSegmentInterval = interval
        writer.initialSegmentStartTime = .zero
        let video = AVAssetWriterInput(mediaType: .video, outputSettings: AssetWriterTests.h264)
        let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                           AVNumberOfChannelsKey: 2])
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: video, sourcePixelBufferAttributes: AssetWriterTests.bgra)
        writer.add(video)
        writer.add(audio)
        try #require(writer.startWriting(), "\(String(describing: writer.error))")
        writer.startSession(atSourceTime: .zero)
        let pool = try #require(adaptor.pixelBufferPool)
        let tone = try AssetWriterTests.toneBuffers()
        for second in 0..<3 {
            for n in 0..<30 {
                await until("the video input is ready") { video.isReadyForMoreMediaData || writer.status != .writing }
                var made: CVPixelBuffer?
                CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
                let buffer = try #require(made)
                AssetWriterTests.paint(buffer, red: UInt8(80 * second), green: 100, blue: 50, level: UInt8(8 * n))
                #expect(adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(second * 30 + n), timescale: 30)))
            }
            for buffer in tone {
                await until("the audio input is ready") { audio.isReadyForMoreMediaData || writer.status != .writing }
                let moved = try CMSampleBuffer(copying: buffer, withNewTiming: [CMSampleTimingInfo(
                    duration: CMTime(value: 1, timescale: 44100),
                    presentationTimeStamp: buffer.presentationTimeStamp + CMTime(value: Int64(second), timescale: 1), decodeTimeStamp: .invalid)])
                #expect(audio.append(moved))
            }
        }
        video.markAsFinished()
        audio.markAsFinished()
        await writer.finishWriting()
        return (writer, collector)
    }

    @Test("HLS segments: an initialization segment, then one a second starting with a keyframe, reported")
    func segmentsAndReports() async throws {
        let (writer, collector) = try await Self.package(profile: .mpeg4AppleHLS, interval: CMTime(value: 1, timescale: 1))
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let segments = collector.segments.withLock { $0 }
        try #require(segments.count == 4, "\(segments.map(\.type))")
        #expect(segments[0].type == .initialization)
        #expect(String(decoding: segments[0].data[4..<8], as: UTF8.self) == "ftyp")
        for (n, segment) in segments.dropFirst().enumerated() {
            #expect(segment.type == .separable)
            #expect(String(decoding: segment.data[4..<8], as: UTF8.self) == "moof")
            let report = try #require(segment.report)
            let video = try #require(report.trackReports.first { $0.mediaType == .video })
            #expect(abs(video.earliestPresentationTimeStamp.seconds - Double(n)) < 0.01, "segment \(n): \(video.earliestPresentationTimeStamp.seconds)")
            #expect(abs(video.duration.seconds - 1) < 0.05, "segment \(n): \(video.duration.seconds)")
            let first = try #require(video.firstVideoSampleInformation)
            #expect(first.isSyncSample)
            #expect(first.offset > 8 && first.offset + first.length <= segment.data.count)
            #expect(report.trackReports.contains { $0.mediaType == .audio })
        }
    }

    @Test("the segments and a playlist play back through Avocet's HLS reading and ffprobe")
    func playsBack() async throws {
        let (writer, collector) = try await Self.package(profile: .mpeg4CMAFCompliant, interval: CMTime(value: 1, timescale: 1))
        #expect(writer.status == .completed)
        let segments = collector.segments.withLock { $0 }
        let directory = try Fixtures.temporaryDirectory()
        var playlist = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MAP:URI=\"init.mp4\""]
        var routes: [String: LoopbackHTTPServer.Route] = [:]
        for (n, segment) in segments.enumerated() {
            let name = n == 0 ? "init.mp4" : "segment\(n).m4s"
            try segment.data.write(to: directory.appendingPathComponent(name))
            routes["/hls/\(name)"] = .data(segment.data, contentType: n == 0 ? "video/mp4" : "video/iso.segment")
            if n > 0 {
                let duration = segment.report?.trackReports.first { $0.mediaType == .video }?.duration.seconds ?? 1
                playlist += [String(format: "#EXTINF:%.3f,", duration), name]
            }
        }
        playlist.append("#EXT-X-ENDLIST")
        let text = Data((playlist.joined(separator: "\n") + "\n").utf8)
        try text.write(to: directory.appendingPathComponent("index.m3u8"))
        routes["/hls/index.m3u8"] = .data(text, contentType: "application/vnd.apple.mpegurl")

        let probe = try await onOwnThread {
            try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/ffprobe"),
                                         ["-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "csv=p=0",
                                          directory.appendingPathComponent("index.m3u8").path])
        }
        #expect(probe.stdout.contains("h264") && probe.stdout.contains("aac"), "\(probe.stdout) \(probe.stderr)")

        let server = try LoopbackHTTPServer(routes: routes)
        defer { server.stop() }
        let asset = AVURLAsset(url: server.url("/hls/index.m3u8"))
        let duration = try await asset.load(.duration)
        #expect(abs(duration.seconds - 3) < 0.1, "\(duration.seconds)")
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: AssetWriterTests.bgra)
        reader.add(output)
        #expect(reader.startReading())
        var count = 0
        for try await _ in output.sampleBuffers { count += 1 }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(count == 90)
    }

    @Test("flushSegment cuts where the caller says, and only with an indefinite interval")
    func manualFlush() async throws {
        let writer = AVAssetWriter(contentType: try #require(UTType(AVFileType.mp4.rawValue)))
        let collector = Collector()
        writer.delegate = collector
        writer.preferredOutputSegmentInterval = .indefinite
        let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                           AVNumberOfChannelsKey: 2])
        writer.add(audio)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for (i, buffer) in try AssetWriterTests.toneBuffers().enumerated() {
            await until("ready") { audio.isReadyForMoreMediaData }
            #expect(audio.append(buffer))
            if i == 20 { writer.flushSegment() }
        }
        audio.markAsFinished()
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(collector.segments.withLock { $0.map(\.type) } == [.initialization, .separable, .separable])

        let timed = AVAssetWriter(contentType: try #require(UTType(AVFileType.mp4.rawValue)))
        timed.delegate = collector
        timed.preferredOutputSegmentInterval = CMTime(value: 1, timescale: 1)
        timed.initialSegmentStartTime = .zero
        timed.add(AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                          AVNumberOfChannelsKey: 2]))
        #expect(timed.startWriting())
        timed.flushSegment()
        #expect(timed.status == .failed && (timed.error as? AVError)?.code == .operationNotAllowed)

        let nobody = AVAssetWriter(contentType: try #require(UTType(AVFileType.mp4.rawValue)))
        nobody.add(AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                           AVNumberOfChannelsKey: 2]))
        #expect(!nobody.startWriting())
    }
}
