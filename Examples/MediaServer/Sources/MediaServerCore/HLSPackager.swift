import AVFoundation
import Foundation
import Synchronization
import UniformTypeIdentifiers

/// Packages a source for HTTP Live Streaming: one rendition per height asked, each its own
/// directory of CMAF segments (`init.mp4`, `segment1.m4s`, ...) and media playlist (`index.m3u8`),
/// and a multivariant playlist (`index.m3u8`) naming them with their bandwidth and resolution.
///
/// Each rendition decodes the source's first video track (`AVAssetReaderTrackOutput`, 4:2:0) and
/// first audio track (Float32 PCM) and encodes H.264 at the rendition's height and AAC through
/// `AVAssetWriter`'s segment output (`outputFileTypeProfile = .mpeg4CMAFCompliant`, a keyframe at
/// every segment's start); its delegate writes each segment to disk as it comes, so memory holds at
/// most the segment being made, never the output. Renditions are made one after another (one
/// decode and one encode at a time per job). The samples are pumped on a dispatch queue per writer
/// input, as Apple's `requestMediaDataWhenReady(on:using:)` pattern has it; Avocet decodes and
/// encodes on its engine threads. `run` only awaits.
///
/// `cancel()` (or cancelling the task that runs it) cancels the reader and the writer at once; the
/// partial directory is removed whenever `run` throws.
final class HLSPackager: JobWork {
    private struct Progress {
        var fraction = 0.0
        var cancelled = false
        var reader: AVAssetReader?
        var writer: AVAssetWriter?
        var pumps: PumpsDone?
    }

    let asset: AVURLAsset
    let request: HLSRequest
    private let state = Mutex(Progress())

    init(asset: AVURLAsset, request: HLSRequest) {
        self.asset = asset
        self.request = request
    }

    var preset: String { request.presetName }
    var fileType: String { "hls" }
    var progress: Double { state.withLock { $0.fraction } }

    func cancel() {
        let (reader, writer, pumps) = state.withLock { state -> (AVAssetReader?, AVAssetWriter?, PumpsDone?) in
            state.cancelled = true
            return (state.reader, state.writer, state.pumps)
        }
        reader?.cancelReading()
        writer?.cancelWriting()
        pumps?.endAll()
    }

    func run(to url: URL) async throws {
        do {
            try await withTaskCancellationHandler {
                try await package(into: url)
            } onCancel: {
                cancel()
            }
        } catch {
            try? FileManager.default.removeItem(at: url)
            if state.withLock({ $0.cancelled }) { throw CancellationError() }
            throw error
        }
    }

    /// One rendition as the multivariant playlist names it.
    private struct Variant {
        var directory: String
        var peakBitsPerSecond: Int
        var averageBitsPerSecond: Int
        var size: CGSize?
    }

    private func package(into url: URL) async throws {
        let video = try await asset.loadTracks(withMediaType: .video).first
        let audio = try await asset.loadTracks(withMediaType: .audio).first
        let duration = try await asset.load(.duration)
        guard video != nil || audio != nil else {
            throw APIError.unprocessable("The source has no video or audio to package.")
        }
        let natural = try await video?.load(.naturalSize)
        let heights: [Int?] = natural.map { natural in
            request.renditionHeights(sourceHeight: max(2, Int(natural.height))).map { Optional($0) }
        } ?? [nil]
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        var variants: [Variant] = []
        for (index, height) in heights.enumerated() {
            try checkCancelled()
            var size: CGSize?
            if let natural, let height, natural.height > 0 {
                let width = (Int((natural.width * CGFloat(height) / natural.height).rounded()) + 1) & ~1
                size = CGSize(width: max(2, width), height: height)
            }
            let name = height.map { "\($0)p" } ?? "audio"
            let directory = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let variant = try await rendition(video: video, audio: audio, size: size, duration: duration, into: directory,
                                              progress: (Double(index), Double(heights.count)))
            variants.append(Variant(directory: name, peakBitsPerSecond: variant.peak, averageBitsPerSecond: variant.average, size: size))
        }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for variant in variants {
            var attributes = "BANDWIDTH=\(max(1, variant.peakBitsPerSecond)),AVERAGE-BANDWIDTH=\(max(1, variant.averageBitsPerSecond))"
            if let size = variant.size { attributes += ",RESOLUTION=\(Int(size.width))x\(Int(size.height))" }
            lines.append("#EXT-X-STREAM-INF:\(attributes)")
            lines.append("\(variant.directory)/index.m3u8")
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url.appendingPathComponent("index.m3u8"), options: .atomic)
        state.withLock { $0.fraction = 1 }
    }

    private func checkCancelled() throws {
        if state.withLock({ $0.cancelled }) { throw CancellationError() }
        try Task.checkCancellation()
    }

