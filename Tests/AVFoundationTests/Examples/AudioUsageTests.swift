import AVFoundation
import FixtureSupport
import Foundation
import Testing

// MARK: - Extensions in the shapes projects add to Apple's classes

extension AVAudioPCMBuffer {
    /// A whole file in one buffer: a convenience initializer in an extension that calls the designated
    /// `init?(pcmFormat:frameCapacity:)` and then reads (failable and throwing at once), as AudioKit adds.
    fileprivate convenience init?(wholeFile file: AVAudioFile) throws {
        file.framePosition = 0
        self.init(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))
        try file.read(into: self)
    }

    /// Appends another buffer's frames after this one's, as WhisperKit's and AudioKit's `append` do:
    /// `format == buffer.format`, pointer arithmetic on `floatChannelData`, `frameLength +=`.
    fileprivate func appendFrames(of buffer: AVAudioPCMBuffer) -> Bool {
        guard format == buffer.format, frameLength + buffer.frameLength <= frameCapacity,
              let destination = floatChannelData, let source = buffer.floatChannelData else { return false }
        for channel in 0..<Int(format.channelCount) {
            memcpy(destination[channel] + Int(frameLength), source[channel], Int(buffer.frameLength) * MemoryLayout<Float>.size)
        }
        frameLength += buffer.frameLength
        return true
    }

    /// The first channel as an array, through `floatChannelData?.pointee` (WhisperKit's `asFloatArray`).
    fileprivate var firstChannel: [Float] {
        guard let data = floatChannelData?.pointee else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(frameLength)))
    }
}

extension AVAudioFile {
    /// The file's seconds, as AudioKit's extension computes them.
    fileprivate var seconds: TimeInterval { Double(length) / fileFormat.sampleRate }

    /// A file written from one buffer in the buffer's own settings: a convenience initializer in an
    /// extension calling `init(forWriting:settings:)`, as AudioKit's `init(url:fromBuffer:)` does.
    fileprivate convenience init(url: URL, writing buffer: AVAudioPCMBuffer) throws {
        try self.init(forWriting: url, settings: buffer.format.settings)
        framePosition = 0
        try write(from: buffer)
    }
}

extension Data {
    /// A buffer's bytes through `audioBufferList.pointee.mBuffers`, as apps that send PCM over the network do.
    fileprivate init(pcmBuffer buffer: AVAudioPCMBuffer) {
        let audioBuffer = buffer.audioBufferList.pointee.mBuffers
        self.init(bytes: audioBuffer.mData!, count: Int(audioBuffer.mDataByteSize))
    }

    /// The bytes back in a buffer of `format`: capacity from `mBytesPerFrame`, `frameLength` set to
    /// the capacity, the bytes copied to `mData` for `mDataByteSize` bytes.
    fileprivate func makePCMBuffer(format: AVAudioFormat) -> AVAudioPCMBuffer? {
        let streamDesc = format.streamDescription.pointee
        let frameCapacity = UInt32(count) / streamDesc.mBytesPerFrame
        guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameCapacity) else { return nil }
        buffer.frameLength = buffer.frameCapacity
        let audioBuffer = buffer.audioBufferList.pointee.mBuffers
        withUnsafeBytes { addr in
            if let base = addr.baseAddress { audioBuffer.mData?.copyMemory(from: base, byteCount: Int(audioBuffer.mDataByteSize)) }
        }
        return buffer
    }
}

/// A sound-effect player in the shape apps write: players kept in a `Set<AVAudioPlayer>` until the
/// delegate says they finished (iMMPI, the SEManager pattern). The lock is ours: Avocet calls the
/// delegate on a queue of the player's, where Apple's is observed to call it on the main thread.
final class SoundEffects: NSObject, AVAudioPlayerDelegate {
    private let lock = NSLock()
    private var players = Set<AVAudioPlayer>()
    private var flags: [Bool] = []

    var playing: Int { lock.withLock { players.count } }
    var finished: [Bool] { lock.withLock { flags } }

    func play(_ url: URL) -> AVAudioPlayer? {
        guard let player = try? AVAudioPlayer(contentsOf: url) else { return nil }
        player.audioDevice = AudioWork.AudioUsageTests.nullDevice  // Avocet only: no sound card in tests.
        player.delegate = self
        player.numberOfLoops = 0
        player.prepareToPlay()
        player.play()
        lock.withLock { _ = players.insert(player) }
        return player
    }

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        lock.withLock {
            players.remove(player)
            flags.append(flag)
        }
    }
}

/// A main-actor view model with a `nonisolated` delegate method that hops back with
/// `Task { @MainActor in }`, as SwiftUI apps written for Swift 6 do.
@MainActor
final class PlaybackModel: NSObject, AVAudioPlayerDelegate {
    private var player: AVAudioPlayer?
    private(set) var isPlaying = false
    private(set) var finishes = 0
    private(set) var duration: TimeInterval = 0

    func load(_ url: URL) throws {
        player?.stop()
        player = try AVAudioPlayer(contentsOf: url)
        player?.audioDevice = AudioWork.AudioUsageTests.nullDevice  // Avocet only.
        player?.delegate = self
        player?.prepareToPlay()
        duration = player?.duration ?? 0
    }

    func play() {
        guard let player else { return }
        isPlaying = player.play()
    }

    nonisolated func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        Task { @MainActor in
            self.isPlaying = false
            self.finishes += 1
        }
    }
}

extension AudioWork {
    /// How open-source Swift code written for Apple's platforms uses AVFAudio's files, buffers, converter
    /// and player, pinned down on the audio fixtures. Each test uses the API in the shapes those projects
    /// use it (initializers and labels, force unwraps, input blocks capturing and mutating local `var`s,
    /// `NSError` handling) and checks the numbers that come out. The code is ours; the shapes mirror:
    ///
    /// - `transcriberLoadsSixteenKilohertzMono`: FluidAudio, WhisperKit, mlx-audio-swift.
    /// - `chunkedResamplingWithTheSameBufferEveryCall`: WhisperKit.
    /// - `microphoneBufferToInt16`: TensorFlow Lite's speech_commands example.
    /// - `streamingOneConverterWithNoDataNow`: dictation and voice apps converting microphone taps (the
    ///   `.noDataNow` pattern); mlx-audio-swift (the end-of-stream flush).
    /// - `pullingFromTheFileInsideTheBlock`: a dictation app built on WhisperKit (the block reads the file).
    /// - `inMemoryConversionWithConvertToFrom`: mlx-audio-swift, spokestack-ios.
    /// - `sampleBuffersFromAnAssetReader`: FluidAudio.
    /// - `pcmAsDataThroughTheBufferList`: voice-chat and streaming apps that send PCM as `Data`.
    /// - `wholeFileInOneBuffer`: FluidAudio, mlx-audio-swift, AudioKit, SoundWave, SoundcloudWaveform.
    /// - `chunkedReadingFromAFramePosition`: WhisperKit, RingtoneApp.
    /// - `waveformBucketPeaks`: RingtoneApp, SoundWave.
    /// - `writingWavFilesFromBuffers`: mlx-audio-swift, whisper.cpp's SwiftUI example, AudioKit, LemonWhisper, RingtoneApp.
    /// - `errorsAreNSErrors`: AudioKit, Aural Player.
    /// - `soundEffectsPlayToTheEnd`, `viewModelPlaysWithANonisolatedDelegate`: iMMPI, whisper.cpp's SwiftUI
    ///   example, mlx-audio-swift.
    @Suite("Audio usage in open-source projects")
    struct AudioUsageTests {
        /// ALSA's null device, defined on the spot: players pace on the host clock, silently.
        static let nullDevice = (name: "avocetnull", configuration: Optional("pcm.avocetnull { type null }"))

