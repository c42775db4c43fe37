import AVFoundation
import FixtureSupport
import Foundation
import Testing

extension AudioWork {
    /// AVAudioFile against the audio fixtures: every format read back as the sine it was made from (the
    /// peak frequency of each channel and, where the codec keeps it, the error against the ideal samples),
    /// exact lengths against what the decoder gives and ffprobe's counts, random access, the processing
    /// formats, writing every writable format and reading it back, and the failures.
    @Suite("Audio files")
    struct AudioFileTests {
        /// Every fixture made from the stereo sine, with how closely its samples follow the ideal signal:
        /// the largest error allowed after lining the two up (nil: lossy, judged by frequency and level).
        static let stereoFiles: [(name: String, tolerance: Double?)] = [
            ("sine-s16.wav", 1.0 / 32_768), ("sine-s24.wav", 1.0 / 8_000_000), ("sine-f32.wav", 1e-6), ("sine.aiff", 1.0 / 32_768),
            ("sine.caf", 1.0 / 32_768), ("sine.flac", 1.0 / 32_768), ("sine-alac.m4a", 1.0 / 32_768), ("sine.mka", 1.0 / 32_768),
            ("sine.mp3", nil), ("sine.m4a", nil), ("sine.ogg", nil), ("sine.opus", nil), ("sine-movie.mp4", nil),
        ]