    /// Encodes one rendition into `directory`: its segments and media playlist; its peak and average
    /// bits a second.
    private func rendition(video: AVAssetTrack?, audio: AVAssetTrack?, size: CGSize?, duration: CMTime, into directory: URL,
                           progress: (done: Double, of: Double)) async throws -> (peak: Int, average: Int) {
        let reader = try AVAssetReader(asset: asset)
        let segments = SegmentFiles(directory: directory)
        let writer = AVAssetWriter(contentType: .mpeg4Movie)
        writer.delegate = segments
        writer.outputFileTypeProfile = .mpeg4CMAFCompliant
        writer.preferredOutputSegmentInterval = CMTime(seconds: request.segmentSeconds, preferredTimescale: 1000)
        writer.initialSegmentStartTime = .zero
        var pairs: [SamplePump] = []
        if let video, let size {
            let decoded = AVAssetReaderTrackOutput(track: video, outputSettings: [
                kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
            ])
            let encoded = AVAssetWriterInput(mediaType: .video, outputSettings: [
                AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: Int(size.width), AVVideoHeightKey: Int(size.height),
                AVVideoCompressionPropertiesKey: [AVVideoMaxKeyFrameIntervalDurationKey: request.segmentSeconds],
            ])
            encoded.transform = try await video.load(.preferredTransform)
            pairs.append(SamplePump(output: decoded, input: encoded, reportsProgress: true))
        }
        if let audio {
            let formats = try await audio.load(.formatDescriptions)
            let rate = formats.first?.audioStreamBasicDescription?.mSampleRate ?? 48_000
            let aacRate = [44_100.0, 48_000.0].contains(rate) ? rate : 48_000
            let decoded = AVAssetReaderTrackOutput(track: audio, outputSettings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: aacRate, AVNumberOfChannelsKey: 2,
                AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
            ])
            let encoded = AVAssetWriterInput(mediaType: .audio, outputSettings: [
                AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: aacRate, AVNumberOfChannelsKey: 2, AVEncoderBitRateKey: 128_000,
            ])
            pairs.append(SamplePump(output: decoded, input: encoded, reportsProgress: video == nil))
        }
        for pair in pairs {
            reader.add(pair.output)
            writer.add(pair.input)
        }
        let cancelled = state.withLock { state -> Bool in
            state.reader = reader
            state.writer = writer
            return state.cancelled
        }
        defer { state.withLock { $0.reader = nil; $0.writer = nil; $0.pumps = nil } }
        try checkCancelled()
        guard !cancelled, reader.startReading() else { throw reader.error ?? CancellationError() }
        guard writer.startWriting() else { throw writer.error ?? CancellationError() }
        writer.startSession(atSourceTime: .zero)

        let total = duration.isNumeric && duration.seconds > 0 ? duration.seconds : 0
        // The pumps end when every input has run dry; and at once when the work is cancelled or the
        // writer stops (it then never asks for more, so a pump waiting for it would wait forever).
        let pumps = PumpsDone(count: pairs.count)
        state.withLock { $0.pumps = pumps }
        let watchdog = Task {
            while !Task.isCancelled, writer.status == .writing, reader.status != .failed {
                try? await Task.sleep(for: .milliseconds(100))
            }
            pumps.endAll()
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            pumps.wait(done)
            for (index, pair) in pairs.enumerated() {
                pair.input.requestMediaDataWhenReady(on: DispatchQueue(label: "media-server.hls.\(index)")) { [self] in
                    func end() {
                        pair.input.markAsFinished()
                        pumps.endOne()
                    }
                    while pair.input.isReadyForMoreMediaData {
                        guard !state.withLock({ $0.cancelled }), let sample = pair.output.copyNextSampleBuffer() else { return end() }
                        if pair.reportsProgress, total > 0 {
                            let fraction = (progress.done + min(1, max(0, sample.presentationTimeStamp.seconds / total))) / progress.of
                            state.withLock { $0.fraction = max($0.fraction, min(fraction, 0.99)) }
                        }
                        if !pair.input.append(sample) { return end() }
                    }
                }
            }
        }
        watchdog.cancel()
        try checkCancelled()
        await writer.finishWriting()
        if let failure = segments.failure { throw failure }
        guard writer.status == .completed else { throw writer.error ?? reader.error ?? CancellationError() }
        if reader.status == .failed { throw reader.error ?? CancellationError() }
        return try segments.writePlaylist(target: request.segmentSeconds)
    }
}

/// The end of a rendition's pumps: resumes the waiting continuation once, when every pump has ended
/// (`endOne`) or at once (`endAll`: cancelled, or the writer stopped), whichever comes first.
private final class PumpsDone: Sendable {
    private struct State {
        var left: Int
        var continuation: CheckedContinuation<Void, Never>?
        var ended = false
    }
    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(left: count))
    }

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        let now = state.withLock { state -> Bool in
            if state.ended || state.left <= 0 {
                state.ended = true
                return true
            }
            state.continuation = continuation
            return false
        }
        if now { continuation.resume() }
    }

    func endOne() {
        finish { $0.left -= 1; return $0.left <= 0 }
    }

    func endAll() {
        finish { _ in true }
    }

    private func finish(_ ends: (inout State) -> Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.ended, ends(&state) else { return nil }
            state.ended = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}

/// A reader output and the writer input it feeds, used only on the input's dispatch queue.
private struct SamplePump: @unchecked Sendable {
    // @unchecked Sendable: handed once to the input's queue, which alone uses them from then on.
    let output: AVAssetReaderTrackOutput
    let input: AVAssetWriterInput
    /// Whether its sample times measure the job's progress (the video's, else the audio's).
    let reportsProgress: Bool
}