        // MARK: - Measuring

        /// The amplitude of a sine at `frequency` in `samples` (Goertzel's filter): 0.5 for the fixtures'.
        static func amplitude(of samples: some Collection<Float>, rate: Double, at frequency: Double) -> Double {
            let c = 2 * cos(2 * Double.pi * frequency / rate)
            var s1 = 0.0, s2 = 0.0
            for v in samples {
                let s0 = Double(v) + c * s1 - s2
                s2 = s1
                s1 = s0
            }
            let power = max(0, s1 * s1 + s2 * s2 - c * s1 * s2)
            return 2 * power.squareRoot() / Double(max(1, samples.count))
        }

        /// The frequency in `range` (every `step` Hz) where `samples` are loudest.
        static func peakFrequency(of samples: [Float], rate: Double, in range: ClosedRange<Double> = 100...2_000, step: Double = 10) -> Double {
            var best = (frequency: 0.0, amplitude: -1.0)
            for frequency in stride(from: range.lowerBound, through: range.upperBound, by: step) {
                let a = amplitude(of: samples, rate: rate, at: frequency)
                if a > best.amplitude { best = (frequency, a) }
            }
            return best.frequency
        }

        static func rms(_ samples: some Collection<Float>) -> Double {
            (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
        }

        static func peak(_ samples: some Collection<Float>) -> Float {
            samples.reduce(0) { max($0, abs($1)) }
        }

        static func temporaryURL(_ fileExtension: String) -> URL {
            FileManager.default.temporaryDirectory.appendingPathComponent("avocet-usage-\(UUID().uuidString).\(fileExtension)")
        }

        /// sine-mono.wav (1 s of a 1000 Hz sine at 0.5) converted at once to 16 kHz mono Float32, the way
        /// the transcription packages do it; the samples and the first call's frames.
        static func sixteenKilohertzMono(_ name: String = "sine-mono.wav") throws -> (samples: [Float], firstCall: Int, statuses: [AVAudioConverterOutputStatus]) {
            let file = try AVAudioFile(forReading: Fixtures.audioFile(name).url, commonFormat: .pcmFormatFloat32, interleaved: false)
            let frameCount = AVAudioFrameCount(file.length)
            guard let input = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: frameCount) else {
                throw NSError(domain: "AudioUsageTests", code: 1)
            }
            try file.read(into: input)
            let target = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)!
            guard let converter = AVAudioConverter(from: input.format, to: target) else { throw NSError(domain: "AudioUsageTests", code: 2) }

