import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// AVAssetWriter writing real files, read back with Avocet's reader and checked with ffprobe: pictures
/// through the pixel buffer adaptor, sound from linear PCM, samples written as they are, the
/// compression settings, sessions, metadata, fragments, and misuse.
@Suite("Asset writer", .serialized)
struct AssetWriterTests {
    static func output(_ name: String) throws -> URL {
        try Fixtures.temporaryDirectory().appendingPathComponent(name)
    }

    /// Paints `buffer` (32BGRA) one colour, with frame `n`'s number as a grey level in its right half.
    static func paint(_ buffer: CVPixelBuffer, red: UInt8, green: UInt8, blue: UInt8, level: UInt8) {
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return }
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer), row = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<height {
            let line = base.advanced(by: y * row).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let right = x >= width / 2
                line[x * 4] = right ? level : blue
                line[x * 4 + 1] = right ? level : green
                line[x * 4 + 2] = right ? level : red
                line[x * 4 + 3] = 255
            }
        }
    }

    /// The BGRA value at (x, y) of a 32BGRA buffer.
    static func pixel(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> (b: Int, g: Int, r: Int) {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return (-1, -1, -1) }
        let p = base.advanced(by: y * CVPixelBufferGetBytesPerRow(buffer) + x * 4).assumingMemoryBound(to: UInt8.self)
        return (Int(p[0]), Int(p[1]), Int(p[2]))
    }

    /// Every sample buffer of the first `mediaType` track of `url`, read with `settings`.
    static func readBack(_ url: URL, _ mediaType: AVMediaType, settings: [String: Any]?) async throws -> [CMSampleBuffer] {
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: mediaType).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
        reader.add(output)
        #expect(reader.startReading())
        var buffers: [CMSampleBuffer] = []
        for try await buffer in output.sampleBuffers { buffers.append(buffer) }
        #expect(reader.status == .completed)
        return buffers
    }

    static func probe(_ url: URL, _ entries: String, stream: String = "v:0") async throws -> [String] {
        let result = try await onOwnThread {
            try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/ffprobe"),
                                         ["-v", "error", "-select_streams", stream, "-show_entries", entries, "-of", "csv=p=0", url.path])
        }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    static var bgra: [String: Any] { [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA] }

    /// Writes `count` pictures at 30 a second through an adaptor with `settings`; each picture red on
    /// even frames, blue on odd ones, its right half grey at level 8 * (n % 30).
    static func writePictures(to url: URL, fileType: AVFileType = .mp4, count: Int = 30, settings: [String: Any], alternating: Bool = true,
                              configure: (AVAssetWriter, AVAssetWriterInput) -> Void = { _, _ in }) async throws -> AVAssetWriter {
        let writer = try AVAssetWriter(outputURL: url, fileType: fileType)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: bgra)
        #expect(writer.canAdd(input))
        writer.add(input)
        configure(writer, input)
        #expect(adaptor.pixelBufferPool == nil)
        try #require(writer.startWriting(), "\(String(describing: writer.error))")
        writer.startSession(atSourceTime: .zero)
        let pool = try #require(adaptor.pixelBufferPool)
        for n in 0..<count {
            await until("the input is ready for picture \(n)") { input.isReadyForMoreMediaData || writer.status != .writing }
            var made: CVPixelBuffer?
            #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess)
            let buffer = try #require(made)
            let red = alternating && n % 2 == 1 ? UInt8(0) : 220
            paint(buffer, red: red, green: 0, blue: 220 - red, level: UInt8(8 * (n % 30)))
            #expect(adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(n), timescale: 30)))
        }
        input.markAsFinished()
        await writer.finishWriting()
        return writer
    }

    static var h264: [String: Any] { [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 320, AVVideoHeightKey: 240] }

    // MARK: Pictures

    @Test("H.264 MP4 from pixel buffers: every picture, at its time, in its colours")
    func h264FromPixelBuffers() async throws {
        let url = try Self.output("pictures.mp4")
        let writer = try await Self.writePictures(to: url, settings: Self.h264)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try await Self.probe(url, "stream=codec_name,width,height") == ["h264,320,240"])
        let frames = try await Self.readBack(url, .video, settings: Self.bgra)
        try #require(frames.count == 30)
        for (n, frame) in frames.enumerated() {
            #expect(frame.presentationTimeStamp.seconds.isApproximately(Double(n) / 30), "frame \(n) at \(frame.presentationTimeStamp.seconds)")
            let image = try #require(frame.imageBuffer)
            let left = Self.pixel(image, 40, 120), right = Self.pixel(image, 280, 120)
            if n % 2 == 0 { #expect(left.r > 180 && left.b < 40, "frame \(n): \(left)") } else { #expect(left.b > 180 && left.r < 40, "frame \(n): \(left)") }
            #expect(abs(right.g - 8 * (n % 30)) <= 12, "frame \(n): grey \(right)")
        }
    }

    @Test("compression settings reach the encoder: key-frame interval, no reordering, bit rate")
    func compressionSettings() async throws {
        let url = try Self.output("keys.mp4")
        var settings = Self.h264
        settings[AVVideoCompressionPropertiesKey] = [AVVideoMaxKeyFrameIntervalKey: 10, AVVideoAllowFrameReorderingKey: false,
                                                     AVVideoAverageBitRateKey: 400_000, AVVideoProfileLevelKey: AVVideoProfileLevelH264MainAutoLevel]
        let writer = try await Self.writePictures(to: url, settings: settings, alternating: false)
        #expect(writer.status == .completed)
        let stored = try await Self.readBack(url, .video, settings: nil)
        try #require(stored.count == 30)
        let keys = stored.enumerated().filter { !($0.element.sampleAttachments[0][.notSync] as? Bool ?? false) }.map(\.offset)
        // At most ten pictures between keyframes (the encoder may add keyframes at scene cuts, as
        // Apple's may: the setting is a maximum).
        #expect(keys.first == 0 && zip(keys, keys.dropFirst() + [30]).allSatisfy { $1 - $0 <= 10 }, "\(keys)")
        // Without reordering every sample decodes in presentation order.
        #expect(stored.allSatisfy { $0.decodeTimeStamp == $0.presentationTimeStamp || !$0.decodeTimeStamp.isValid })
        #expect(try await Self.probe(url, "stream=profile") == ["Main"])
    }

    @Test("HEVC in QuickTime keeps the input's transform and language")
    func hevcTransform() async throws {
        let url = try Self.output("turned.mov")
        let settings: [String: Any] = [AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoWidthKey: 320, AVVideoHeightKey: 240]
        let turn = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0)
        let writer = try await Self.writePictures(to: url, fileType: .mov, count: 10, settings: settings) { _, input in
            input.transform = turn
            input.languageCode = "fra"
        }
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        let (transform, language, formats) = try await track.load(.preferredTransform, .languageCode, .formatDescriptions)
        #expect(transform.a == 0 && transform.b == 1 && transform.c == -1 && transform.d == 0)
        #expect(language == "fra")
        #expect(formats.first?.mediaSubType == .hevc)
    }

    // MARK: Sound and pictures together

    /// A second of a 440 Hz tone at 44.1 kHz stereo as Float32 interleaved buffers of 1024 frames.
    static func toneBuffers(rate: Int = 44100, channels: Int = 2) throws -> [CMSampleBuffer] {
        let asbd = AudioStreamBasicDescription(mSampleRate: Double(rate), mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, mBytesPerPacket: UInt32(4 * channels),
                                               mFramesPerPacket: 1, mBytesPerFrame: UInt32(4 * channels), mChannelsPerFrame: UInt32(channels),
                                               mBitsPerChannel: 32, mReserved: 0)
        let format = try CMFormatDescription(audioStreamBasicDescription: asbd)
        var buffers: [CMSampleBuffer] = []
        var start = 0
        while start < rate {
            let frames = min(1024, rate - start)
            var samples = [Float](repeating: 0, count: frames * channels)
            for i in 0..<frames {
                let v = Float(sin(2 * Double.pi * 440 * Double(start + i) / Double(rate)) * 0.5)
                for c in 0..<channels { samples[i * channels + c] = v }
            }
            let block = try CMBlockBuffer(length: samples.count * 4, flags: .assureMemoryNow)
            try samples.withUnsafeBytes { try block.replaceDataBytes(with: $0) }
            let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: Int32(rate)),
                                            presentationTimeStamp: CMTime(value: Int64(start), timescale: Int32(rate)), decodeTimeStamp: .invalid)
            buffers.append(try CMSampleBuffer(dataBuffer: block, formatDescription: format, numSamples: frames, sampleTimings: [timing],
                                              sampleSizes: [4 * channels]))
            start += frames
        }
        return buffers
    }

    /// Something a request block holds, whose release the test can see.
    final class Held: Sendable {}

    @Test("a writer that is cancelled, fails or finishes lets go of its inputs' request blocks and what they hold",
          arguments: ["cancel", "fail", "finish"])
    func requestBlocksAreLetGoWhenTheWriterEnds(_ ending: String) async throws {
        let writer = try AVAssetWriter(outputURL: try Self.output("let-go-\(ending).mp4"), fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                           AVNumberOfChannelsKey: 2])
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        weak var watched: Held?
        do {
            let held = Held()
            watched = held
            let calls = Locked(0)
            input.requestMediaDataWhenReady(on: DispatchQueue(label: "requests")) {
                // Appends nothing: the block only holds `held`, as an exporter's block holds its exporter.
                withExtendedLifetime(held) { calls.withLock { $0 += 1 } }
            }
            await until("the block ran once") { calls.withLock { $0 } > 0 }
        }
        #expect(watched != nil)
        switch ending {
        case "cancel": writer.cancelWriting()
        case "fail":
            // Misuse Apple answers with an exception fails the writer, no input marked finished.
            writer.endSession(atSourceTime: .invalid)
            #expect(writer.status == .failed)
        default: await writer.finishWriting()
        }
        await until("the block and what it holds are let go (\(ending))") { watched == nil }
        #expect(watched == nil)
    }

    @Test("AAC and H.264 through requestMediaDataWhenReady on two queues")
    func soundAndPictures() async throws {
        let url = try Self.output("both.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let video = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                           AVNumberOfChannelsKey: 2, AVEncoderBitRateKey: 128_000])
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: video, sourcePixelBufferAttributes: Self.bgra)
        writer.add(video)
        writer.add(audio)
        let title = AVMutableMetadataItem()
        title.keySpace = .common
        title.key = AVMetadataKey.commonKeyTitle.rawValue as NSString
        title.value = "Written by Avocet" as NSString
        writer.metadata = [title]
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        let pool = try #require(adaptor.pixelBufferPool)
        let sound = UncheckedSendable(try Self.toneBuffers())
        let next = Locked((picture: 0, sound: 0))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = Locked(0)
            let both: @Sendable () -> Void = { if finished.withLock({ $0 += 1; return $0 }) == 2 { done.resume() } }
            video.requestMediaDataWhenReady(on: DispatchQueue(label: "video")) {
                while video.isReadyForMoreMediaData {
                    let n = next.withLock { s -> Int in defer { s.picture += 1 }; return s.picture }
                    guard n < 30 else {
                        video.markAsFinished()
                        both()
                        return
                    }
                    var made: CVPixelBuffer?
                    CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
                    guard let buffer = made else { return }
                    Self.paint(buffer, red: 0, green: 200, blue: 0, level: 128)
                    adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(n), timescale: 30))
                }
            }
            audio.requestMediaDataWhenReady(on: DispatchQueue(label: "audio")) {
                while audio.isReadyForMoreMediaData {
                    let n = next.withLock { s -> Int in defer { s.sound += 1 }; return s.sound }
                    guard n < sound.value.count else {
                        audio.markAsFinished()
                        both()
                        return
                    }
                    audio.append(sound.value[n])
                }
            }
        }
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let asset = AVURLAsset(url: url)
        let (duration, metadata) = try await asset.load(.duration, .commonMetadata)
        #expect(abs(duration.seconds - 1) < 0.05, "\(duration.seconds)")
        #expect(try await metadata.first { $0.commonKey == .commonKeyTitle }?.load(.stringValue) == "Written by Avocet")
        let decoded = try await Self.readBack(url, .audio, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true,
                                                                     AVLinearPCMBitDepthKey: 32])
        let frames = decoded.reduce(0) { $0 + $1.numSamples }
        #expect(abs(frames - 44100) <= 1024, "\(frames) frames")
        #expect(try await Self.probe(url, "stream=codec_name", stream: "a:0") == ["aac"])
    }

    @Test("audio codecs: FLAC in Matroska, ALAC in M4A, Opus in WebM, linear PCM in QuickTime", arguments: [
        ("flac.mkv", AVFileType.mkv, kAudioFormatFLAC, 44100, "flac"),
        ("alac.m4a", AVFileType.m4a, kAudioFormatAppleLossless, 44100, "alac"),
        ("opus.webm", AVFileType.webm, kAudioFormatOpus, 48000, "opus"),
        ("pcm.mov", AVFileType.mov, kAudioFormatLinearPCM, 44100, "pcm_s16le"),
    ])
    func audioCodecs(_ name: String, _ fileType: AVFileType, _ format: AudioFormatID, _ rate: Int, _ codec: String) async throws {
        let url = try Self.output(name)
        let writer = try AVAssetWriter(outputURL: url, fileType: fileType)
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: format, AVSampleRateKey: rate, AVNumberOfChannelsKey: 2])
        #expect(writer.canAdd(input))
        writer.add(input)
        try #require(writer.startWriting(), "\(String(describing: writer.error))")
        writer.startSession(atSourceTime: .zero)
        for buffer in try Self.toneBuffers(rate: rate) {
            await until("the input is ready") { input.isReadyForMoreMediaData || writer.status != .writing }
            #expect(input.append(buffer))
        }
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try await Self.probe(url, "stream=codec_name,sample_rate,channels", stream: "a:0") == ["\(codec),\(rate),2"])
        let duration = try await AVURLAsset(url: url).load(.duration).seconds
        #expect(abs(duration - 1) < 0.05, "\(duration)")
    }

    @Test("sound at other rates and channel counts is converted into the input's: 48 kHz mono, then 22.05 kHz stereo, to 44.1 kHz", arguments: [1, 2])
    func soundIsConverted(_ outputChannels: Int) async throws {
        let url = try Self.output("converted-\(outputChannels).m4a")
        let writer = try AVAssetWriter(outputURL: url, fileType: .m4a)
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                            AVNumberOfChannelsKey: outputChannels])
        writer.add(input)
        try #require(writer.startWriting(), "\(String(describing: writer.error))")
        writer.startSession(atSourceTime: .zero)
        // A second of 48 kHz mono, then a second of 22.05 kHz stereo starting at 1 s.
        let second = try Self.toneBuffers(rate: 22050, channels: 2).map { buffer in
            try CMSampleBuffer(copying: buffer, withNewTiming: [CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 22050),
                                                                                 presentationTimeStamp: buffer.presentationTimeStamp + CMTime(value: 1, timescale: 1),
                                                                                 decodeTimeStamp: .invalid)])
        }
        for buffer in try Self.toneBuffers(rate: 48000, channels: 1) + second {
            await until("the input is ready") { input.isReadyForMoreMediaData || writer.status != .writing }
            #expect(input.append(buffer))
        }
        input.markAsFinished()
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try await Self.probe(url, "stream=codec_name,sample_rate,channels", stream: "a:0") == ["aac,44100,\(outputChannels)"])
        let duration = try await AVURLAsset(url: url).load(.duration).seconds
        #expect(abs(duration - 2) < 0.05, "\(duration)")

        // Read back as float: a 440 Hz tone throughout, at the amplitude written (0.5), the channels equal.
        let pcm: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
                                  AVLinearPCMIsNonInterleaved: false]
        var samples: [Float] = []
        for buffer in try await Self.readBack(url, .audio, settings: pcm) {
            let data = try #require(buffer.dataBuffer)
            try data.withUnsafeMutableBytes { raw in samples += raw.bindMemory(to: Float.self) }
        }
        let frames = samples.count / outputChannels
        #expect(abs(frames - 88200) < 2048, "\(frames) frames")
        for half in 0..<2 {
            // The middle half-second of each second, clear of the codec's edges and the join.
            let range = (half * 44100 + 11025)..<(half * 44100 + 33075)
            let left = range.map { samples[$0 * outputChannels] }
            let crossings = zip(left, left.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            #expect(abs(crossings - 220) <= 2, "second \(half): \(crossings) rising zero crossings in half a second (440 Hz: 220)")
            let peak = left.map(abs).max() ?? 0
            #expect(abs(peak - 0.5) < 0.05, "second \(half): peak \(peak)")
            if outputChannels == 2 {
                let apart = range.map { abs(samples[$0 * 2] - samples[$0 * 2 + 1]) }.max() ?? 1
                #expect(apart < 0.02, "second \(half): the channels differ by \(apart)")
            }
        }
    }

    @Test("sound the writer cannot convert (a fractional rate, 65 channels) fails the writer with a reason and leaves no file",
          arguments: [(44100.5, 2), (44100, 65)])
    func unconvertibleSound(_ rate: Double, _ channels: Int) async throws {
        let url = try Self.output("unconvertible.m4a")
        let writer = try AVAssetWriter(outputURL: url, fileType: .m4a)
        let input = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100,
                                                                            AVNumberOfChannelsKey: 2])
        writer.add(input)
        try #require(writer.startWriting(), "\(String(describing: writer.error))")
        writer.startSession(atSourceTime: .zero)
        let asbd = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked, mBytesPerPacket: UInt32(4 * channels),
                                               mFramesPerPacket: 1, mBytesPerFrame: UInt32(4 * channels), mChannelsPerFrame: UInt32(channels),
                                               mBitsPerChannel: 32, mReserved: 0)
        let frames = 256
        let block = try CMBlockBuffer(length: frames * channels * 4, flags: .assureMemoryNow)
        let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 44100), presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
        let buffer = try CMSampleBuffer(dataBuffer: block, formatDescription: try CMFormatDescription(audioStreamBasicDescription: asbd),
                                        numSamples: frames, sampleTimings: [timing], sampleSizes: [4 * channels])
        #expect(!input.append(buffer))
        #expect(writer.status == .failed)
        #expect((writer.error as? AVError)?.errorDescription?.contains("\(channels) channels") == true, "\(String(describing: writer.error))")
        #expect(!FileManager.default.fileExists(atPath: url.path), "a failed writer leaves no file")
    }

    // MARK: Samples as they are

    @Test("stored samples read by the reader are written as they are, and decode to the same pictures")
    func passthrough() async throws {
        let source = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let track = try #require(try await source.loadTracks(withMediaType: .video).first)
        let hint = try #require(try await track.load(.formatDescriptions).first)
        let url = try Self.output("copy.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: nil, sourceFormatHint: hint)
        #expect(writer.canAdd(input))
        writer.add(input)
        #expect(writer.startWriting(), "\(String(describing: writer.error))")
        writer.startSession(atSourceTime: .zero)
        let reader = try AVAssetReader(asset: source)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        reader.add(output)
        reader.startReading()
        for try await sample in output.sampleBuffers {
            await until("the input is ready") { input.isReadyForMoreMediaData || writer.status != .writing }
            #expect(input.append(sample))
        }
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try await Self.probe(url, "packet=pts").count == 100)
        let pictures = try await Self.readBack(url, .video, settings: Self.bgra)
        #expect(pictures.count == 100)
        #expect(pictures.last?.presentationTimeStamp.seconds.isApproximately(3.96) == true)

        // Stored samples whose decode times go back fail the writer with an AVError (FFmpeg's MP4
        // muxer would write them with made-up times: presentation and decode both one tick on).
        let again = try AVAssetReader(asset: source)
        let stored = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        again.add(stored)
        again.startReading()
        var samples: [CMSampleBuffer] = []
        for try await sample in stored.sampleBuffers where samples.count < 3 { samples.append(sample) }
        let backwards = try AVAssetWriter(outputURL: try Self.output("backwards.mp4"), fileType: .mp4)
        let copy = AVAssetWriterInput(mediaType: .video, outputSettings: nil, sourceFormatHint: hint)
        backwards.add(copy)
        #expect(backwards.startWriting())
        backwards.startSession(atSourceTime: .zero)
        #expect(copy.append(samples[0]) && copy.append(samples[2]))
        #expect(!copy.append(samples[1]))
        #expect(backwards.status == .failed && (backwards.error as? AVError)?.code == .operationNotAllowed, "\(String(describing: backwards.error))")
    }

    // MARK: Sessions, fragments, network use

    @Test("a session from 1 s: earlier pictures are dropped and the first written is at zero")
    func sessionStart() async throws {
        let url = try Self.output("session.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: Self.bgra)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: CMTime(value: 1, timescale: 1))
        writer.endSession(atSourceTime: CMTime(value: 3, timescale: 2))
        let pool = try #require(adaptor.pixelBufferPool)
        for n in 0..<60 {
            await until("ready") { input.isReadyForMoreMediaData }
            var made: CVPixelBuffer?
            CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
            let buffer = try #require(made)
            Self.paint(buffer, red: 100, green: 100, blue: 100, level: UInt8(4 * n))
            #expect(adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(n), timescale: 30)))
        }
        await writer.finishWriting()
        #expect(writer.status == .completed)
        let frames = try await Self.readBack(url, .video, settings: Self.bgra)
        // Pictures 30 to 44 (1 s to 1.5 s), the first at zero.
        #expect(frames.count == 15)
        #expect(frames.first?.presentationTimeStamp == .zero)
        let grey = try #require(frames.first?.imageBuffer).map { Self.pixel($0, 280, 120).g }
        #expect(abs((grey ?? 0) - 120) <= 12, "\(String(describing: grey))")
    }

    @Test("fragments and the index first, as the writer is asked")
    func layouts() async throws {
        func atoms(_ url: URL) throws -> [String] {
            let data = try Data(contentsOf: url)
            var names: [String] = []
            var offset = 0
            while offset + 8 <= data.count {
                let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                names.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
                guard size >= 8 else { break }
                offset += size
            }
            return names
        }
        let fragmented = try Self.output("fragments.mp4")
        _ = try await Self.writePictures(to: fragmented, count: 60, settings: Self.h264) { writer, _ in
            writer.movieFragmentInterval = CMTime(value: 1, timescale: 2)
        }
        let fragments = try atoms(fragmented)
        #expect(fragments.filter { $0 == "moof" }.count >= 2, "\(fragments)")
        let fast = try Self.output("fast.mp4")
        _ = try await Self.writePictures(to: fast, count: 10, settings: Self.h264) { writer, _ in writer.shouldOptimizeForNetworkUse = true }
        let order = try atoms(fast)
        #expect((order.firstIndex(of: "moov") ?? 99) < (order.firstIndex(of: "mdat") ?? 0), "\(order)")
    }

    // MARK: Misuse and failures

    @Test("misuse fails the writer with a reason, never traps")
    func misuse() async throws {
        let url = try Self.output("misuse.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        #expect(writer.startWriting())
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, 320, 240, kCVPixelFormatType_32BGRA, nil, &made)
        let buffer = try #require(made)
        // Before a session: refused, and the writer fails.
        #expect(!adaptor.append(buffer, withPresentationTime: .zero))
        #expect(writer.status == .failed)
        #expect((writer.error as? AVError)?.errorDescription?.contains("startSession") == true)
        #expect(!FileManager.default.fileExists(atPath: url.path), "a failed writer leaves no file")
        writer.add(AVAssetWriterInput(mediaType: .audio, outputSettings: nil))
        #expect(!writer.startWriting())

        // Pictures out of order.
        let order = try AVAssetWriter(outputURL: try Self.output("order.mp4"), fileType: .mp4)
        let video = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let pictures = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
        order.add(video)
        #expect(order.startWriting())
        order.startSession(atSourceTime: .zero)
        #expect(pictures.append(buffer, withPresentationTime: CMTime(value: 2, timescale: 30)))
        #expect(!pictures.append(buffer, withPresentationTime: CMTime(value: 1, timescale: 30)))
        #expect(order.status == .failed && (order.error as? AVError)?.code == .operationNotAllowed)

        // A file already there.
        let existing = try Self.output("exists.mp4")
        try Data([1]).write(to: existing)
        let second = try AVAssetWriter(outputURL: existing, fileType: .mp4)
        second.add(AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264))
        #expect(!second.startWriting())
        #expect((second.error as? AVError)?.code == .fileAlreadyExists)
        #expect(try Data(contentsOf: existing) == Data([1]))

        // A file type Avocet does not write, and a URL that is not a file.
        #expect(throws: AVError.self) { try AVAssetWriter(outputURL: existing, fileType: .wav) }
        #expect(throws: AVError.self) { try AVAssetWriter(outputURL: URL(string: "https://example.com/x.mp4")!, fileType: .mp4) }
    }

    @Test("settings a writer cannot use: canApply and canAdd false")
    func badSettings() throws {
        let writer = try AVAssetWriter(outputURL: try Self.output("bad.mp4"), fileType: .mp4)
        let cases: [(AVMediaType, [String: Any]?)] = [
            (.video, [AVVideoWidthKey: 320, AVVideoHeightKey: 240]),
            (.video, [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 320]),
            (.video, [AVVideoCodecKey: "vp09", AVVideoWidthKey: 320, AVVideoHeightKey: 240]),
            (.video, [AVVideoCodecKey: AVVideoCodecType.proRes422, AVVideoWidthKey: 320, AVVideoHeightKey: 240]),
            (.video, [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 320, AVVideoHeightKey: 240,
                      AVVideoCompressionPropertiesKey: [AVVideoQualityKey: 2.0]]),
            (.video, [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 320, AVVideoHeightKey: 240,
                      AVVideoCompressionPropertiesKey: ["Bogus": 1]]),
            (.video, [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA]),
            (.audio, [AVFormatIDKey: kAudioFormatMPEG4AAC]),
            (.audio, [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2]),
            (.audio, [AVFormatIDKey: kAudioFormatOpus, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2]),
            // Rates that are no number of bits a second are refused, not trapped on.
            (.audio, [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2, AVEncoderBitRateKey: Double.nan]),
            (.audio, [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2,
                      AVEncoderBitRatePerChannelKey: Double.infinity]),
            (.audio, nil),
        ]
        for (mediaType, settings) in cases {
            #expect(!writer.canApply(outputSettings: settings, forMediaType: mediaType), "\(String(describing: settings))")
            #expect(!writer.canAdd(AVAssetWriterInput(mediaType: mediaType, outputSettings: settings)), "\(String(describing: settings))")
        }
        #expect(writer.canApply(outputSettings: Self.h264, forMediaType: .video))
        #expect(writer.status == .unknown)
    }

    @Test("cancelWriting stops at once and removes the file")
    func cancel() async throws {
        let url = try Self.output("cancelled.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: Self.bgra)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        #expect(FileManager.default.fileExists(atPath: url.path))
        let pool = try #require(adaptor.pixelBufferPool)
        for n in 0..<5 {
            await until("ready") { input.isReadyForMoreMediaData }
            var made: CVPixelBuffer?
            CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
            adaptor.append(try #require(made), withPresentationTime: CMTime(value: Int64(n), timescale: 30))
        }
        writer.cancelWriting()
        #expect(writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!input.isReadyForMoreMediaData)
        await writer.finishWriting()
        #expect(writer.status == .cancelled)
    }
}

private extension Double {
    func isApproximately(_ other: Double) -> Bool { abs(self - other) < 0.002 }
}
