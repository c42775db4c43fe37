import AVFoundation
import FixtureSupport
import Foundation
import Testing

extension AudioWork {
    /// AVAudioConverter against the audio fixtures: 44.1 kHz WAV sound resampled to 16 kHz compared
    /// with FFmpeg's own output (`aresample`, `-ar 16000 -ac 1`), and the packets of the AAC, MP3, FLAC,
    /// ALAC and Opus fixtures (read with an asset reader's passthrough output) decoded.
    @Suite("Audio converter on the fixtures")
    struct AudioConverterFileTests {
        /// A WAV file's sound: its format and its data chunk.
        struct WAV {
            var rate: Double
            var channels: Int
            var bits: Int
            var data: Data
        }

        /// The `fmt ` and `data` chunks of a PCM WAV fixture.
        static func wav(_ name: String) throws -> WAV {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("audio/" + name)))
            func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
            func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
            try #require(bytes.count > 12 && bytes.prefix(4) == Data("RIFF".utf8))
            var offset = 12
            var format: (channels: Int, rate: Int, bits: Int)?
            while offset + 8 <= bytes.count {
                let id = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self), size = u32(offset + 4)
                if id == "fmt " { format = (u16(offset + 10), u32(offset + 12), u16(offset + 22)) }
                if id == "data", let format {
                    let end = min(bytes.count, offset + 8 + size)
                    return WAV(rate: Double(format.rate), channels: format.channels, bits: format.bits, data: bytes.subdata(in: (offset + 8)..<end))
                }
                offset += 8 + size + size % 2
            }
            throw CocoaError(.fileReadCorruptFile)
        }

        /// Little-endian float32 samples of an `.f32` reference.
        static func f32(_ name: String) throws -> [Float] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("audio/" + name)))
            return bytes.withUnsafeBytes { raw in
                (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }
        }

        /// The WAV's Int16 interleaved samples, cut into PCM buffers of `chunk` frames.
        static func buffers(_ wav: WAV, chunk: Int) throws -> (AVAudioFormat, [AVAudioPCMBuffer]) {
            let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: wav.rate, channels: AVAudioChannelCount(wav.channels),
                                                    interleaved: true))
            let frameBytes = wav.channels * 2, frames = wav.data.count / frameBytes
            var result: [AVAudioPCMBuffer] = []
            for start in stride(from: 0, to: frames, by: chunk) {
                let count = min(chunk, frames - start)
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count)))
                buffer.frameLength = AVAudioFrameCount(count)
                let destination = try #require(buffer.mutableAudioBufferList.pointee.mBuffers.mData)
                let from = wav.data.startIndex + start * frameBytes
                wav.data.copyBytes(to: destination.assumingMemoryBound(to: UInt8.self), from: from..<(from + count * frameBytes))
                result.append(buffer)
            }
            return (format, result)
        }

        /// Every input buffer through the block form into `output`, in output buffers of `capacity`.
        static func run(_ converter: AVAudioConverter, _ inputs: [AVAudioBuffer], capacity: AVAudioFrameCount = 4_000) throws -> [[Float]] {
            var next = 0
            var result = [[Float]](repeating: [], count: Int(converter.outputFormat.channelCount))
            for _ in 0..<10_000 {
                let out = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: capacity))
                var error: NSError?
                let status = converter.convert(to: out, error: &error) { _, status in
                    guard next < inputs.count else { status.pointee = .endOfStream; return nil }
                    next += 1
                    status.pointee = .haveData
                    return inputs[next - 1]
                }
                try #require(status != .error, "\(String(describing: error))")
                let channels = try #require(out.floatChannelData)
                for c in result.indices { result[c] += UnsafeBufferPointer(start: channels[c], count: Int(out.frameLength)) }
                if status == .endOfStream { return result }
            }
            Issue.record("the conversion did not end")
            return result
        }

        static func amplitude(of frequency: Double, in signal: some Collection<Float>, rate: Double) -> Double {
            let n = Double(signal.count)
            var re = 0.0, im = 0.0
            for (i, v) in signal.enumerated() {
                let window = 0.5 - 0.5 * cos(2 * .pi * Double(i) / n)
                let phase = 2 * .pi * frequency * Double(i) / rate
                re += Double(v) * window * cos(phase)
                im -= Double(v) * window * sin(phase)
            }
            return 4 * (re * re + im * im).squareRoot() / n
        }

        /// Whether `frequency` stands out: its bin at least ten times those 150 Hz either side.
        static func peaks(at frequency: Double, in signal: some Collection<Float>, rate: Double) -> Bool {
            let at = amplitude(of: frequency, in: signal, rate: rate)
            return at > 10 * amplitude(of: frequency - 150, in: signal, rate: rate) && at > 10 * amplitude(of: frequency + 150, in: signal, rate: rate)
        }

        static func rms(_ values: some Collection<Float>) -> Double {
            (values.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, values.count))).squareRoot()
        }

        // MARK: - Resampling against FFmpeg

        @Test("sine-mono.wav to 16 kHz: FFmpeg's aresample output (sine-mono-16k.f32), 16000 frames, the 1 kHz tone", arguments: [4_410, 1_000, 1])
        func monoMatchesAresample(_ chunk: Int) throws {
            let wav = try Self.wav("sine-mono.wav")
            let (format, inputs) = try Self.buffers(wav, chunk: chunk)
            let output = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
            let converter = try #require(AVAudioConverter(from: format, to: output))
            let result = try Self.run(converter, inputs, capacity: 1_600)[0]
            let reference = try Self.f32("sine-mono-16k.f32")
            #expect(result.count == reference.count && result.count == 16_000, "\(result.count) frames, FFmpeg \(reference.count)")
            let difference = zip(result, reference).map { abs($0 - $1) }.max() ?? .infinity
            // Measured: 0 with every chunk size (the same libswresample, set up as FFmpeg sets it up, gives
            // FFmpeg's samples exactly); the tolerance leaves room for another machine's SIMD rounding.
            #expect(difference <= 1e-5, "largest difference from FFmpeg's: \(difference)")
            #expect(Self.peaks(at: 1_000, in: result, rate: 16_000))
            #expect(abs(Self.amplitude(of: 1_000, in: result, rate: 16_000) - 0.5) < 0.01)
        }

        @Test("sine-s16.wav to 16 kHz mono with downmix: FFmpeg's -ar 16000 -ac 1 output (sine-s16-16k-mono.f32), both tones at -3 dB")
        func stereoMatchesFFmpegDownmix() throws {
            let wav = try Self.wav("sine-s16.wav")
            let (format, inputs) = try Self.buffers(wav, chunk: 44_100)
            let output = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: true))
            let converter = try #require(AVAudioConverter(from: format, to: output))
            converter.downmix = true
            let result = try Self.run(converter, inputs)[0]
            let reference = try Self.f32("sine-s16-16k-mono.f32")
            #expect(result.count == reference.count && result.count == 16_000, "\(result.count) frames, FFmpeg \(reference.count)")
            let difference = zip(result, reference).map { abs($0 - $1) }.max() ?? .infinity
            // Measured: 0, as for the mono file.
            #expect(difference <= 1e-5, "largest difference from FFmpeg's: \(difference)")
            for frequency in [440.0, 880.0] {
                #expect(Self.peaks(at: frequency, in: result, rate: 16_000))
                #expect(abs(Self.amplitude(of: frequency, in: result, rate: 16_000) - 0.5 * 0.7071) < 0.01)
            }
        }

        // MARK: - Decoding the fixtures' packets

        /// The packets of the first audio track of `name`, as an asset reader's passthrough output gives
        /// them, in compressed buffers of the track's format.
        static func packets(_ name: String) async throws -> (AVAudioFormat, [AVAudioCompressedBuffer]) {
            let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("audio/" + name)))
            let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            reader.add(output)
            #expect(reader.startReading())
            let samples = try await onOwnThread { () -> UncheckedSendable<[CMSampleBuffer]> in
                var all: [CMSampleBuffer] = []
                while let next = output.copyNextSampleBuffer() { all.append(next) }
                return UncheckedSendable(all)
            }.value
            let description = try #require(samples.first?.formatDescription)
            let format = AVAudioFormat(cmAudioFormatDescription: description)
            var buffers: [AVAudioCompressedBuffer] = []
            for sample in samples {
                let data = try #require(sample.dataBuffer)
                let length = CMBlockBufferGetDataLength(data)
                var descriptions: UnsafePointer<AudioStreamPacketDescription>?
                var size = 0
                CMSampleBufferGetAudioStreamPacketDescriptionsPtr(sample, packetDescriptionsPointerOut: &descriptions, sizeOut: &size)
                let count = max(1, size / MemoryLayout<AudioStreamPacketDescription>.stride)
                let buffer = AVAudioCompressedBuffer(format: format, packetCapacity: AVAudioPacketCount(count), maximumPacketSize: length)
                CMBlockBufferCopyDataBytes(data, atOffset: 0, dataLength: length, destination: buffer.data)
                for p in 0..<count {
                    buffer.packetDescriptions?[p] = descriptions?[p]
                        ?? AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: UInt32(length))
                }
                buffer.packetCount = AVAudioPacketCount(count)
                buffer.byteLength = UInt32(length)
                buffers.append(buffer)
            }
            return (format, buffers)
        }

        @Test("decoding AAC, MP3, FLAC, ALAC and Opus packets: 440 Hz left, 880 Hz right at 0.5, every frame FFmpeg decodes",
              arguments: ["sine.m4a", "sine.mp3", "sine.flac", "sine-alac.m4a", "sine.opus"])
        func decodesFixturePackets(_ name: String) async throws {
            let (format, packets) = try await Self.packets(name)
            let rate = format.sampleRate
            let output = try #require(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2))
            let converter = try #require(AVAudioConverter(from: format, to: output), "\(format)")
            let decoded = try Self.run(converter, packets)
            let expected = Int(rate)  // one second of sound
            // The decoder gives every frame of every packet: AAC's and Opus's priming and last packet's
            // padding too (Apple's converter leaves trimming them to the file layer as well).
            #expect(decoded[0].count >= expected && decoded[0].count <= expected + 2_200, "\(name): \(decoded[0].count) frames")
            let middle = { (s: [Float]) in s[(s.count / 4)..<(s.count * 3 / 4)] }
            #expect(Self.peaks(at: 440, in: middle(decoded[0]), rate: rate) && Self.peaks(at: 880, in: middle(decoded[1]), rate: rate), "\(name)")
            for c in 0..<2 {
                #expect(abs(Self.rms(middle(decoded[c])) - 0.5 / 2.0.squareRoot()) < 0.02, "\(name) channel \(c): \(Self.rms(middle(decoded[c])))")
            }
        }

        @Test("one converter decodes AAC and MP3 packets straight to 16 kHz mono (downmix): both tones at -3 dB, 16000 frames a second")
        func decodesAndResamples() async throws {
            for name in ["sine.m4a", "sine.mp3"] {
                let (format, packets) = try await Self.packets(name)
                let output = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1))
                let converter = try #require(AVAudioConverter(from: format, to: output))
                converter.downmix = true
                let decoded = try Self.run(converter, packets, capacity: 16_000)[0]
                // The decoded frames (priming and padding included) at 16/44.1.
                let count = packets.reduce(0) { $0 + Int($1.packetCount) }
                let frames = Double(count) * Double(format.streamDescription.pointee.mFramesPerPacket) * 16_000 / 44_100
                #expect(abs(Double(decoded.count) - frames) <= 1, "\(name): \(decoded.count) frames, \(frames) expected")
                let middle = decoded[4_000..<12_000]
                for frequency in [440.0, 880.0] {
                    #expect(Self.peaks(at: frequency, in: middle, rate: 16_000), "\(name)")
                    #expect(abs(Self.amplitude(of: frequency, in: middle, rate: 16_000) - 0.5 * 0.7071) < 0.02, "\(name) \(frequency) Hz")
                }
            }
        }

        @Test("FLAC and ALAC packets decode to exactly the samples of sine-s16.wav", arguments: ["sine.flac", "sine-alac.m4a"])
        func losslessFixturesMatchTheWAV(_ name: String) async throws {
            let (format, packets) = try await Self.packets(name)
            let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: false))
            let converter = try #require(AVAudioConverter(from: format, to: int16))
            var next = 0
            var left: [Int16] = [], right: [Int16] = []
            while true {
                let out = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 5_000))
                var error: NSError?
                let status = converter.convert(to: out, error: &error) { _, status in
                    guard next < packets.count else { status.pointee = .endOfStream; return nil }
                    next += 1
                    status.pointee = .haveData
                    return packets[next - 1]
                }
                try #require(status != .error, "\(String(describing: error))")
                let channels = try #require(out.int16ChannelData)
                left += UnsafeBufferPointer(start: channels[0], count: Int(out.frameLength))
                right += UnsafeBufferPointer(start: channels[1], count: Int(out.frameLength))
                if status == .endOfStream { break }
            }
            let wav = try Self.wav("sine-s16.wav")
            let samples = wav.data.withUnsafeBytes { raw in (0..<(wav.data.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) } }
            let wavLeft = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
            let wavRight = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
            #expect(left.count == 44_100 && left == wavLeft && right == wavRight, "\(name): \(left.count) frames")
        }
    }
}