        /// Reads the whole file as deinterleaved float, a second at a time.
        static func readAll(_ file: AVAudioFile, chunk: AVAudioFrameCount = 44_100) throws -> [[Float]] {
            let format = file.processingFormat
            var channels = [[Float]](repeating: [], count: Int(format.channelCount))
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: chunk))
            while true {
                try file.read(into: buffer)
                guard buffer.frameLength > 0, let data = buffer.floatChannelData else { break }
                for c in channels.indices { channels[c] += UnsafeBufferPointer(start: data[c], count: Int(buffer.frameLength)) }
            }
            return channels
        }

        /// The amplitude of `frequency` in `samples` (Goertzel over the whole run, windowless): 0.5 for
        /// a sine of amplitude 0.5 at that frequency.
        static func amplitude(of frequency: Double, in samples: [Float], rate: Double) -> Double {
            var re = 0.0, im = 0.0
            let w = 2 * Double.pi * frequency / rate
            for (n, x) in samples.enumerated() {
                re += Double(x) * cos(w * Double(n))
                im -= Double(x) * sin(w * Double(n))
            }
            return 2 * (re * re + im * im).squareRoot() / Double(max(1, samples.count))
        }

        @Test(arguments: stereoFiles.map(\.name))
        func everyFormatReadsAsItsSine(_ name: String) throws {
            let facts = Fixtures.audioFile(name)
            let signal = Fixtures.audioSignal(of: name)
            let file = try AVAudioFile(forReading: facts.url)
            let rate = Double(facts.sampleRate ?? signal.sampleRate)
            #expect(file.fileFormat.sampleRate == rate && file.fileFormat.channelCount == 2, "\(name): \(file.fileFormat)")
            #expect(file.processingFormat.isStandard && file.processingFormat.sampleRate == rate && file.processingFormat.channelCount == 2)
            let length = file.length
            let channels = try Self.readAll(file)
            #expect(channels[0].count == Int(length), "\(name): length \(length) but \(channels[0].count) frames read")
            #expect(file.framePosition == length)
            // Each channel is its sine: 440 Hz left, 880 Hz right, amplitude 0.5; the other frequency absent.
            for (c, frequency) in signal.frequencies.enumerated() {
                let other = signal.frequencies[1 - c]
                let body = Array(channels[c].dropFirst(2048).prefix(32_768))
                let level = Self.amplitude(of: frequency, in: body, rate: rate)
                #expect(abs(level - 0.5) < 0.03, "\(name) channel \(c): \(frequency) Hz at \(level)")
                #expect(Self.amplitude(of: other, in: body, rate: rate) < 0.01, "\(name) channel \(c) carries \(other) Hz")
            }
            guard let tolerance = Self.stereoFiles.first(where: { $0.name == name })?.tolerance else { return }
            // Lossless: every sample is the ideal signal's, quantised.
            var worst = 0.0
            for c in 0..<2 {
                for (i, x) in channels[c].enumerated() { worst = max(worst, abs(Double(x) - signal.value(channel: c, frame: i))) }
            }
            #expect(worst <= tolerance, "\(name): largest error \(worst)")
        }

        @Test(arguments: stereoFiles.map(\.name) + ["sine-mono.wav", "sine-5.1.wav"])
        func lengthsAreExact(_ name: String) throws {
            let file = try AVAudioFile(forReading: URL(fileURLWithPath: Fixtures.audioPath(name)))
            let expected = Fixtures.audioExpectation(name)
            let signal = Fixtures.audioSignal(of: name)
            let frames = signal.frames(at: Double(expected.sampleRate))
            switch name {
            case "sine.ogg":
                // Vorbis: ffmpeg's command drops the first block's 128 frames; Avocet gives every decoded frame.
                #expect(file.length >= Int64(expected.decodedFrames) && file.length <= Int64(frames), "\(file.length)")
            case "sine.m4a", "sine-movie.mp4":
                // AAC in MP4: the edit list ends the sound where the signal did (ffmpeg keeps the padding).
                #expect(file.length == Int64(frames), "\(file.length) for \(frames)")
            default:
                #expect(file.length == Int64(expected.decodedFrames), "\(name): \(file.length) for ffmpeg's \(expected.decodedFrames)")
            }
            #expect(Int64(try Self.readAll(file)[0].count) == file.length)
        }

        @Test func seeksAreExactToTheFrame() throws {
            for name in ["sine-s16.wav", "sine.flac", "sine.mp3", "sine.opus", "sine.m4a"] {
                let url = URL(fileURLWithPath: Fixtures.audioPath(name))
                let whole = try Self.readAll(AVAudioFile(forReading: url))
                let file = try AVAudioFile(forReading: url)
                // Near the start too: AAC's priming must be skipped as on a first read.
                for start in [22_050, 1, 30_001, 0, 300] {
                    file.framePosition = AVAudioFramePosition(start)
                    #expect(file.framePosition == AVAudioFramePosition(start))
                    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1000))
                    try file.read(into: buffer)
                    #expect(buffer.frameLength == 1000 && file.framePosition == AVAudioFramePosition(start + 1000))
                    let data = try #require(buffer.floatChannelData)
                    var worst: Float = 0
                    for i in 0..<1000 { worst = max(worst, abs(data[0][i] - whole[0][start + i]), abs(data[1][i] - whole[1][start + i])) }
                    // Lossless formats decode the same samples; lossy ones may differ by the decoder's warm-up.
                    #expect(worst <= (name.hasSuffix(".wav") || name.hasSuffix(".flac") ? 0 : 0.02), "\(name) from \(start): \(worst)")
                }
                file.framePosition = file.length + 10
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100))
                try file.read(into: buffer)
                #expect(buffer.frameLength == 0, "past the end nothing is read")
            }
        }

        @Test func commonFormatsReadTheSameSamples() throws {
            let url = Fixtures.audioFile("sine-s16.wav").url
            let reference = try Self.readAll(AVAudioFile(forReading: url))
            let int16 = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
            #expect(int16.processingFormat.commonFormat == .pcmFormatInt16 && int16.processingFormat.isInterleaved)
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: int16.processingFormat, frameCapacity: 4096))
            try int16.read(into: buffer)
            let samples = try #require(buffer.int16ChannelData)[0]
            #expect(buffer.frameLength == 4096 && buffer.stride == 2)
            for i in 0..<4096 {
                #expect(Float(samples[2 * i]) / 32_768 == reference[0][i] && Float(samples[2 * i + 1]) / 32_768 == reference[1][i])
                if Float(samples[2 * i]) / 32_768 != reference[0][i] { break }
            }
            // Deinterleaved Float32 (the stereo split, sixteen samples at a time) read in odd-sized
            // pieces is the interleaved Float32 (copied as it is), sample for sample.
            let pieces = try Self.readAll(AVAudioFile(forReading: url), chunk: 1_001)
            let interleaved = try AVAudioFile(forReading: url, commonFormat: .pcmFormatFloat32, interleaved: true)
            let whole = try #require(AVAudioPCMBuffer(pcmFormat: interleaved.processingFormat, frameCapacity: AVAudioFrameCount(reference[0].count)))
            try interleaved.read(into: whole)
            let pairs = try #require(whole.floatChannelData)[0]
            #expect(pieces.map(\.count) == reference.map(\.count) && Int(whole.frameLength) == reference[0].count)
            let samePieces = pieces == reference
            #expect(samePieces, "1,001 frames at a time read what 44,100 at a time read")
            #expect((0..<Int(whole.frameLength)).allSatisfy { pairs[2 * $0] == reference[0][$0] && pairs[2 * $0 + 1] == reference[1][$0] })
            let int32 = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt32, interleaved: false)
            let b32 = try #require(AVAudioPCMBuffer(pcmFormat: int32.processingFormat, frameCapacity: 100))
            try int32.read(into: b32)
            let s32 = try #require(b32.int32ChannelData)
            #expect((0..<100).allSatisfy { Double(s32[1][$0]) / 2_147_483_648 == Double(reference[1][$0]) })
            #expect(throws: NSError.self) { try AVAudioFile(forReading: url, commonFormat: .otherFormat, interleaved: false) }
        }

        @Test func surroundFilesKeepTheirChannelOrder() throws {
            let name = "sine-5.1.wav"
            let file = try AVAudioFile(forReading: URL(fileURLWithPath: Fixtures.audioPath(name)))
            let signal = Fixtures.audioSignal(of: name)
            #expect(file.processingFormat.channelCount == 6)
            #expect(file.processingFormat.channelLayout?.layoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)
            let channels = try Self.readAll(file)
            for (c, frequency) in signal.frequencies.enumerated() {
                let level = Self.amplitude(of: frequency, in: channels[c], rate: 48_000)
                #expect(abs(level - signal.amplitudes[c]) < 0.01, "channel \(c): \(frequency) Hz at \(level)")
            }
        }

        @Test func writtenFilesReadBack() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-audiofile-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let cases: [(name: String, settings: [String: Any], tolerance: Double?, formatID: AudioFormatID)] = [
                ("s16.wav", [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16], 1.0 / 32_768, kAudioFormatLinearPCM),
                ("s24.wav", [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 24], 1.0 / 8_000_000, kAudioFormatLinearPCM),
                ("f32.wav", [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true], 1e-7, kAudioFormatLinearPCM),
                ("s16.aiff", [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16], 1.0 / 32_768, kAudioFormatLinearPCM),
                ("s16.caf", [AVFormatIDKey: kAudioFormatLinearPCM], 1.0 / 32_768, kAudioFormatLinearPCM),
                ("lossless.flac", [AVFormatIDKey: kAudioFormatFLAC], 1.0 / 8_000_000, kAudioFormatFLAC),
                ("lossless.m4a", [AVFormatIDKey: kAudioFormatAppleLossless], 1.0 / 8_000_000, kAudioFormatAppleLossless),
                ("lossy.m4a", [AVFormatIDKey: kAudioFormatMPEG4AAC, AVEncoderBitRateKey: 128_000], nil, kAudioFormatMPEG4AAC),
                ("lossy.opus", [AVFormatIDKey: kAudioFormatOpus, AVEncoderBitRateKey: 96_000], nil, kAudioFormatOpus),
            ]
            for c in cases {
                let rate = c.formatID == kAudioFormatOpus ? 48_000.0 : 44_100.0
                var settings = c.settings
                settings[AVSampleRateKey] = rate
                settings[AVNumberOfChannelsKey] = 2
                let url = folder.appendingPathComponent(c.name)
                let frames = Int(rate)
                do {
                    let file = try AVAudioFile(forWriting: url, settings: settings)
                    #expect(file.processingFormat.isStandard && file.fileFormat.streamDescription.pointee.mFormatID == c.formatID)
                    // Written in odd-sized buffers: 1000 frames, then the rest.
                    var written = 0
                    for size in [1000, frames - 1000] {
                        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(size)))
                        let data = try #require(buffer.floatChannelData)
                        for i in 0..<size {
                            data[0][i] = Float(0.5 * sin(2 * Double.pi * 440 * Double(written + i) / rate))
                            data[1][i] = Float(0.5 * sin(2 * Double.pi * 880 * Double(written + i) / rate))
                        }
                        buffer.frameLength = AVAudioFrameCount(size)
                        try file.write(from: buffer)
                        written += size
                    }
                    #expect(file.length == AVAudioFramePosition(frames) && file.framePosition == AVAudioFramePosition(frames))
                    file.close()
                    #expect(!file.isOpen)
                }
                let back = try AVAudioFile(forReading: url)
                #expect(back.fileFormat.streamDescription.pointee.mFormatID == c.formatID, "\(c.name): \(back.fileFormat)")
                #expect(back.fileFormat.sampleRate == rate && back.fileFormat.channelCount == 2)
                let channels = try Self.readAll(back)
                if c.tolerance != nil {
                    #expect(channels[0].count == frames, "\(c.name): \(channels[0].count) frames read back of \(frames)")
                } else {
                    // Lossy encoders: within a packet of the length written.
                    #expect(abs(channels[0].count - frames) <= 1024, "\(c.name): \(channels[0].count) frames read back of \(frames)")
                }
                for (ch, frequency) in [440.0, 880.0].enumerated() {
                    let body = Array(channels[ch].dropFirst(4096).prefix(32_768))
                    let level = Self.amplitude(of: frequency, in: body, rate: rate)
                    #expect(abs(level - 0.5) < 0.02, "\(c.name) channel \(ch): \(frequency) Hz at \(level)")
                }
                guard let tolerance = c.tolerance else { continue }
                var worst = 0.0
                for (ch, frequency) in [440.0, 880.0].enumerated() {
                    for (i, x) in channels[ch].enumerated() {
                        worst = max(worst, abs(Double(x) - Double(Float(0.5 * sin(2 * Double.pi * frequency * Double(i) / rate)))))
                    }
                }
                #expect(worst <= tolerance, "\(c.name): largest error \(worst)")
            }
        }

        @Test func badInputFailsClearly() throws {
            func code(_ body: () throws -> Void) -> Int? {
                do { try body() } catch let error as NSError { return error.code } catch { return nil }
                return nil
            }
            let missing = URL(fileURLWithPath: "/nonexistent/avocet/sine.wav")
            #expect(code { _ = try AVAudioFile(forReading: missing) } == -43)
            let notAudio = URL(fileURLWithPath: Fixtures.audioPath("not-audio.wav"))
            #expect(code { _ = try AVAudioFile(forReading: notAudio) } == 1_685_348_671, "'dta?'")
            // A movie without sound: the choice of stream, made while the file is open, fails it.
            do {
                _ = try AVAudioFile(forReading: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
                Issue.record("a movie without sound opened for reading")
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio" && error.code == 1_954_115_647, "'typ?': \(error)")
            }
            // A truncated file reads what is there, then ends or fails clearly; never traps.
            for name in ["sine-truncated.flac", "sine-truncated.mp3"] {
                let url = URL(fileURLWithPath: Fixtures.audioPath(name))
                let file = try AVAudioFile(forReading: url)
                var frames = 0
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096))
                do {
                    while true {
                        try file.read(into: buffer)
                        if buffer.frameLength == 0 { break }
                        frames += Int(buffer.frameLength)
                    }
                } catch let error as NSError {
                    #expect(error.domain == "com.apple.coreaudio.avfaudio", "\(error)")
                }
                #expect(frames > 10_000 && frames < 44_100, "\(name): \(frames) frames before the cut")
            }
            // Misuse: a buffer of another format, more frames than the buffer holds, a closed file, a write to a read file.
            let file = try AVAudioFile(forReading: Fixtures.audioFile("sine-s16.wav").url)
            let monoFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
            let mono = try #require(AVAudioPCMBuffer(pcmFormat: monoFormat, frameCapacity: 10))
            #expect(code { try file.read(into: mono) } == -50)
            let right = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 10))
            #expect(code { try file.read(into: right, frameCount: 11) } == -50)
            #expect(code { try file.write(from: right) } != nil)
            file.close()
            #expect(code { try file.read(into: right) } == -43)
            // Settings Avocet cannot write.
            let folder = FileManager.default.temporaryDirectory
            #expect(code { _ = try AVAudioFile(forWriting: folder.appendingPathComponent("x.xyz"), settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1]) }
                    == 1_954_115_647, "'typ?'")
            #expect(code { _ = try AVAudioFile(forWriting: folder.appendingPathComponent("x.wav"), settings: [AVFormatIDKey: kAudioFormatMPEG4AAC,
                                                                                                           AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1]) }
                    == 1_718_449_215, "'fmt?'")
            #expect(code { _ = try AVAudioFile(forWriting: folder.appendingPathComponent("x.wav"), settings: [AVNumberOfChannelsKey: 1]) } == -50)
            // A directory at the path is refused, and left as it was.
        let folderPath = folder.appendingPathComponent("avocet-dir-\(UUID().uuidString).wav")
        try FileManager.default.createDirectory(at: folderPath.appendingPathComponent("inside"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folderPath) }
        #expect(code { _ = try AVAudioFile(forWriting: folderPath, settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1]) } != nil)
        #expect(FileManager.default.fileExists(atPath: folderPath.appendingPathComponent("inside").path))
        #expect(code { _ = try AVAudioFile(forWriting: URL(fileURLWithPath: "/nonexistent/dir/x.wav"),
                                             settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1]) } != nil)
        }
    }
}
