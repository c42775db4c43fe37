import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// How open-source Swift code written for Apple's platforms uses AVFoundation's video side: readers and
/// writers, export sessions, compositions, image generators and track geometry, in the shapes those
/// projects use (Dispatch queues and semaphores, completion handlers with `switch` over the status,
/// settings dictionaries with Apple's keys, the synchronous properties), checked on the fixtures by
/// the numbers that come out. The code is ours; the shapes mirror:
///
/// - `sessionExporterTranscode`: NextLevelSessionExporter, and the transcoders written after it (a
///   video-composition output and an audio-mix output feeding writer inputs from
///   `requestMediaDataWhenReady`, a pixel-buffer adaptor for rendered frames, two semaphores).
/// - `trimmingWithAnExportSession`: video editors and trimmers (`exportAsynchronously` and a `switch`
///   over `status`, a time range from two times, the compatible presets checked first).
/// - `mergingClipsWithLayerInstructions`: "merge videos" helpers (clips laid end to end in a
///   composition, a layer instruction per clip that hides it when it ends).
/// - `thumbnailsAtTimesAsValues`: thumbnail strips and scrubbers (`NSValue(time:)`,
///   `generateCGImagesAsynchronously`, `appliesPreferredTrackTransform`).
/// - `displaySizeFromTheTransform`: upload handlers and players that size a view (`naturalSize`
///   through `preferredTransform`, `nominalFrameRate`, `CMTimeGetSeconds`).
// One test at a time: three of them encode, and side by side they took the CPU the rest of the suite's
// waits need in CI's stress run beside two busy processes.
@Suite("Video usage in open-source projects", .serialized)
struct VideoUsageTests {
    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }

    /// A transcoder in the shape of NextLevelSessionExporter: reads through a video composition and an
    /// audio mix, writes H.264 and AAC at the sizes and rates asked, and reports through a handler.
    final class SessionExporter: @unchecked Sendable {
        var asset: AVAsset
        var outputURL: URL?
        var outputFileType: AVFileType = .mp4
        var timeRange: CMTimeRange
        var videoOutputConfiguration: [String: Any]?
        var audioOutputConfiguration: [String: Any]?
        var progress: Float = 0
        var renderedFrames = 0

        private var reader: AVAssetReader?
        private var writer: AVAssetWriter?
        private var videoOutput: AVAssetReaderVideoCompositionOutput?
        private var audioOutput: AVAssetReaderAudioMixOutput?
        private var videoInput: AVAssetWriterInput?
        private var audioInput: AVAssetWriterInput?
        private var pixelBufferAdaptor: AVAssetWriterInputPixelBufferAdaptor?
        private let inputQueue = DispatchQueue(label: "SessionExporterInputQueue", autoreleaseFrequency: .workItem)
        private var duration: TimeInterval = 0

        init(withAsset asset: AVAsset) {
            self.asset = asset
            self.timeRange = CMTimeRange(start: CMTime.zero, end: CMTime.positiveInfinity)
        }

        @available(*, deprecated)
        func export(completionHandler: @escaping @Sendable (Result<AVAssetExportSession.Status, Error>) -> Void) {
            guard let outputURL = self.outputURL else {
                completionHandler(.failure(NSError(domain: "SessionExporter", code: 1)))
                return
            }
            do {
                self.reader = try AVAssetReader(asset: self.asset)
                self.writer = try AVAssetWriter(outputURL: outputURL, fileType: self.outputFileType)
            } catch {
                completionHandler(.failure(error))
                return
            }
            if CMTIMERANGE_IS_VALID(self.timeRange) == false || self.timeRange.end == .positiveInfinity {
                self.timeRange = CMTimeRangeMake(start: CMTime.zero, duration: self.asset.duration)
            }
            self.reader?.timeRange = self.timeRange
            self.writer?.shouldOptimizeForNetworkUse = true
            self.duration = CMTimeGetSeconds(self.timeRange.duration)

            let videoTracks = self.asset.tracks(withMediaType: AVMediaType.video)
            if videoTracks.count > 0, let videoConfiguration = self.videoOutputConfiguration {
                let videoOutput = AVAssetReaderVideoCompositionOutput(videoTracks: videoTracks, videoSettings: nil)
                videoOutput.alwaysCopiesSampleData = false
                videoOutput.videoComposition = self.createVideoComposition()
                if self.reader?.canAdd(videoOutput) == true {
                    self.reader?.add(videoOutput)
                    self.videoOutput = videoOutput
                }
                if self.writer?.canApply(outputSettings: videoConfiguration, forMediaType: AVMediaType.video) == true {
                    let videoInput = AVAssetWriterInput(mediaType: AVMediaType.video, outputSettings: videoConfiguration)
                    videoInput.expectsMediaDataInRealTime = false
                    if self.writer?.canAdd(videoInput) == true {
                        self.writer?.add(videoInput)
                        self.videoInput = videoInput
                    }
                    let width = (videoConfiguration[AVVideoWidthKey] as? NSNumber)?.intValue ?? 0
                    let height = (videoConfiguration[AVVideoHeightKey] as? NSNumber)?.intValue ?? 0
                    let pixelBufferAttrib: [String: Any] = [
                        kCVPixelBufferPixelFormatTypeKey as String: NSNumber(integerLiteral: Int(kCVPixelFormatType_32BGRA)),
                        kCVPixelBufferWidthKey as String: NSNumber(integerLiteral: width),
                        kCVPixelBufferHeightKey as String: NSNumber(integerLiteral: height),
                        "IOSurfaceOpenGLESTextureCompatibility": NSNumber(booleanLiteral: true),
                        "IOSurfaceOpenGLESFBOCompatibility": NSNumber(booleanLiteral: true),
                    ]
                    self.pixelBufferAdaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: videoInput,
                                                                                   sourcePixelBufferAttributes: pixelBufferAttrib)
                }
            }

            let audioTracks = self.asset.tracks(withMediaType: AVMediaType.audio)
            if audioTracks.count > 0, let audioConfiguration = self.audioOutputConfiguration {
                let audioOutput = AVAssetReaderAudioMixOutput(audioTracks: audioTracks, audioSettings: nil)
                audioOutput.alwaysCopiesSampleData = false
                if self.reader?.canAdd(audioOutput) == true {
                    self.reader?.add(audioOutput)
                    self.audioOutput = audioOutput
                }
                let audioInput = AVAssetWriterInput(mediaType: AVMediaType.audio, outputSettings: audioConfiguration)
                audioInput.expectsMediaDataInRealTime = false
                if self.writer?.canAdd(audioInput) == true {
                    self.writer?.add(audioInput)
                    self.audioInput = audioInput
                }
            }

            self.writer?.startWriting()
            self.reader?.startReading()
            self.writer?.startSession(atSourceTime: self.timeRange.start)

            let audioSemaphore = DispatchSemaphore(value: 0)
            let videoSemaphore = DispatchSemaphore(value: 0)
            if let videoInput = self.videoInput, let videoOutput = self.videoOutput {
                videoInput.requestMediaDataWhenReady(on: self.inputQueue, using: {
                    if self.encode(readySamplesFromReaderOutput: videoOutput, toWriterInput: videoInput) == false {
                        videoSemaphore.signal()
                    }
                })
            } else {
                videoSemaphore.signal()
            }
            if let audioInput = self.audioInput, let audioOutput = self.audioOutput {
                audioInput.requestMediaDataWhenReady(on: self.inputQueue, using: {
                    if self.encode(readySamplesFromReaderOutput: audioOutput, toWriterInput: audioInput) == false {
                        audioSemaphore.signal()
                    }
                })
            } else {
                audioSemaphore.signal()
            }

            DispatchQueue.global().async {
                audioSemaphore.wait()
                videoSemaphore.wait()
                self.finish(completionHandler: completionHandler)
            }
        }

        /// Appends what the output has while the input takes it; false once the output is done or a
        /// step failed (the shape of the project's `encode(readySamplesFromReaderOutput:toWriterInput:)`).
        private func encode(readySamplesFromReaderOutput output: AVAssetReaderOutput, toWriterInput input: AVAssetWriterInput) -> Bool {
            while input.isReadyForMoreMediaData {
                guard let sampleBuffer = output.copyNextSampleBuffer() else {
                    input.markAsFinished()
                    return false
                }
                var handled = false
                var error = false
                if self.reader?.status != .reading || self.writer?.status != .writing {
                    handled = true
                    error = true
                }
                if handled == false && self.videoOutput == output {
                    // Progress from the sample's time.
                    var lastSamplePresentationTime = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
                    lastSamplePresentationTime = lastSamplePresentationTime - self.timeRange.start
                    self.progress = self.duration == 0 ? 1 : Float(CMTimeGetSeconds(lastSamplePresentationTime) / self.duration)
                    // A frame rendered into a buffer of the adaptor's pool, as the project's render handler does.
                    if let pixelBufferAdaptor = self.pixelBufferAdaptor,
                       let pixelBufferPool = pixelBufferAdaptor.pixelBufferPool,
                       let currentBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) {
                        var toRenderBuffer: CVPixelBuffer?
                        let result = CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pixelBufferPool, &toRenderBuffer)
                        if result == kCVReturnSuccess, let toBuffer = toRenderBuffer {
                            Self.render(currentBuffer, into: toBuffer)
                            self.renderedFrames += 1
                            if !pixelBufferAdaptor.append(toBuffer, withPresentationTime: CMSampleBufferGetPresentationTimeStamp(sampleBuffer)) {
                                error = true
                            }
                            handled = true
                        }
                    }
                }
                if handled == false && input.append(sampleBuffer) == false {
                    error = true
                }
                if error {
                    return false
                }
            }
            return true
        }

        /// Copies a 32BGRA picture into another of the same size, row by row (a stand-in for a filter).
        static func render(_ source: CVPixelBuffer, into target: CVPixelBuffer) {
            CVPixelBufferLockBaseAddress(source, .readOnly)
            CVPixelBufferLockBaseAddress(target, [])
            defer {
                CVPixelBufferUnlockBaseAddress(target, [])
                CVPixelBufferUnlockBaseAddress(source, .readOnly)
            }
            guard let from = CVPixelBufferGetBaseAddress(source), let to = CVPixelBufferGetBaseAddress(target) else { return }
            let rows = min(CVPixelBufferGetHeight(source), CVPixelBufferGetHeight(target))
            let bytes = min(CVPixelBufferGetBytesPerRow(source), CVPixelBufferGetBytesPerRow(target))
            for row in 0..<rows {
                memcpy(to + row * CVPixelBufferGetBytesPerRow(target), from + row * CVPixelBufferGetBytesPerRow(source), bytes)
            }
        }

        @available(*, deprecated)
        private func createVideoComposition() -> AVMutableVideoComposition {
            let videoComposition = AVMutableVideoComposition()
            if let videoTrack = self.asset.tracks(withMediaType: AVMediaType.video).first {
                var trackFrameRate = Float(30)
                if let videoCompressionConfiguration = self.videoOutputConfiguration?[AVVideoCompressionPropertiesKey] as? [String: Any],
                   let frameRate = videoCompressionConfiguration[AVVideoAverageNonDroppableFrameRateKey] as? NSNumber {
                    trackFrameRate = frameRate.floatValue
                } else {
                    trackFrameRate = videoTrack.nominalFrameRate
                }
                if trackFrameRate == 0 {
                    trackFrameRate = 30
                }
                videoComposition.frameDuration = CMTimeMake(value: 1, timescale: Int32(trackFrameRate))
                let targetSize = CGSize(width: (self.videoOutputConfiguration?[AVVideoWidthKey] as? NSNumber)?.doubleValue ?? 0,
                                        height: (self.videoOutputConfiguration?[AVVideoHeightKey] as? NSNumber)?.doubleValue ?? 0)
                var naturalSize = videoTrack.naturalSize
                var transform = videoTrack.preferredTransform
                let rect = CGRect(x: 0, y: 0, width: naturalSize.width, height: naturalSize.height)
                let transformedRect = rect.applying(transform)
                transform.tx -= transformedRect.origin.x
                transform.ty -= transformedRect.origin.y
                let videoAngleInDegrees = atan2(transform.b, transform.a) * 180 / .pi
                if videoAngleInDegrees == 90 || videoAngleInDegrees == -90 {
                    let width = naturalSize.width
                    naturalSize.width = naturalSize.height
                    naturalSize.height = width
                }
                videoComposition.renderSize = naturalSize
                // Scale to fill the size asked.
                var ratio: CGFloat = 0
                let xRatio: CGFloat = targetSize.width / naturalSize.width
                let yRatio: CGFloat = targetSize.height / naturalSize.height
                ratio = min(xRatio, yRatio)
                let postWidth = naturalSize.width * ratio
                let postHeight = naturalSize.height * ratio
                let transX = (targetSize.width - postWidth) * 0.5
                let transY = (targetSize.height - postHeight) * 0.5
                var matrix = CGAffineTransform(translationX: (transX / xRatio), y: (transY / yRatio))
                matrix = matrix.scaledBy(x: (ratio / xRatio), y: (ratio / yRatio))
                transform = transform.concatenating(matrix)
                let passThroughInstruction = AVMutableVideoCompositionInstruction()
                passThroughInstruction.timeRange = CMTimeRangeMake(start: CMTime.zero, duration: self.asset.duration)
                let passThroughLayerInstruction = AVMutableVideoCompositionLayerInstruction(assetTrack: videoTrack)
                passThroughLayerInstruction.setTransform(transform, at: CMTime.zero)
                passThroughInstruction.layerInstructions = [passThroughLayerInstruction]
                videoComposition.instructions = [passThroughInstruction]
            }
            return videoComposition
        }

        private func finish(completionHandler: @escaping @Sendable (Result<AVAssetExportSession.Status, Error>) -> Void) {
            if self.reader?.status == .cancelled || self.writer?.status == .cancelled {
                completionHandler(.success(.cancelled))
            } else if self.writer?.status == .failed {
                self.reader?.cancelReading()
                completionHandler(.failure(self.writer?.error ?? NSError(domain: "SessionExporter", code: 2)))
            } else if self.reader?.status == .failed {
                self.writer?.cancelWriting()
                completionHandler(.failure(self.reader?.error ?? NSError(domain: "SessionExporter", code: 3)))
            } else {
                self.writer?.finishWriting {
                    if let error = self.writer?.error {
                        completionHandler(.failure(error))
                    } else {
                        completionHandler(.success(.completed))
                    }
                }
            }
        }
    }

    @Test @available(*, deprecated) func sessionExporterTranscode() async throws {
        let output = try Fixtures.temporaryDirectory().appendingPathComponent("exported.mp4")
        let exporter = SessionExporter(withAsset: AVAsset(url: Self.url("av.mp4")))
        exporter.outputURL = output
        exporter.outputFileType = AVFileType.mp4
        exporter.videoOutputConfiguration = [
            AVVideoCodecKey: AVVideoCodecType.h264,
            AVVideoWidthKey: NSNumber(integerLiteral: 160),
            AVVideoHeightKey: NSNumber(integerLiteral: 120),
            AVVideoScalingModeKey: AVVideoScalingModeResizeAspectFill,
            AVVideoCompressionPropertiesKey: [
                AVVideoAverageBitRateKey: NSNumber(integerLiteral: 400_000),
                AVVideoProfileLevelKey: AVVideoProfileLevelH264HighAutoLevel as String,
            ],
        ]
        exporter.audioOutputConfiguration = [
            AVFormatIDKey: kAudioFormatMPEG4AAC,
            AVEncoderBitRateKey: NSNumber(integerLiteral: 64_000),
            AVNumberOfChannelsKey: NSNumber(integerLiteral: 2),
            AVSampleRateKey: NSNumber(value: Float(44_100)),
        ]
        // Apps start it from the main thread or a queue of theirs; its synchronous property reads (the
        // asset's duration and tracks) then block that thread, never the cooperative pool.
        let outcome: Result<AVAssetExportSession.Status, Error> = await withHandOffContinuation { continuation in
            DispatchQueue(label: "caller").async {
                exporter.export { continuation.resume(returning: $0) }
            }
        }
        #expect(try outcome.get() == .completed)
        #expect(exporter.progress > 0.95 && exporter.renderedFrames == 50, "\(exporter.progress), \(exporter.renderedFrames) frames")
        let written = AVURLAsset(url: output)
        let (duration, tracks) = try await written.load(.duration, .tracks)
        #expect(abs(duration.seconds - 2) < 0.1)
        let video = try #require(tracks.first { $0.mediaType == .video })
        #expect(try await video.load(.naturalSize) == CGSize(width: 160, height: 120))
        #expect(tracks.contains { $0.mediaType == .audio })
    }

    @Test @available(*, deprecated) func trimmingWithAnExportSession() async throws {
        let asset = AVURLAsset(url: Self.url("av.mp4"))
        let outputURL = try Fixtures.temporaryDirectory().appendingPathComponent("trimmed.mp4")
        let compatiblePresets = try await onOwnThread { AVAssetExportSession.exportPresets(compatibleWith: asset) }
        #expect(compatiblePresets.contains(AVAssetExportPresetMediumQuality))
        guard let exportSession = AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetMediumQuality) else {
            Issue.record("no export session")
            return
        }
        exportSession.outputURL = outputURL
        exportSession.outputFileType = AVFileType.mp4
        exportSession.shouldOptimizeForNetworkUse = true
        let start = CMTime(seconds: 0.5, preferredTimescale: 600)
        let end = CMTime(seconds: 1.5, preferredTimescale: 600)
        exportSession.timeRange = CMTimeRangeFromTimeToTime(start: start, end: end)
        let message: String = await withHandOffContinuation { continuation in
            exportSession.exportAsynchronously {
                switch exportSession.status {
                case .completed:
                    continuation.resume(returning: "completed")
                case .failed:
                    continuation.resume(returning: "failed: \(exportSession.error?.localizedDescription ?? "")")
                case .cancelled:
                    continuation.resume(returning: "cancelled")
                default:
                    continuation.resume(returning: "status \(exportSession.status.rawValue)")
                }
            }
        }
        #expect(message == "completed")
        let seconds = try await onOwnThread { CMTimeGetSeconds(AVURLAsset(url: outputURL).duration) }
        #expect(abs(seconds - 1) < 0.1, "\(seconds)")
    }

    @Test @available(*, deprecated) func mergingClipsWithLayerInstructions() async throws {
        // The helper reads tracks, durations and sizes synchronously, as apps do on a queue of theirs.
        let built = try await onOwnThread { () -> UncheckedSendable<(AVMutableComposition, AVMutableVideoComposition)> in
            let clips = [AVAsset(url: Self.url("frames-h264.mp4")), AVAsset(url: Self.url("av.mp4"))]
            let mixComposition = AVMutableComposition()
            var instructions: [AVMutableVideoCompositionLayerInstruction] = []
            var insertTime = CMTime.zero
            var renderSize = CGSize.zero
            for clip in clips {
                guard let track = mixComposition.addMutableTrack(withMediaType: .video, preferredTrackID: Int32(kCMPersistentTrackID_Invalid)),
                      let assetTrack = clip.tracks(withMediaType: .video).first else { continue }
                try track.insertTimeRange(CMTimeRangeMake(start: CMTime.zero, duration: clip.duration), of: assetTrack, at: insertTime)
                let instruction = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
                instruction.setTransform(assetTrack.preferredTransform, at: insertTime)
                insertTime = CMTimeAdd(insertTime, clip.duration)
                instruction.setOpacity(0.0, at: insertTime)
                instructions.append(instruction)
                renderSize = CGSize(width: max(renderSize.width, assetTrack.naturalSize.width),
                                    height: max(renderSize.height, assetTrack.naturalSize.height))
            }
            let mainInstruction = AVMutableVideoCompositionInstruction()
            mainInstruction.timeRange = CMTimeRangeMake(start: CMTime.zero, duration: insertTime)
            mainInstruction.layerInstructions = instructions
            let mainComposition = AVMutableVideoComposition()
            mainComposition.instructions = [mainInstruction]
            mainComposition.frameDuration = CMTimeMake(value: 1, timescale: 25)
            mainComposition.renderSize = renderSize
            return UncheckedSendable((mixComposition, mainComposition))
        }
        let (mixComposition, mainComposition) = built.value
        #expect(CMTimeGetSeconds(mixComposition.duration) == 6)

        let outputURL = try Fixtures.temporaryDirectory().appendingPathComponent("merged.mp4")
        let exporter = try #require(AVAssetExportSession(asset: mixComposition, presetName: AVAssetExportPresetLowQuality))
        exporter.outputURL = outputURL
        exporter.outputFileType = .mp4
        exporter.videoComposition = mainComposition
        await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
            exporter.exportAsynchronously { continuation.resume() }
        }
        #expect(exporter.status == .completed, "\(String(describing: exporter.error))")
        // The second clip shows after the first: frame 0 of frames-h264.mp4 at 0, av.mp4 from 4 s.
        let numbers = try await onOwnThread { () -> [Int?] in
            let generator = AVAssetImageGenerator(asset: AVURLAsset(url: outputURL))
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            return try [CMTime(value: 1, timescale: 100), CMTime(value: 396, timescale: 100), CMTime(value: 5, timescale: 1)].map {
                ImageGeneratorTests.reading(try generator.copyCGImage(at: $0, actualTime: nil)).frameNumber
            }
        }
        #expect(numbers.count == 3 && numbers[0] == 0 && numbers[1] == 99, "\(numbers)")
        // av.mp4's test pattern is no frame index: whatever the reading makes of it, no frame of the first clip.
        #expect((numbers.last.flatMap { $0 } ?? 100) >= 100, "the second clip shows after the first")
    }

    @Test @available(*, deprecated) func thumbnailsAtTimesAsValues() async throws {
        let asset = AVAsset(url: Self.url("frames-h264.mp4"))
        let imageGenerator = AVAssetImageGenerator(asset: asset)
        imageGenerator.appliesPreferredTrackTransform = true
        imageGenerator.maximumSize = CGSize(width: 160, height: 160)
        imageGenerator.requestedTimeToleranceBefore = CMTime.zero
        imageGenerator.requestedTimeToleranceAfter = CMTime.zero
        let durationSeconds = try await onOwnThread { CMTimeGetSeconds(asset.duration) }
        var times: [NSValue] = []
        for step in 0..<4 {
            let cmTime = CMTimeMakeWithSeconds(durationSeconds * Double(step) / 4, preferredTimescale: 600)
            times.append(NSValue(time: cmTime))
        }
        let frames = Locked<[Int: Int]>([:])
        let failures = Locked(0)
        await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Locked(times.count)
            imageGenerator.generateCGImagesAsynchronously(forTimes: times) { requestedTime, image, actualTime, result, error in
                if result == .succeeded, let image {
                    let number = ImageGeneratorTests.reading(image).frameNumber ?? -1
                    frames.withLock { $0[Int(CMTimeGetSeconds(requestedTime) * 25 + 0.5)] = number }
                    #expect(image.width == 160 && image.height == 120 && actualTime == requestedTime)
                } else {
                    failures.withLock { $0 += 1 }
                    Issue.record("\(String(describing: error))")
                }
                if remaining.withLock({ $0 -= 1; return $0 }) == 0 { continuation.resume() }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(frames.withLock { $0 } == [0: 0, 25: 25, 50: 50, 75: 75])
        #expect(times[1].timeValue == CMTimeMakeWithSeconds(1, preferredTimescale: 600))
    }

    @Test @available(*, deprecated) func displaySizeFromTheTransform() async throws {
        // Upload handlers call this from a queue of theirs: the synchronous reads block that thread.
        let facts = try await onOwnThread { () -> ([CGSize?], Float, Double, Bool) in
            func resolution(for url: URL) -> CGSize? {
                guard let track = AVURLAsset(url: url).tracks(withMediaType: AVMediaType.video).first else { return nil }
                let size = track.naturalSize.applying(track.preferredTransform)
                return CGSize(width: abs(size.width), height: abs(size.height))
            }
            let sizes = ["rotated.mov", "av.mp4", "tone.wav"].map { resolution(for: Self.url($0)) }
            let asset = AVURLAsset(url: Self.url("frames-h264.mp4"))
            let track = asset.tracks(withMediaType: .video)[0]
            return (sizes, track.nominalFrameRate, CMTimeGetSeconds(asset.duration), track.isPlayable && asset.isPlayable && !asset.hasProtectedContent)
        }
        #expect(facts.0 == [CGSize(width: 180, height: 320), CGSize(width: 320, height: 240), nil])
        #expect(facts.1 == 25 && facts.2 == 4 && facts.3)
    }
}
