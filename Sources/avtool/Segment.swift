import ArgumentParser
import AVFoundation
import Foundation
import Locking
import UniformTypeIdentifiers

struct Segment: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Package a movie for HTTP Live Streaming: CMAF segments and a playlist, through AVAssetWriter.",
        discussion: """
            The first video track is decoded (AVAssetReader) and encoded as H.264, the first audio \
            track as AAC, into fragmented MPEG-4 segments of about --interval seconds, each starting \
            with a keyframe, handed out by AVAssetWriter's segment output. DIR receives init.mp4, \
            segment1.m4s, segment2.m4s, ... and index.m3u8, which players (and avtool inspect over \
            http) read. A progress line shows on a terminal; --json prints a summary.
            """)

    @Argument(help: "A media file, or an http or https URL.")
    var file: String

    @Option(name: .shortAndLong, help: "The directory to write the playlist and segments into (made if missing).")
    var output: String

    @Option(help: "Seconds a segment lasts (0.5 to 60).")
    var interval = 6.0

    @Option(help: "Encode the pictures at WxH (both sides, even) instead of the source size.")
    var size: String?

    @Option(name: .customLong("bit-rate"), help: "Video bits a second (default: the encoder's quality-based rate).")
    var bitRate: Int?

    @Flag(help: "Print a JSON summary.")
    var json = false

    func validate() throws {
        guard interval >= 0.5, interval <= 60 else { throw ValidationError("--interval must be from 0.5 to 60 seconds") }
        if let size {
            guard let parsed = ImageOutput.size(size), parsed.width >= 2, parsed.height >= 2,
                  Int(parsed.width) % 2 == 0, Int(parsed.height) % 2 == 0 else {
                throw ValidationError("--size must be WxH with even sides, such as 1280x720")
            }
        }
        if let bitRate { guard bitRate >= 10_000 else { throw ValidationError("--bit-rate must be at least 10000") } }
    }

    /// What the delegate gathered: the segments written, and their durations.
    final class Files: NSObject, AVAssetWriterDelegate, @unchecked Sendable {
        let directory: URL
        let state = Locked<(count: Int, durations: [Double], bytes: Int, failure: String?)>((0, [], 0, nil))

        init(directory: URL) { self.directory = directory }

        func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                         segmentReport: AVAssetSegmentReport?) {
            // The pictures' span where there are pictures (sound's packets overhang the cut a little).
            let reports = segmentReport?.trackReports ?? []
            let duration = (reports.first { $0.mediaType == .video } ?? reports.first).map(\.duration.seconds).flatMap { $0.isFinite ? $0 : nil } ?? 0
            let number = state.withLock { s -> Int in
                if segmentType == .separable { s.count += 1 }
                return s.count
            }
            let name = segmentType == .initialization ? "init.mp4" : "segment\(number).m4s"
            do {
                try segmentData.write(to: directory.appendingPathComponent(name), options: .atomic)
                state.withLock { s in
                    if segmentType == .separable { s.durations.append(duration) }
                    s.bytes += segmentData.count
                }
            } catch {
                state.withLock { $0.failure = "\(name): cannot write: \(error.localizedDescription)" }
            }
        }
    }

    func run() async throws {
        let asset = AVURLAsset(url: MediaLocation.url(file))
        let video: AVAssetTrack?, audio: AVAssetTrack?, duration: CMTime
        do {
            video = try await asset.loadTracks(withMediaType: .video).first
            audio = try await asset.loadTracks(withMediaType: .audio).first
            duration = try await asset.load(.duration)
        } catch {
            AVTool.complain(AVTool.message(error, file: file))
            throw ExitCode(1)
        }
        guard video != nil || audio != nil else {
            AVTool.complain("\(file): the asset has no video or audio to package")
            throw ExitCode(1)
        }
        let directory = URL(fileURLWithPath: output)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            AVTool.complain("\(output): cannot make the directory: \(error.localizedDescription)")
            throw ExitCode(1)
        }
        let reader = try AVAssetReader(asset: asset)
        let files = Files(directory: directory)
        guard let mp4 = UTType(AVFileType.mp4.rawValue) else { throw ExitCode(1) }
        let writer = AVAssetWriter(contentType: mp4)
        writer.delegate = files
        writer.outputFileTypeProfile = .mpeg4CMAFCompliant
        writer.preferredOutputSegmentInterval = CMTime(seconds: interval, preferredTimescale: 1000)
        writer.initialSegmentStartTime = .zero
        var pairs: [(AVAssetReaderOutput, AVAssetWriterInput)] = []
        if let video {
            let natural = try await video.load(.naturalSize)
            let box = size.flatMap(ImageOutput.size) ?? CGSize(width: Int(natural.width) & ~1, height: Int(natural.height) & ~1)
            let decoded = AVAssetReaderTrackOutput(track: video, outputSettings: [
                kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
            ])
            var compression: [String: Any] = [AVVideoMaxKeyFrameIntervalDurationKey: interval]
            if let bitRate { compression[AVVideoAverageBitRateKey] = bitRate }
            let encoded = AVAssetWriterInput(mediaType: .video, outputSettings: [
                AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: Int(box.width), AVVideoHeightKey: Int(box.height),
                AVVideoCompressionPropertiesKey: compression,
            ])
            encoded.transform = try await video.load(.preferredTransform)
            pairs.append((decoded, encoded))
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
            pairs.append((decoded, encoded))
        }
        for (readerOutput, writerInput) in pairs {
            reader.add(readerOutput)
            writer.add(writerInput)
        }
        guard reader.startReading() else {
            AVTool.complain(AVTool.message(reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        guard writer.startWriting() else {
            AVTool.complain(AVTool.message(writer.error ?? AVError(.unknown), file: output))
            throw ExitCode(1)
        }
        writer.startSession(atSourceTime: .zero)
        let total = duration.isNumeric ? duration.seconds : 0
        // Apple's pattern: each input pulls from its reader output on a queue of its own, while ready.
        await withHandOffContinuation { (done: CheckedContinuation<Void, Never>) in
            let left = Locked(pairs.count)
            for (index, (readerOutput, writerInput)) in pairs.enumerated() {
                let pair = UncheckedPair(output: readerOutput, input: writerInput)
                writerInput.requestMediaDataWhenReady(on: DispatchQueue(label: "avtool.segment.\(index)")) {
                    while pair.input.isReadyForMoreMediaData {
                        guard let sample = pair.output.copyNextSampleBuffer() else {
                            pair.input.markAsFinished()
                            if left.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                            return
                        }
                        if index == 0, total > 0, ImageOutput.showsProgress {
                            let percent = min(100, sample.presentationTimeStamp.seconds / total * 100)
                            try? FileHandle.standardError.write(contentsOf: Data(String(format: "\rsegment: %3.0f%%", percent).utf8))
                        }
                        if !pair.input.append(sample) {
                            pair.input.markAsFinished()
                            if left.withLock({ $0 -= 1; return $0 }) == 0 { done.resume() }
                            return
                        }
                    }
                }
            }
        }
        await writer.finishWriting()
        if ImageOutput.showsProgress { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        let gathered = files.state.withLock { $0 }
        if let failure = gathered.failure {
            AVTool.complain(failure)
            throw ExitCode(1)
        }
        guard writer.status == .completed, reader.status == .completed else {
            AVTool.complain(AVTool.message(writer.error ?? reader.error ?? AVError(.unknown), file: file))
            throw ExitCode(1)
        }
        let target = Int((gathered.durations.max() ?? interval).rounded(.up))
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, target))", "#EXT-X-PLAYLIST-TYPE:VOD",
                     "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"init.mp4\""]
        for (n, seconds) in gathered.durations.enumerated() {
            lines.append(String(format: "#EXTINF:%.3f,", seconds))
            lines.append("segment\(n + 1).m4s")
        }
        lines.append("#EXT-X-ENDLIST")
        let playlist = directory.appendingPathComponent("index.m3u8")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: playlist, options: .atomic)
        if json {
            let object: [String: Any] = ["playlist": playlist.path, "segments": gathered.durations.count,
                                         "duration": gathered.durations.reduce(0, +), "bytes": gathered.bytes]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "%@: %d segments, %.3f s", playlist.path, gathered.durations.count, gathered.durations.reduce(0, +)))
        }
    }
}

/// A reader output and a writer input handed to the input's queue (the queue alone uses them).
struct UncheckedPair: @unchecked Sendable {
    let output: AVAssetReaderOutput
    let input: AVAssetWriterInput
}