            let ratio = target.sampleRate / input.format.sampleRate
            let estimated = AVAudioFrameCount((Double(input.frameLength) * ratio).rounded(.up))
            var provided = false
            let inputBlock: AVAudioConverterInputBlock = { _, status in
                if !provided {
                    provided = true
                    status.pointee = .haveData
                    return input
                }
                status.pointee = .endOfStream
                return nil
            }
            var error: NSError?
            var samples: [Float] = []
            var statuses: [AVAudioConverterOutputStatus] = []
            let first = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: estimated)!
            let firstStatus = converter.convert(to: first, error: &error, withInputFrom: inputBlock)
            statuses.append(firstStatus)
            guard firstStatus != .error else { throw error ?? NSError(domain: "AudioUsageTests", code: 3) }
            samples += Array(UnsafeBufferPointer(start: first.floatChannelData?[0], count: Int(first.frameLength)))
            // Drain what the converter holds, until it says the stream ended (bounded: a converter that
            // never says so fails the test instead of hanging it).
            for _ in 0..<64 {
                guard let out = AVAudioPCMBuffer(pcmFormat: target, frameCapacity: 4096) else { break }
                let status = converter.convert(to: out, error: &error, withInputFrom: inputBlock)
                statuses.append(status)
                guard status != .error else { throw error ?? NSError(domain: "AudioUsageTests", code: 4) }
                if out.frameLength > 0 { samples += Array(UnsafeBufferPointer(start: out.floatChannelData?[0], count: Int(out.frameLength))) }
                if status == .endOfStream { break }
            }
            return (samples, Int(first.frameLength), statuses)
        }

        // MARK: - Converting to 16 kHz mono, as transcribers do

        @Test func transcriberLoadsSixteenKilohertzMono() throws {
            let (samples, firstCall, statuses) = try Self.sixteenKilohertzMono()
            #expect(samples.count == 16_000, "1 s at 16 kHz: \(samples.count) samples")
            #expect(firstCall == 16_000, "the first call fills the buffer sized by the ratio: \(firstCall)")
            #expect(statuses.first == .haveData && statuses.last == .endOfStream, "haveData, then endOfStream once drained: \(statuses.map(\.rawValue))")
            #expect(Self.peakFrequency(of: samples, rate: 16_000, in: 100...7_900) == 1_000, "the 1000 Hz sine stays at 1000 Hz")
            #expect(abs(Self.amplitude(of: samples[800..<15_200], rate: 16_000, at: 1_000) - 0.5) < 0.005, "at its level, 0.5")
            #expect(abs(Self.rms(samples[800..<15_200]) - 0.5 / 2.0.squareRoot()) < 0.004, "RMS of a 0.5 sine: \(Self.rms(samples[800..<15_200]))")
            #expect(Self.peak(samples) < 0.52, "no overshoot beyond the sine's peak: \(Self.peak(samples))")
            // FFmpeg's own resampling of the same file (aresample): the same sound, sample for sample
            // away from the edges.
            let reference = try Fixtures.audioReference("sine-mono-16k.f32").samples()
            let difference = zip(samples[800..<15_200], reference[800..<15_200]).map { $0 - $1 }
            #expect(Self.rms(difference) < 0.01, "close to ffmpeg's resampling: RMS difference \(Self.rms(difference))")
        }

        @Test func chunkedResamplingWithTheSameBufferEveryCall() throws {
            // WhisperKit's loadAudio(fromFile:startTime:endTime:) path: seek with framePosition, read
            // chunks of at most maxReadFrameSize, keep one channel by hand, resample each chunk with a new
            // converter whose input block hands back the same chunk whenever asked.
            let audioFile = try AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url, commonFormat: .pcmFormatFloat32, interleaved: false)
            let sampleRate = audioFile.fileFormat.sampleRate
            #expect(audioFile.fileFormat.channelCount == 2)
            let startFrame = AVAudioFramePosition(0.25 * sampleRate)
            let endFrame = min(AVAudioFramePosition(0.75 * sampleRate), AVAudioFramePosition(audioFile.length))
            let maxReadFrameSize: AVAudioFrameCount = 4_410
            audioFile.framePosition = startFrame
            guard let outputFormat = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1) else {
                Issue.record("no 16 kHz mono standard format")
                return
            }
            let inputDuration = Double(endFrame - startFrame) / sampleRate
            let outputBuffer = try #require(AVAudioPCMBuffer(pcmFormat: outputFormat, frameCapacity: AVAudioFrameCount(inputDuration * outputFormat.sampleRate)))
            let inputBuffer = AVAudioPCMBuffer(pcmFormat: audioFile.processingFormat, frameCapacity: maxReadFrameSize)!
            var chunkLengths: [AVAudioFrameCount] = []
            while audioFile.framePosition < endFrame {
                let framesToRead = min(AVAudioFrameCount(endFrame - audioFile.framePosition), maxReadFrameSize)
                try audioFile.read(into: inputBuffer, frameCount: framesToRead)
                // One channel, by hand (WhisperKit's .specificChannel(0)).
                let monoFormat = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: inputBuffer.format.sampleRate, channels: 1,
                                                            interleaved: false))
                let monoBuffer = try #require(AVAudioPCMBuffer(pcmFormat: monoFormat, frameCapacity: inputBuffer.frameCapacity))
                monoBuffer.frameLength = inputBuffer.frameLength
                let channelData = try #require(inputBuffer.floatChannelData)
                memcpy(monoBuffer.floatChannelData![0], channelData[0], Int(inputBuffer.frameLength) * MemoryLayout<Float>.size)

                let converter = try #require(AVAudioConverter(from: monoBuffer.format, to: outputFormat))
                var capacity = converter.outputFormat.sampleRate * Double(monoBuffer.frameLength) / converter.inputFormat.sampleRate
                if capacity.truncatingRemainder(dividingBy: 1) != 0 { capacity = max(1, capacity.rounded(.toNearestOrEven)) }
                let converted = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: AVAudioFrameCount(capacity)))
                let inputBlock: AVAudioConverterInputBlock = { _, outStatus in
                    if monoBuffer.frameLength == 0 {
                        outStatus.pointee = .endOfStream
                        return nil
                    }
                    outStatus.pointee = .haveData
                    return monoBuffer
                }
                var error: NSError?
                let status = converter.convert(to: converted, error: &error, withInputFrom: inputBlock)
                if status == .error, let conversionError = error {
                    Issue.record("conversion failed: \(conversionError)")
                    return
                }
                #expect(status == .haveData, "a chunk given again whenever asked fills the output: \(status.rawValue)")
                chunkLengths.append(converted.frameLength)
                #expect(outputBuffer.appendFrames(of: converted), "the chunk fits the output buffer")
            }
            #expect(chunkLengths == [1_600, 1_600, 1_600, 1_600, 1_600], "each 0.1 s chunk fills its 1600-frame buffer: \(chunkLengths)")
            #expect(audioFile.framePosition == endFrame)
            let samples = outputBuffer.firstChannel
            #expect(samples.count == 8_000, "0.5 s at 16 kHz: \(samples.count)")
            #expect(Self.peakFrequency(of: samples, rate: 16_000, in: 100...2_000) == 440, "the left channel's 440 Hz")
            #expect(Self.amplitude(of: samples, rate: 16_000, at: 880) < 0.01, "and not the right channel's 880 Hz")
            #expect(abs(Self.amplitude(of: samples, rate: 16_000, at: 440) - 0.5) < 0.05, "at about its level: \(Self.amplitude(of: samples, rate: 16_000, at: 440))")
        }

        @Test func microphoneBufferToInt16() throws {
            // TensorFlow Lite's speech_commands example: a tap buffer converted to 16 kHz Int16 with an
            // input block that always has data, into a buffer of two seconds.
            let file = try AVAudioFile(forReading: Fixtures.audioFile("sine-mono.wav").url)
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
            try file.read(into: buffer)
            let inputFormat = buffer.format
            let recordingFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 1, interleaved: true)
            guard let formatConverter = AVAudioConverter(from: inputFormat, to: recordingFormat!) else {
                Issue.record("no converter to 16 kHz Int16")
                return
            }
            let pcmBuffer = AVAudioPCMBuffer(pcmFormat: recordingFormat!, frameCapacity: AVAudioFrameCount(recordingFormat!.sampleRate * 2.0))
            var error: NSError? = nil
            let inputBlock: AVAudioConverterInputBlock = { inNumPackets, outStatus in
                outStatus.pointee = AVAudioConverterInputStatus.haveData
                return buffer
            }
            // The example drops the status; Apple's imported method may be called so without a warning.
            _ = formatConverter.convert(to: pcmBuffer!, error: &error, withInputFrom: inputBlock)
            #expect(error == nil, "\(String(describing: error))")
            let channelData = try #require(pcmBuffer!.int16ChannelData)
            let channelDataValue = channelData.pointee
            let channelDataValueArray = stride(from: 0, to: Int(pcmBuffer!.frameLength), by: buffer.stride).map { channelDataValue[$0] }
            #expect(channelDataValueArray.count == 32_000, "the block always has data: the 2 s buffer fills: \(channelDataValueArray.count)")
            let firstSecond = channelDataValueArray[0..<16_000].map { Float($0) / 32_768 }
            #expect(Self.peakFrequency(of: firstSecond, rate: 16_000, in: 100...7_900) == 1_000)
            let top = channelDataValueArray[800..<15_200].map { Int(abs(Int32($0))) }.max() ?? 0
            #expect(abs(top - 16_384) < 200, "0.5 of full scale as Int16: \(top)")
        }

        @Test func streamingOneConverterWithNoDataNow() throws {
            // Tap-style streaming: one converter for the whole stream, a 0.1 s buffer at a time, the block
            // giving it once and then `.noDataNow`; a last call with `.endOfStream` flushes the rest.
            let file = try AVAudioFile(forReading: Fixtures.audioFile("sine-mono.wav").url)
            let target = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)!
            let converter = try #require(AVAudioConverter(from: file.processingFormat, to: target))
            var streamed: [Float] = []
            var statuses: [AVAudioConverterOutputStatus] = []
            while file.framePosition < file.length {
                let chunk = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4_410))
                try file.read(into: chunk)
                let ratio = target.sampleRate / chunk.format.sampleRate
                let capacity = AVAudioFrameCount((Double(chunk.frameLength) * ratio).rounded(.up) + 32)
                let output = try #require(AVAudioPCMBuffer(pcmFormat: target, frameCapacity: capacity))
                var consumed = false
                var conversionError: NSError?
                let status = converter.convert(to: output, error: &conversionError) { _, outStatus in
                    if consumed {
                        outStatus.pointee = .noDataNow
                        return nil
                    }
                    consumed = true
                    outStatus.pointee = .haveData
                    return chunk
                }
                if let conversionError {
                    Issue.record("conversion failed: \(conversionError)")
                    return
                }
                statuses.append(status)
                if let data = output.floatChannelData?[0] { streamed += Array(UnsafeBufferPointer(start: data, count: Int(output.frameLength))) }
            }
            #expect(statuses.count == 10 && statuses.allSatisfy { $0 == .inputRanDry }, "each piece runs dry: \(statuses.map(\.rawValue))")
            #expect(streamed.count > 15_800 && streamed.count <= 16_000, "all but the resampler's delay: \(streamed.count)")
            // The end of the stream: the block says so, the converter gives what it held.
            let tail = try #require(AVAudioPCMBuffer(pcmFormat: target, frameCapacity: 1_024))
            var error: NSError?
            let last = converter.convert(to: tail, error: &error) { _, outStatus in
                outStatus.pointee = .endOfStream
                return nil
            }
            streamed += tail.firstChannel
            #expect(last == .haveData && tail.frameLength > 0, "the held frames come out: \(last.rawValue), \(tail.frameLength)")
            #expect(streamed.count == 16_000, "pieces add up to the whole: \(streamed.count)")
            let again = converter.convert(to: tail, error: nil) { _, outStatus in
                outStatus.pointee = .endOfStream
                return nil
            }
            #expect(again == .endOfStream && tail.frameLength == 0, "then the stream has ended")
            // Converting in pieces gives what converting at once gives.
            let whole = try Self.sixteenKilohertzMono().samples
            let worst = zip(streamed, whole).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 1e-5, "streamed and one-shot conversions agree: \(worst)")
        }

        @Test func pullingFromTheFileInsideTheBlock() throws {
            // The input block reads the file itself, as many frames as the converter asks for; small output
            // buffers until the end of the stream. Stereo to mono: by default Apple's converter remaps (the
            // left channel), with `downmix` it mixes.
            func transcode(downmix: Bool) throws -> [Float] {
                let file = try AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url)
                let srcFormat = file.processingFormat
                guard let dstFormat = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000.0, channels: 1, interleaved: false),
                      let converter = AVAudioConverter(from: srcFormat, to: dstFormat) else {
                    throw NSError(domain: "AudioUsageTests", code: 5)
                }
                converter.downmix = downmix
                let srcCapacity: AVAudioFrameCount = 4_096
                let srcBuffer = AVAudioPCMBuffer(pcmFormat: srcFormat, frameCapacity: srcCapacity)!
                let outChunk: AVAudioFrameCount = 1_024
                var finished = false
                var requests: [AVAudioPacketCount] = []
                var output: [Float] = []
                output.reserveCapacity(Int(file.length))
                for _ in 0..<200 where !finished {
                    guard let outBuffer = AVAudioPCMBuffer(pcmFormat: dstFormat, frameCapacity: outChunk) else { break }
                    var convError: NSError?
                    let status = converter.convert(to: outBuffer, error: &convError, withInputFrom: { requestedPackets, outStatus in
                        requests.append(requestedPackets)
                        if finished {
                            outStatus.pointee = .noDataNow
                            return nil
                        }
                        let framesToRead = min(srcCapacity, requestedPackets)
                        do {
                            try file.read(into: srcBuffer, frameCount: framesToRead)
                        } catch {
                            finished = true
                            outStatus.pointee = .endOfStream
                            return nil
                        }
                        if srcBuffer.frameLength == 0 {
                            finished = true
                            outStatus.pointee = .endOfStream
                            return nil
                        }
                        outStatus.pointee = .haveData
                        return srcBuffer
                    })
                    if status == .error { throw convError ?? NSError(domain: "AudioUsageTests", code: 6) }
                    let frames = Int(outBuffer.frameLength)
                    if frames > 0, let ch = outBuffer.floatChannelData {
                        output.append(contentsOf: UnsafeBufferPointer(start: ch[0], count: frames))
                    } else if status == .endOfStream || finished {
                        break
                    }
                }
                #expect(requests.allSatisfy { $0 > 0 }, "the converter asks for at least one packet: \(requests.filter { $0 == 0 }.count) zero requests")
                #expect(finished, "the whole file was read")
                return output
            }
            let remapped = try transcode(downmix: false)
            #expect(remapped.count == 16_000, "1 s at 16 kHz: \(remapped.count)")
            let body = remapped[800..<15_200]
            #expect(abs(Self.amplitude(of: body, rate: 16_000, at: 440) - 0.5) < 0.005, "the left channel at its level")
            #expect(Self.amplitude(of: body, rate: 16_000, at: 880) < 0.001, "without the right channel (no downmix by default)")
            let mixed = try transcode(downmix: true)
            #expect(mixed.count == 16_000, "\(mixed.count)")
            let left = Self.amplitude(of: mixed[800..<15_200], rate: 16_000, at: 440)
            let right = Self.amplitude(of: mixed[800..<15_200], rate: 16_000, at: 880)
            #expect(left > 0.2 && right > 0.2 && abs(left - right) < 0.01, "downmix mixes both channels alike: \(left), \(right)")
            #expect(Self.peak(mixed) <= 1, "and does not clip")
        }

        @Test func inMemoryConversionWithConvertToFrom() throws {
            // A buffer already in memory, converted in one call: Float32 stereo to Int16 mono at the same
            // rate (the left channel), then Int16 interleaved stereo back to the standard format.
            let input = try AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url)
            let frameCount = AVAudioFrameCount(input.length)
            let inputBuffer = try #require(AVAudioPCMBuffer(pcmFormat: input.processingFormat, frameCapacity: frameCount))
            try input.read(into: inputBuffer)
            let targetFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: input.processingFormat.sampleRate, channels: 1, interleaved: false)!
            let converter = AVAudioConverter(from: input.processingFormat, to: targetFormat)!
            let outputBuffer = try #require(AVAudioPCMBuffer(pcmFormat: targetFormat, frameCapacity: frameCount))
            try converter.convert(to: outputBuffer, from: inputBuffer)
            let samples = Array(UnsafeBufferPointer(start: outputBuffer.int16ChannelData![0], count: Int(outputBuffer.frameLength)))
            #expect(samples.count == 44_100)

            // The file's own 16-bit samples, read interleaved (spokestack-ios's way of reading Int16).
            let raw = try AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url, commonFormat: .pcmFormatInt16, interleaved: true)
            let rawBuffer = AVAudioPCMBuffer(pcmFormat: raw.processingFormat, frameCapacity: AVAudioFrameCount(raw.length))!
            try raw.read(into: rawBuffer)
            #expect(rawBuffer.stride == 2 && rawBuffer.format.isInterleaved)
            let interleaved = Array(UnsafeBufferPointer(start: rawBuffer.int16ChannelData![0], count: Int(rawBuffer.frameLength) * rawBuffer.stride))
            let leftOnDisk = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }
            let worst = zip(samples, leftOnDisk).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(worst <= 1, "16-bit samples through Float32 and back are the file's: off by \(worst)")

            // Back the other way: interleaved Int16 stereo to the standard deinterleaved Float32.
            let back = try #require(AVAudioConverter(from: rawBuffer.format, to: input.processingFormat))
            let floats = try #require(AVAudioPCMBuffer(pcmFormat: input.processingFormat, frameCapacity: rawBuffer.frameLength))
            try back.convert(to: floats, from: rawBuffer)
            #expect(floats.frameLength == rawBuffer.frameLength)
            let right = Array(UnsafeBufferPointer(start: floats.floatChannelData?[1], count: Int(floats.frameLength)))
            let rightRead = Array(UnsafeBufferPointer(start: inputBuffer.floatChannelData?[1], count: Int(inputBuffer.frameLength)))
            #expect(right == rightRead, "Int16 to Float32 gives what AVAudioFile's Float32 read gives")

            // convert(to:from:) does no sample-rate conversion: a 16 kHz output is refused with an NSError.
            let sixteen = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 2, interleaved: false)!
            let resampler = try #require(AVAudioConverter(from: input.processingFormat, to: sixteen))
            let small = try #require(AVAudioPCMBuffer(pcmFormat: sixteen, frameCapacity: frameCount))
            do {
                try resampler.convert(to: small, from: inputBuffer)
                Issue.record("convert(to:from:) resampled")
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio", "\(error)")
                #expect(small.frameLength == 0)
            }
        }

        @Test func sampleBuffersFromAnAssetReader() async throws {
            // FluidAudio's resampleSampleBuffer: a CMSampleBuffer's format as an AVAudioFormat, its PCM
            // copied into an AVAudioPCMBuffer's mutableAudioBufferList, then converted alone (a converter
            // per buffer, input once, drained to the end of the stream).
            let asset = AVURLAsset(url: Fixtures.audioFile("sine.flac").url)
            let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
                AVLinearPCMIsBigEndianKey: false, AVLinearPCMIsNonInterleaved: false,
            ])
            reader.add(output)
            #expect(reader.startReading())
            let (samples, pieces) = try await onOwnThread { () throws -> ([Float], Int) in
                let targetFormat = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)!
                var aggregated: [Float] = []
                var pieces = 0
                while let sampleBuffer = output.copyNextSampleBuffer() {
                    guard let formatDescription = CMSampleBufferGetFormatDescription(sampleBuffer),
                          let streamDescription = CMAudioFormatDescriptionGetStreamBasicDescription(formatDescription),
                          let sourceFormat = AVAudioFormat(streamDescription: streamDescription) else {
                        throw NSError(domain: "AudioUsageTests", code: 7)
                    }
                    let frameCount = AVAudioFrameCount(CMSampleBufferGetNumSamples(sampleBuffer))
                    guard frameCount > 0, let buffer = AVAudioPCMBuffer(pcmFormat: sourceFormat, frameCapacity: frameCount) else { continue }
                    buffer.frameLength = frameCount
                    let status = CMSampleBufferCopyPCMDataIntoAudioBufferList(sampleBuffer, at: 0, frameCount: Int32(frameCount),
                                                                              into: buffer.mutableAudioBufferList)
                    guard status == noErr, buffer.int16ChannelData != nil, sourceFormat.isInterleaved else {
                        throw NSError(domain: "AudioUsageTests", code: Int(status))
                    }
                    guard let converter = AVAudioConverter(from: buffer.format, to: targetFormat) else { throw NSError(domain: "AudioUsageTests", code: 8) }
                    let estimatedOutputFrames = AVAudioFrameCount((Double(buffer.frameLength) * targetFormat.sampleRate / sourceFormat.sampleRate).rounded(.up))
                    var provided = false
                    let inputBlock: AVAudioConverterInputBlock = { _, status in
                        if !provided {
                            provided = true
                            status.pointee = .haveData
                            return buffer
                        }
                        status.pointee = .endOfStream
                        return nil
                    }
                    var error: NSError?
                    var capacity = estimatedOutputFrames
                    for _ in 0..<16 {
                        guard let out = AVAudioPCMBuffer(pcmFormat: targetFormat, frameCapacity: capacity) else { break }
                        let status = converter.convert(to: out, error: &error, withInputFrom: inputBlock)
                        guard status != .error else { throw error ?? NSError(domain: "AudioUsageTests", code: 9) }
                        if out.frameLength > 0 { aggregated.append(contentsOf: UnsafeBufferPointer(start: out.floatChannelData![0], count: Int(out.frameLength))) }
                        if status == .endOfStream { break }
                        capacity = 4_096
                    }
                    pieces += 1
                }
                return (aggregated, pieces)
            }
            #expect(reader.status == .completed)
            #expect(pieces > 1, "the reader gives the second in several buffers: \(pieces)")
            #expect(abs(samples.count - 16_000) <= pieces, "each buffer converted alone: about 16000 samples in all: \(samples.count)")
            #expect(Self.peakFrequency(of: Array(samples[1_000..<9_000]), rate: 16_000) == 440, "the left channel")
            #expect(abs(Self.amplitude(of: samples[1_000..<9_000], rate: 16_000, at: 440) - 0.5) < 0.02)
        }

        @Test func pcmAsDataThroughTheBufferList() throws {
            // Voice-chat and streaming apps: a buffer's bytes as Data through the buffer list, and back.
            let file = try AVAudioFile(forReading: Fixtures.audioFile("sine-mono.wav").url, commonFormat: .pcmFormatInt16, interleaved: true)
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
            try file.read(into: buffer)
            let data = Data(pcmBuffer: buffer)
            #expect(data.count == 88_200, "44100 16-bit samples: \(data.count) bytes")
            let back = try #require(data.makePCMBuffer(format: file.processingFormat))
            #expect(back.frameLength == 44_100 && back.audioBufferList.pointee.mBuffers.mDataByteSize == 88_200)
            let original = Array(UnsafeBufferPointer(start: buffer.int16ChannelData?[0], count: Int(buffer.frameLength)))
            let copied = Array(UnsafeBufferPointer(start: back.int16ChannelData?[0], count: Int(back.frameLength)))
            #expect(copied == original && original.map { abs(Int($0)) }.max() == 16_384, "the same samples, the sine's peak at 16384")
            // mDataByteSize follows frameLength, both ways.
            back.frameLength = 100
            #expect(back.audioBufferList.pointee.mBuffers.mDataByteSize == 200 && Data(pcmBuffer: back).count == 200)
            back.mutableAudioBufferList.pointee.mBuffers.mDataByteSize = 400
            #expect(back.frameLength == 200, "setting the byte size sets the frame length")
        }

        // MARK: - Reading

        @Test(arguments: ["sine-s16.wav", "sine.aiff", "sine.caf", "sine.flac", "sine.mp3", "sine.m4a"])
        func wholeFileInOneBuffer(_ name: String) throws {
            let url = Fixtures.audioFile(name).url
            let lossy = name.hasSuffix(".mp3") || name.hasSuffix(".m4a")
            // The common shape: processingFormat, AVAudioFrameCount(file.length), read(into:).
            let audioFile = try AVAudioFile(forReading: url)
            let format = audioFile.processingFormat
            let frameCount = AVAudioFrameCount(audioFile.length)
            guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameCount) else {
                Issue.record("no buffer for \(name)")
                return
            }
            try audioFile.read(into: buffer)
            guard let floatChannelData = buffer.floatChannelData else {
                Issue.record("no float channel data")
                return
            }
            let left = Array(UnsafeBufferPointer(start: floatChannelData[0], count: Int(buffer.frameLength)))
            let right = Array(UnsafeBufferPointer(start: buffer.floatChannelData?[1], count: Int(buffer.frameLength)))
            #expect(buffer.frameLength == frameCount && frameCount == 44_100, "\(name): one second, all of it in one read: \(buffer.frameLength) of \(frameCount)")
            #expect(abs(audioFile.seconds - 1) < 0.001, "\(name): \(audioFile.seconds) s")
            // 0.2 s is enough for the frequency (88 and 176 whole cycles) and keeps the scan short.
            #expect(Self.peakFrequency(of: Array(left[4_410..<13_230]), rate: 44_100) == 440, "\(name): left at 440 Hz")
            #expect(Self.peakFrequency(of: Array(right[4_410..<13_230]), rate: 44_100) == 880, "\(name): right at 880 Hz")
            // sine.mp3 itself holds the sines at 0.475 (ffmpeg decodes the same); AAC keeps 0.498.
            let tolerance = lossy ? 0.03 : 0.001
            #expect(abs(Self.amplitude(of: left[4_410..<39_690], rate: 44_100, at: 440) - 0.5) < tolerance, "\(name): left at 0.5")
            #expect(abs(Self.amplitude(of: right[4_410..<39_690], rate: 44_100, at: 880) - 0.5) < tolerance, "\(name): right at 0.5")

            // The older shape: a Float32 format built from fileFormat, force unwraps, UInt32(file.length),
            // read(into:frameCount:), samples reached through floatChannelData![channel][i * stride].
            let file = try AVAudioFile(forReading: url)
            let floatFormat = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: file.fileFormat.sampleRate,
                                            channels: file.fileFormat.channelCount, interleaved: false)
            let all = AVAudioPCMBuffer(pcmFormat: floatFormat!, frameCapacity: UInt32(file.length))!
            try file.read(into: all, frameCount: UInt32(file.length))
            var same = true
            for i in Swift.stride(from: 0, to: Int(all.frameLength), by: 97) where all.floatChannelData![1][i * all.stride] != right[i] { same = false }
            #expect(same && all.frameLength == buffer.frameLength, "\(name): both shapes read the same samples")

            // AudioKit's extension initializer: the whole file through `self.init` and `read(into: self)`.
            let whole = try #require(try AVAudioPCMBuffer(wholeFile: file))
            #expect(whole.frameLength == frameCount, "\(name): \(whole.frameLength)")
            let worst = zip(whole.firstChannel, left).map { abs($0 - $1) }.max() ?? 1
            #expect(worst == 0, "\(name): read again from the start, the same samples: off by \(worst)")
        }

        @Test(arguments: ["sine-s16.wav", "sine.flac", "sine.mp3"])
        func chunkedReadingFromAFramePosition(_ name: String) throws {
            let url = Fixtures.audioFile(name).url
            let reference = try #require(try AVAudioPCMBuffer(wholeFile: AVAudioFile(forReading: url))).firstChannel
            // WhisperKit: seconds to frames, `framePosition = startFrame`, one read of the range.
            let audioFile = try AVAudioFile(forReading: url, commonFormat: .pcmFormatFloat32, interleaved: false)
            let sampleRate = audioFile.fileFormat.sampleRate
            let startFrame = AVAudioFramePosition(0.25 * sampleRate)
            let endFrame = min(AVAudioFramePosition(0.75 * sampleRate), AVAudioFramePosition(audioFile.length))
            let frameCount = AVAudioFrameCount(endFrame - startFrame)
            audioFile.framePosition = startFrame
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: audioFile.processingFormat, frameCapacity: frameCount))
            try audioFile.read(into: buffer, frameCount: frameCount)
            #expect(buffer.frameLength == 22_050 && audioFile.framePosition == endFrame, "\(name): \(buffer.frameLength) frames to \(audioFile.framePosition)")
            let range = buffer.firstChannel
            let expected = reference[Int(startFrame)..<Int(endFrame)]
            let worst = zip(range, expected).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < (name.hasSuffix(".mp3") ? 0.01 : 1e-7), "\(name): the range is the same samples as the whole file's: \(worst)")

            // RingtoneApp: from the start, `while framePosition < length`, a 4096-frame buffer reused.
            audioFile.framePosition = 0
            let chunk = AVAudioPCMBuffer(pcmFormat: audioFile.processingFormat, frameCapacity: 4_096)!
            var total = 0, reads = 0
            while audioFile.framePosition < audioFile.length, reads < 100 {
                try audioFile.read(into: chunk, frameCount: 4_096)
                total += Int(chunk.frameLength)
                reads += 1
            }
            #expect(total == 44_100 && reads == 11, "\(name): the loop ends at the length: \(total) frames in \(reads) reads")
            // One read more at the end gives nothing.
            try audioFile.read(into: chunk)
            #expect(chunk.frameLength == 0, "\(name): at the end a read gives no frames")
        }

        @Test func waveformBucketPeaks() throws {
            // A waveform view's bars: the file read in 4096-frame pieces from framePosition 0, the largest
            // magnitude over all channels in each bucket of length / count frames.
            func bucketPeaks(_ file: AVAudioFile, count targetSampleCount: Int) throws -> [Float] {
                let format = file.processingFormat
                let frameCount = Int(file.length)
                let channelCount = Int(format.channelCount)
                let samplesPerBucket = max(frameCount / targetSampleCount, 1)
                let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_096)!
                file.framePosition = 0
                var peaks: [Float] = []
                var current: Float = 0
                var inBucket = 0
                while file.framePosition < file.length {
                    try file.read(into: buffer, frameCount: 4_096)
                    guard let channelData = buffer.floatChannelData, buffer.frameLength > 0 else { break }
                    for frame in 0..<Int(buffer.frameLength) {
                        for channel in 0..<channelCount { current = max(current, abs(channelData[channel][frame])) }
                        inBucket += 1
                        if inBucket == samplesPerBucket {
                            peaks.append(current)
                            (current, inBucket) = (0, 0)
                        }
                    }
                }
                return Array(peaks.prefix(targetSampleCount))
            }
            let stereo = try bucketPeaks(AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url), count: 100)
            #expect(stereo.count == 100)
            #expect(stereo.allSatisfy { abs($0 - 0.5) < 0.001 }, "every 10 ms bar of the 0.5 sines is 0.5: \(stereo.min() ?? 0)...\(stereo.max() ?? 0)")

            // A file written half silent, half loud: the bars follow.
            let url = Self.temporaryURL("wav")
            defer { try? FileManager.default.removeItem(at: url) }
            do {
                let format = AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1)!
                let audioFile = try AVAudioFile(forWriting: url, settings: format.settings)
                let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 8_000)!
                buffer.frameLength = 8_000
                for i in 0..<8_000 { buffer.floatChannelData![0][i] = i < 4_000 ? 0 : 0.8 * sin(2 * .pi * 400 * Float(i) / 8_000) }
                try audioFile.write(from: buffer)
            }
            let bars = try bucketPeaks(AVAudioFile(forReading: url), count: 10)
            #expect(bars.count == 10)
            #expect(bars.prefix(5).allSatisfy { $0 == 0 } && bars.suffix(5).allSatisfy { abs($0 - 0.8) < 1e-6 }, "silent then 0.8: \(bars)")
        }

        // MARK: - Writing

        @Test func writingWavFilesFromBuffers() throws {
            let folder = FileManager.default.temporaryDirectory
            var written: [URL] = []
            defer { for url in written { try? FileManager.default.removeItem(at: url) } }

            // mlx-audio-swift's writeWavFile: Float32 mono samples into a buffer, the file's settings and
            // processing format taken from the buffer's format.
            let samples = (0..<24_000).map { Float(0.25 * sin(2 * Double.pi * 300 * Double($0) / 24_000)) }
            let floatURL = folder.appendingPathComponent("avocet-usage-\(UUID().uuidString).wav")
            written.append(floatURL)
            do {
                let frameCount = AVAudioFrameCount(samples.count)
                guard let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 24_000, channels: 1, interleaved: false),
                      let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameCount) else {
                    Issue.record("no format or buffer")
                    return
                }
                buffer.frameLength = frameCount
                let channelData = buffer.floatChannelData![0]
                for i in 0..<Int(frameCount) { channelData[i] = samples[i] }
                let audioFile = try AVAudioFile(forWriting: floatURL, settings: format.settings, commonFormat: format.commonFormat,
                                                interleaved: format.isInterleaved)
                try audioFile.write(from: buffer)
            }
            let floatFile = try AVAudioFile(forReading: floatURL)
            #expect((floatFile.fileFormat.settings[AVLinearPCMIsFloatKey] as? Bool) == true, "a Float32 WAV: \(floatFile.fileFormat.settings)")
            #expect((floatFile.fileFormat.settings[AVLinearPCMBitDepthKey] as? Int) == 32)
            #expect((floatFile.fileFormat.settings[AVSampleRateKey] as? Double) == 24_000)
            let floatBack = try #require(try AVAudioPCMBuffer(wholeFile: floatFile))
            #expect(floatBack.firstChannel == samples, "Float32 samples come back exactly")

            // mlx-audio-swift's StreamingWAVWriter: standard format settings, chunks through one reused
            // buffer, the file finished by letting it go.
            let streamURL = folder.appendingPathComponent("avocet-usage-\(UUID().uuidString).wav")
            written.append(streamURL)
            do {
                let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 24_000, channels: 1))
                var audioFile: AVAudioFile? = try AVAudioFile(forWriting: streamURL, settings: format.settings)
                let reusable = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 5_000))
                var framesWritten = 0
                for start in stride(from: 0, to: samples.count, by: 5_000) {
                    let piece = Array(samples[start..<min(start + 5_000, samples.count)])
                    reusable.frameLength = AVAudioFrameCount(piece.count)
                    guard let channelData = reusable.floatChannelData else { break }
                    piece.withUnsafeBytes { src in
                        if let base = src.baseAddress { memcpy(channelData[0], base, piece.count * MemoryLayout<Float>.size) }
                    }
                    try audioFile?.write(from: reusable)
                    framesWritten += piece.count
                }
                #expect(audioFile?.length == AVAudioFramePosition(framesWritten) && framesWritten == 24_000)
                audioFile = nil  // finalize
            }
            let streamed = try #require(try AVAudioPCMBuffer(wholeFile: AVAudioFile(forReading: streamURL)))
            #expect(streamed.frameLength == 24_000 && streamed.firstChannel == samples, "chunks written through a reused buffer read back whole")

            // whisper.cpp's recorder settings (Int(kAudioFormatLinearPCM), a Double rate, an Int channel
            // count, AVAudioQuality.high.rawValue), written as interleaved Int16.
            let recordSettings: [String: Any] = [
                AVFormatIDKey: Int(kAudioFormatLinearPCM),
                AVSampleRateKey: 16000.0,
                AVNumberOfChannelsKey: 1,
                AVEncoderAudioQualityKey: AVAudioQuality.high.rawValue,
            ]
            let int16URL = folder.appendingPathComponent("avocet-usage-\(UUID().uuidString).wav")
            written.append(int16URL)
            let ints: [Int16] = (0..<16_000).map { Int16(clamping: Int((0.5 * sin(2 * Double.pi * 1_000 * Double($0) / 16_000) * 32_767).rounded())) }
            do {
                let file = try AVAudioFile(forWriting: int16URL, settings: recordSettings, commonFormat: .pcmFormatInt16, interleaved: true)
                #expect(file.processingFormat.commonFormat == .pcmFormatInt16 && file.processingFormat.sampleRate == 16_000)
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 16_000))
                buffer.frameLength = 16_000
                ints.withUnsafeBufferPointer { src in buffer.int16ChannelData?[0].update(from: src.baseAddress!, count: ints.count) }
                try file.write(from: buffer)
                file.close()
                #expect(!file.isOpen)
            }
            let recorded = try AVAudioFile(forReading: int16URL)
            let settings = recorded.fileFormat.settings
            #expect((settings[AVFormatIDKey] as? UInt32) == kAudioFormatLinearPCM && (settings[AVLinearPCMBitDepthKey] as? Int) == 16,
                    "16-bit linear PCM by default: \(settings)")
            #expect((settings[AVSampleRateKey] as? Double) == 16_000 && (settings[AVNumberOfChannelsKey] as? Int) == 1)
            let recordedBack = try #require(try AVAudioPCMBuffer(wholeFile: recorded)).firstChannel
            #expect(recordedBack == ints.map { Float($0) / 32_768 }, "Int16 samples read back as Float32 are n / 32768")

            // RingtoneApp's settings (big-endian 16-bit, kAudioFormatLinearPCM as it is, UInt32) for an AIFF.
            let aiffURL = folder.appendingPathComponent("avocet-usage-\(UUID().uuidString).aiff")
            written.append(aiffURL)
            let aiffSettings: [String: Any] = [
                AVFormatIDKey: kAudioFormatLinearPCM,
                AVSampleRateKey: 16_000.0,
                AVNumberOfChannelsKey: 1,
                AVLinearPCMBitDepthKey: 16,
                AVLinearPCMIsNonInterleaved: false,
                AVLinearPCMIsFloatKey: false,
                AVLinearPCMIsBigEndianKey: true,
            ]
            do {
                let file = try AVAudioFile(forWriting: aiffURL, settings: aiffSettings)
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 16_000))
                buffer.frameLength = 16_000
                for i in 0..<16_000 { buffer.floatChannelData?[0][i] = Float(ints[i]) / 32_768 }
                try file.write(from: buffer)
            }
            let aiff = try AVAudioFile(forReading: aiffURL)
            #expect((aiff.fileFormat.settings[AVLinearPCMIsBigEndianKey] as? Bool) == true, "\(aiff.fileFormat.settings)")
            #expect(try #require(try AVAudioPCMBuffer(wholeFile: aiff)).firstChannel == recordedBack, "the same samples as the WAV")

            // LemonWhisper and AudioKit: a file written from one buffer in the buffer's own settings
            // (the standard format: Float32, non-interleaved), WAV and CAF.
            let stereoBuffer = try #require(try AVAudioPCMBuffer(wholeFile: AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url)))
            for fileExtension in ["wav", "caf"] {
                let url = folder.appendingPathComponent("avocet-usage-\(UUID().uuidString).\(fileExtension)")
                written.append(url)
                do {
                    let audioFile = try AVAudioFile(url: url, writing: stereoBuffer)
                    #expect(audioFile.length == 44_100)
                }
                let back = try #require(try AVAudioPCMBuffer(wholeFile: AVAudioFile(forReading: url)))
                #expect(back.frameLength == 44_100 && back.format == stereoBuffer.format, "\(fileExtension)")
                let same = (0..<2).allSatisfy { c in
                    Array(UnsafeBufferPointer(start: back.floatChannelData![c], count: 44_100))
                        == Array(UnsafeBufferPointer(start: stereoBuffer.floatChannelData![c], count: 44_100))
                }
                #expect(same, "\(fileExtension): both channels come back exactly")
            }
        }

        // MARK: - Errors

        @Test func errorsAreNSErrors() throws {
            func openingError(_ url: URL) -> NSError? {
                do {
                    _ = try AVAudioFile(forReading: url)
                } catch let error as NSError {
                    return error
                }
                return nil
            }
            let missing = openingError(URL(fileURLWithPath: "/nonexistent/avocet/recording.m4a"))
            #expect(missing?.domain == "com.apple.coreaudio.avfaudio" && missing?.code == -43, "\(String(describing: missing))")
            let description = missing?.localizedDescription ?? ""
            #expect(!description.isEmpty, "a sentence for people")
            let garbage = openingError(URL(fileURLWithPath: Fixtures.audioPath("not-audio.wav")))
            #expect(garbage?.code == 1_685_348_671, "'dta?': \(String(describing: garbage))")
            // `guard let file = try? AVAudioFile(forReading:) else { return nil }`.
            #expect((try? AVAudioFile(forReading: URL(fileURLWithPath: "/nonexistent/a.wav"))) == nil)
            // A player of bytes that are not audio.
            do {
                _ = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: Fixtures.audioPath("not-audio.wav")))
                Issue.record("a player of text")
            } catch let error as NSError {
                #expect(error.domain == NSOSStatusErrorDomain, "\(error)")
            }
        }

        // MARK: - Playing

        @Test func soundEffectsPlayToTheEnd() async throws {
            let effects = SoundEffects()
            let player = try #require(effects.play(Fixtures.audioFile("sine-5.1.wav").url))
            #expect(abs(player.duration - 0.5) < 0.001 && player.numberOfChannels == 6, "a half-second sound: \(player.duration)")
            #expect(player.isPlaying && effects.playing == 1)
            await until("the delegate told of the end and the set let the player go") { effects.playing == 0 }
            #expect(effects.finished == [true], "finished successfully, once: \(effects.finished)")
            #expect(!player.isPlaying && player.currentTime == 0)

            // whisper.cpp's SwiftUI example: an optional player, played, stopped and dropped.
            var audioPlayer: AVAudioPlayer? = try AVAudioPlayer(contentsOf: Fixtures.audioFile("sine-mono.wav").url)
            audioPlayer?.audioDevice = Self.nullDevice  // Avocet only.
            audioPlayer?.play()
            #expect(audioPlayer?.isPlaying == true)
            audioPlayer?.stop()
            #expect(audioPlayer?.isPlaying == false)
            audioPlayer = nil
            #expect(audioPlayer == nil)
        }

        @Test @MainActor func viewModelPlaysWithANonisolatedDelegate() async throws {
            let model = PlaybackModel()
            try model.load(Fixtures.audioFile("sine-5.1.wav").url)
            #expect(abs(model.duration - 0.5) < 0.001)
            model.play()
            #expect(model.isPlaying)
            let deadline = ContinuousClock.now + TestTiming.seconds(10)
            while model.finishes == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(model.finishes == 1 && !model.isPlaying, "the main actor heard of the end: \(model.finishes)")
        }
    }
}
