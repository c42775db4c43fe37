import AVFoundation
import Foundation
import Testing

/// AVAudioConverter on signals made in memory: linear PCM between sample types, byte orders,
/// interleavings and channel layouts (`convert(to:from:)`), sample-rate conversion through the input
/// block (statuses, streaming in pieces of any size, quality, priming), and encoding and decoding
/// AAC, FLAC, ALAC and Opus packets.
@Suite("Audio converter", .serialized)
struct AudioConverterTests {
    // MARK: - Helpers

    /// A PCM format from settings (linear PCM of any depth, float or integer, byte order, interleaving).
    static func format(rate: Double = 44_100, channels: Int = 2, bits: Int, float: Bool = false, bigEndian: Bool = false,
                       interleaved: Bool = true, layout: AVAudioChannelLayout? = nil) throws -> AVAudioFormat {
        var settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
                                       AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: float, AVLinearPCMIsBigEndianKey: bigEndian,
                                       AVLinearPCMIsNonInterleaved: !interleaved]
        if let layout { settings[AVChannelLayoutKey] = Data(bytes: layout.layout, count: MemoryLayout<AudioChannelLayout>.size) }
        return try #require(AVAudioFormat(settings: settings))
    }

    static func float32(rate: Double = 44_100, channels: AVAudioChannelCount = 2, interleaved: Bool = false) throws -> AVAudioFormat {
        try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: rate, channels: channels, interleaved: interleaved))
    }

    /// A buffer of `format` holding `channels` (one array of values in -1...1 per channel), written
    /// sample by sample in the format's own type and byte order.
    static func buffer(_ format: AVAudioFormat, _ channels: [[Double]]) throws -> AVAudioPCMBuffer {
        let frames = channels.first?.count ?? 0
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(max(frames, 1))))
        buffer.frameLength = AVAudioFrameCount(frames)
        let d = format.streamDescription.pointee
        let bytes = Int(d.mBitsPerChannel / 8), count = Int(d.mChannelsPerFrame)
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        for (c, samples) in channels.enumerated() {
            for (i, value) in samples.enumerated() {
                let (plane, index) = format.isInterleaved ? (0, i * count + c) : (c, i)
                let base = try #require(list[plane].mData) + index * bytes
                store(value, at: base, d)
            }
        }
        return buffer
    }

    /// The buffer's samples, one array a channel, as values in -1...1 (integers divided by 2^(bits-1)).
    static func samples(_ buffer: AVAudioPCMBuffer) -> [[Double]] {
        let format = buffer.format
        let d = format.streamDescription.pointee
        let bytes = Int(d.mBitsPerChannel / 8), count = Int(d.mChannelsPerFrame)
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        return (0..<count).map { c in
            (0..<Int(buffer.frameLength)).map { i in
                let (plane, index) = format.isInterleaved ? (0, i * count + c) : (c, i)
                guard let base = list[plane].mData else { return .nan }
                return load(from: base + index * bytes, d)
            }
        }
    }

    static func store(_ value: Double, at p: UnsafeMutableRawPointer, _ d: AudioStreamBasicDescription) {
        let bits = Int(d.mBitsPerChannel), big = d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
        let raw: UInt64
        if d.mFormatFlags & kAudioFormatFlagIsFloat != 0 {
            raw = bits == 64 ? value.bitPattern : UInt64(Float(value).bitPattern)
        } else if d.mFormatFlags & kAudioFormatFlagIsSignedInteger == 0 {
            raw = UInt64(max(0, min(255, (value * 128).rounded() + 128)))
        } else {
            let scale = Double(Int64(1) << (bits - 1))
            raw = UInt64(bitPattern: Int64(max(-scale, min(scale - 1, (value * scale).rounded()))))
        }
        for b in 0..<bits / 8 {
            let byte = UInt8(truncatingIfNeeded: raw >> UInt64(8 * b))
            p.storeBytes(of: byte, toByteOffset: big ? bits / 8 - 1 - b : b, as: UInt8.self)
        }
    }

    static func load(from p: UnsafeRawPointer, _ d: AudioStreamBasicDescription) -> Double {
        let bits = Int(d.mBitsPerChannel), big = d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
        var raw: UInt64 = 0
        for b in 0..<bits / 8 {
            let byte = UInt64(p.load(fromByteOffset: big ? bits / 8 - 1 - b : b, as: UInt8.self))
            raw |= byte << UInt64(8 * b)
        }
        if d.mFormatFlags & kAudioFormatFlagIsFloat != 0 {
            return bits == 64 ? Double(bitPattern: raw) : Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))
        }
        if d.mFormatFlags & kAudioFormatFlagIsSignedInteger == 0 { return (Double(raw) - 128) / 128 }
        let shift = UInt64(64 - bits)
        let signed = Int64(bitPattern: raw << shift) >> Int64(shift)
        return Double(signed) / Double(Int64(1) << (bits - 1))
    }

    /// A sine of `frequency` at `amplitude`, `frames` long at `rate`.
    static func sine(_ frequency: Double, amplitude: Double = 0.5, frames: Int, rate: Double = 44_100) -> [Double] {
        (0..<frames).map { amplitude * sin(2 * .pi * frequency * Double($0) / rate) }
    }

    /// The amplitude of `frequency` in `signal` (a DFT bin, Hann-windowed, scaled so a sine of
    /// amplitude A gives about A).
    static func amplitude(of frequency: Double, in signal: some Collection<Double>, rate: Double) -> Double {
        let values = Array(signal)
        let n = Double(values.count)
        var re = 0.0, im = 0.0
        for (i, v) in values.enumerated() {
            let window = 0.5 - 0.5 * cos(2 * .pi * Double(i) / n)
            let phase = 2 * .pi * frequency * Double(i) / rate
            re += v * window * cos(phase)
            im -= v * window * sin(phase)
        }
        return 4 * (re * re + im * im).squareRoot() / n
    }

    /// Whether `frequency` stands out in `signal`: its bin at least ten times those 150 Hz either side.
    static func peaks(at frequency: Double, in signal: some Collection<Double>, rate: Double) -> Bool {
        let at = amplitude(of: frequency, in: signal, rate: rate)
        return at > 10 * amplitude(of: frequency - 150, in: signal, rate: rate) && at > 10 * amplitude(of: frequency + 150, in: signal, rate: rate)
    }

    static func rms(_ values: some Collection<Double>) -> Double {
        (values.reduce(0) { $0 + $1 * $1 } / Double(max(1, values.count))).squareRoot()
    }

    /// Runs the block form to the end: `input` cut into pieces of `chunks` frames (cycling), output
    /// buffers of `outputFrames`. The output's samples, one array a channel.
    static func stream(_ converter: AVAudioConverter, _ input: [[Double]], chunks: [Int], outputFrames: AVAudioFrameCount) throws -> [[Double]] {
        let total = input.first?.count ?? 0
        var offset = 0, piece = 0
        var result = [[Double]](repeating: [], count: Int(converter.outputFormat.channelCount))
        var pieces: [AVAudioPCMBuffer] = []
        while true {
            let out = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: outputFrames))
            var error: NSError?
            var failure: (any Error)?
            let status = converter.convert(to: out, error: &error) { _, status in
                guard offset < total else {
                    status.pointee = .endOfStream
                    return nil
                }
                let size = min(chunks[piece % chunks.count], total - offset)
                piece += 1
                do {
                    let made = try buffer(converter.inputFormat, input.map { Array($0[offset..<(offset + size)]) })
                    pieces.append(made)
                    offset += size
                    status.pointee = .haveData
                    return made
                } catch {
                    failure = error
                    status.pointee = .endOfStream
                    return nil
                }
            }
            if let failure { throw failure }
            #expect(status != .error, "\(String(describing: error))")
            for (c, samples) in samples(out).enumerated() { result[c] += samples }
            if status == .endOfStream {
                #expect(out.frameLength == 0, "end of stream returns no data")
                break
            }
            #expect(status == .haveData)
            if status == .error { break }
        }
        return result
    }

    // MARK: - Linear PCM to linear PCM

    @Test("every linear PCM sample type, byte order and interleaving: there and back within the depth's precision")
    func sampleTypesGoThereAndBack() throws {
        let signal = [Self.sine(440, frames: 512), Self.sine(880, amplitude: 0.25, frames: 512)]
        let source = try Self.float32()
        let input = try Self.buffer(source, signal)
        let cases: [(String, AVAudioFormat, Double)] = [
            ("Int16 interleaved", try Self.format(bits: 16), 1.0 / 32_768),
            ("Int16 big-endian", try Self.format(bits: 16, bigEndian: true), 1.0 / 32_768),
            ("Int16 deinterleaved", try Self.format(bits: 16, interleaved: false), 1.0 / 32_768),
            ("Int24", try Self.format(bits: 24), 1.0 / 8_388_608),
            ("Int24 big-endian deinterleaved", try Self.format(bits: 24, bigEndian: true, interleaved: false), 1.0 / 8_388_608),
            ("Int32", try Self.format(bits: 32), 1e-7),
            ("Int32 big-endian", try Self.format(bits: 32, bigEndian: true), 1e-7),
            ("Float32 interleaved", try Self.format(bits: 32, float: true), 0),
            ("Float32 big-endian", try Self.format(bits: 32, float: true, bigEndian: true), 0),
            ("Float64", try Self.format(bits: 64, float: true, interleaved: false), 0),
            ("Float64 big-endian", try Self.format(bits: 64, float: true, bigEndian: true), 0),
            ("signed 8-bit", try Self.format(bits: 8), 1.0 / 128),
        ]
        for (name, format, precision) in cases {
            let there = try #require(AVAudioConverter(from: source, to: format), "\(name)")
            let back = try #require(AVAudioConverter(from: format, to: source), "\(name)")
            let middle = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512))
            try there.convert(to: middle, from: input)
            #expect(middle.frameLength == 512, "\(name)")
            // The stored values, read in the format's own type and byte order.
            let stored = Self.samples(middle)
            let storedError = zip(stored.joined(), signal.joined()).map { abs($0 - $1) }.max() ?? .infinity
            #expect(storedError <= precision * 0.5 + 1e-7, "\(name): stored values off by \(storedError)")
            let returned = try #require(AVAudioPCMBuffer(pcmFormat: source, frameCapacity: 512))
            try back.convert(to: returned, from: middle)
            let error = zip(Self.samples(returned).joined(), signal.joined()).map { abs($0 - $1) }.max() ?? .infinity
            #expect(error <= precision * 0.5 + 1e-7, "\(name): off by \(error) after the round trip")
        }
    }

    @Test("known values: 0.25 is 8192 in Int16, 0x200000 in 24-bit, 2^29 in Int32; -1 is the minimum; +1 clips to the maximum")
    func knownIntegerValues() throws {
        let source = try Self.float32(channels: 1)
        let input = try Self.buffer(source, [[0.25, -1, 1, 0]])
        let int16 = try Self.format(channels: 1, bits: 16)
        let converter = try #require(AVAudioConverter(from: source, to: int16))
        let out = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 4))
        try converter.convert(to: out, from: input)
        let values = try #require(out.int16ChannelData).pointee
        #expect([values[0], values[1], values[2], values[3]] == [8_192, -32_768, 32_767, 0])

        let int24 = try Self.format(channels: 1, bits: 24, bigEndian: true)
        let to24 = try #require(AVAudioConverter(from: source, to: int24))
        let out24 = try #require(AVAudioPCMBuffer(pcmFormat: int24, frameCapacity: 4))
        try to24.convert(to: out24, from: input)
        let bytes = try #require(out24.audioBufferList.pointee.mBuffers.mData).assumingMemoryBound(to: UInt8.self)
        #expect([bytes[0], bytes[1], bytes[2]] == [0x20, 0x00, 0x00], "0.25 big-endian 24-bit")
        #expect([bytes[3], bytes[4], bytes[5]] == [0x80, 0x00, 0x00], "-1 big-endian 24-bit")
        #expect([bytes[6], bytes[7], bytes[8]] == [0x7F, 0xFF, 0xFF], "+1 clips")

        let int32 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 44_100, channels: 1, interleaved: true))
        let to32 = try #require(AVAudioConverter(from: source, to: int32))
        let out32 = try #require(AVAudioPCMBuffer(pcmFormat: int32, frameCapacity: 4))
        try to32.convert(to: out32, from: input)
        #expect(out32.int32ChannelData?.pointee[0] == 1 << 29)
    }

    @Test("interleaving: deinterleaved channels alternate in the interleaved buffer, and back")
    func interleaving() throws {
        let planar = try Self.float32(channels: 2, interleaved: false)
        let packed = try Self.float32(channels: 2, interleaved: true)
        let input = try Self.buffer(planar, [[0.1, 0.2, 0.3], [-0.1, -0.2, -0.3]])
        let converter = try #require(AVAudioConverter(from: planar, to: packed))
        let out = try #require(AVAudioPCMBuffer(pcmFormat: packed, frameCapacity: 3))
        try converter.convert(to: out, from: input)
        let data = try #require(out.floatChannelData).pointee
        #expect((0..<6).map { data[$0] } == [0.1, -0.1, 0.2, -0.2, 0.3, -0.3].map { Float($0) })
        #expect(out.stride == 2)
    }

    @Test("mono to stereo duplicates; stereo to mono keeps the left without downmix and mixes (L + R) × 0.707 with it")
    func channelCounts() throws {
        let mono = try Self.float32(channels: 1)
        let stereo = try Self.float32(channels: 2)
        let left = Self.sine(440, frames: 256), right = Self.sine(880, amplitude: 0.3, frames: 256)

        let up = try #require(AVAudioConverter(from: mono, to: stereo))
        #expect(up.channelMap == [0, 0])
        let upOut = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 256))
        try up.convert(to: upOut, from: try Self.buffer(mono, [left]))
        let both = Self.samples(upOut)
        #expect(both[0] == both[1] && zip(both[0], left).allSatisfy { abs($0 - $1) < 1e-7 })

        let down = try #require(AVAudioConverter(from: stereo, to: mono))
        #expect(down.channelMap == [0] && !down.downmix)
        let downOut = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 256))
        let input = try Self.buffer(stereo, [left, right])
        try down.convert(to: downOut, from: input)
        #expect(zip(Self.samples(downOut)[0], left).allSatisfy { abs($0 - $1) < 1e-7 }, "the right channel is dropped")

        down.downmix = true
        try down.convert(to: downOut, from: input)
        let mixed = Self.samples(downOut)[0]
        let expected = zip(left, right).map { ($0 + $1) * 0.5.squareRoot() }
        #expect(zip(mixed, expected).map { abs($0 - $1) }.max() ?? 1 < 1e-6, "FFmpeg's stereo-to-mono mix")
    }

    @Test("channelMap: output i takes input map[i], -1 is silence; a map of the wrong size or range is ignored")
    func channelMap() throws {
        let stereo = try Self.float32(channels: 2)
        let int16 = try Self.format(bits: 16)
        let converter = try #require(AVAudioConverter(from: stereo, to: int16))
        #expect(converter.channelMap == [0, 1])
        converter.channelMap = [1, -1]
        #expect(converter.channelMap == [1, -1])
        converter.channelMap = [0]
        converter.channelMap = [2, 0]
        #expect(converter.channelMap == [1, -1], "refused maps leave the map as it was")
        let out = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 3))
        try converter.convert(to: out, from: try Self.buffer(stereo, [[0.5, 0.5, 0.5], [0.25, -0.25, 0.125]]))
        let values = try #require(out.int16ChannelData).pointee
        #expect((0..<6).map { values[$0] } == [8_192, 0, -8_192, 0, 4_096, 0])
    }

    @Test("5.1 to stereo: without downmix the fronts by speaker; with downmix FFmpeg's mix (centre and surround at -3 dB, no LFE)")
    func surroundToStereo() throws {
        let layout = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A))
        let surround = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: layout)
        let stereo = try Self.float32(rate: 48_000, channels: 2)
        let frequencies: [Double] = [300, 400, 500, 100, 600, 700]
        let input = try Self.buffer(surround, frequencies.map { Self.sine($0, amplitude: 0.25, frames: 4_800, rate: 48_000) })
        let converter = try #require(AVAudioConverter(from: surround, to: stereo))
        #expect(converter.channelMap == [0, 1])
        let out = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 4_800))
        try converter.convert(to: out, from: input)
        let plain = Self.samples(out)
        #expect(abs(Self.amplitude(of: 300, in: plain[0], rate: 48_000) - 0.25) < 0.01)
        #expect(Self.amplitude(of: 500, in: plain[0], rate: 48_000) < 0.001)

        converter.downmix = true
        try converter.convert(to: out, from: input)
        let left = Self.samples(out)[0], right = Self.samples(out)[1]
        let level = { (f: Double, s: [Double]) in Self.amplitude(of: f, in: s, rate: 48_000) }
        #expect(abs(level(300, left) - 0.25) < 0.01, "front left in full: \(level(300, left))")
        #expect(abs(level(500, left) - 0.25 * 0.7071) < 0.01, "centre at -3 dB: \(level(500, left))")
        #expect(abs(level(600, left) - 0.25 * 0.7071) < 0.01, "left surround at -3 dB: \(level(600, left))")
        #expect(level(100, left) < 0.002 && level(400, left) < 0.002 && level(700, left) < 0.002, "no LFE, nothing of the right")
        #expect(abs(level(700, right) - 0.25 * 0.7071) < 0.01 && level(600, right) < 0.002)
    }

    @Test("dither: float to Int16 varies by an LSB or so around the value; without it every sample is the rounded value")
    func dither() throws {
        let source = try Self.float32(channels: 1)
        let int16 = try Self.format(channels: 1, bits: 16)
        let value = 1_000.3 / 32_768
        let input = try Self.buffer(source, [Array(repeating: value, count: 4_096)])
        let converter = try #require(AVAudioConverter(from: source, to: int16))
        let out = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 4_096))
        try converter.convert(to: out, from: input)
        let plain = (0..<4_096).compactMap { i in out.int16ChannelData.map { Int($0.pointee[i]) } }
        #expect(plain.count == 4_096 && Set(plain) == [1_000])
        converter.dither = true
        try converter.convert(to: out, from: input)
        let dithered = (0..<4_096).compactMap { i in out.int16ChannelData.map { Int($0.pointee[i]) } }
        let mean = Double(dithered.reduce(0, +)) / Double(dithered.count)
        #expect(Set(dithered).count >= 3, "dither spreads the values: \(Set(dithered).sorted())")
        #expect(dithered.allSatisfy { abs($0 - 1_000) <= 3 } && abs(mean - 1_000.3) < 0.1, "mean \(mean)")
    }

    @Test("refusals: other rates, too little room, other formats throw -50 in Apple's domain; impossible conversions give nil")
    func refusals() throws {
        let a = try Self.float32(rate: 44_100)
        let b = try Self.float32(rate: 16_000)
        let resampler = try #require(AVAudioConverter(from: a, to: b))
        let input = try Self.buffer(a, [[0, 0, 0], [0, 0, 0]])
        let out = try #require(AVAudioPCMBuffer(pcmFormat: b, frameCapacity: 100))
        for (what, run) in [("rate", { try resampler.convert(to: out, from: input) }),
                            ("room", {
                                let same = try #require(AVAudioConverter(from: a, to: a))
                                try same.convert(to: try #require(AVAudioPCMBuffer(pcmFormat: a, frameCapacity: 2)), from: input)
                            }),
                            ("format", {
                                let same = try #require(AVAudioConverter(from: b, to: b))
                                try same.convert(to: out, from: input)
                            })] as [(String, () throws -> Void)] {
            do {
                try run()
                Issue.record("\(what): no error")
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio" && error.code == -50, "\(what): \(error)")
            }
        }
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        let mp3 = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEGLayer3, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        let opus = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatOpus, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        #expect(AVAudioConverter(from: aac, to: mp3) == nil, "compressed to compressed")
        #expect(AVAudioConverter(from: a, to: mp3) == nil, "no MP3 encoder route")
        #expect(AVAudioConverter(from: a, to: opus) == nil, "Opus does not take 44.1 kHz")
        var unsigned16 = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM, mFormatFlags: kAudioFormatFlagIsPacked,
                                                     mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                                     mBitsPerChannel: 16, mReserved: 0)
        let odd = try #require(AVAudioFormat(streamDescription: &unsigned16))
        #expect(AVAudioConverter(from: a, to: odd) == nil, "unsigned 16-bit samples")
        #expect(AVAudioConverter(from: aac, to: a) != nil && AVAudioConverter(from: a, to: aac) != nil)
    }

    // MARK: - Sample-rate conversion through the input block

    @Test("44.1 kHz stereo to 16 kHz mono: 16000 frames a second, the tone where it was, its level kept")
    func resamples() throws {
        let input = try Self.float32()
        let output = try Self.float32(rate: 16_000, channels: 1)
        let converter = try #require(AVAudioConverter(from: input, to: output))
        converter.downmix = true
        let tone = Self.sine(1_000, amplitude: 0.5, frames: 44_100)
        let result = try Self.stream(converter, [tone, tone], chunks: [4_410], outputFrames: 4_000)[0]
        #expect(result.count == 16_000, "\(result.count) frames")
        #expect(Self.peaks(at: 1_000, in: result, rate: 16_000))
        // Both channels at 0.5 mixed at 0.707 each: 0.707 peak.
        #expect(abs(Self.amplitude(of: 1_000, in: result, rate: 16_000) - 0.5 * 2 * 0.5.squareRoot()) < 0.01)
        #expect(converter.primeInfo.leadingFrames == 45 && converter.primeInfo.trailingFrames == 45, "\(converter.primeInfo)")
    }

    @Test("streaming in pieces of any size (1 frame, odd sizes, output buffers of 1 to 5000 frames) gives exactly the samples of one piece")
    func streamingEqualsAtOnce() throws {
        let input = try Self.float32()
        let output = try Self.float32(rate: 16_000, channels: 1)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<6_000).map { _ -> Double in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(Int64(bitPattern: state) >> 11) / Double(1 << 53) * 0.8
        }
        let signal = [zip(noise, Self.sine(700, frames: 6_000)).map { $0 * 0.5 + $1 }, Self.sine(3_000, frames: 6_000)]
        func run(_ chunks: [Int], _ out: AVAudioFrameCount) throws -> [Double] {
            let converter = try #require(AVAudioConverter(from: input, to: output))
            converter.downmix = true
            return try Self.stream(converter, signal, chunks: chunks, outputFrames: out)[0]
        }
        let whole = try run([6_000], 5_000)
        #expect(whole.count == 2_177, "6000 frames at 16/44.1: \(whole.count)")
        for (chunks, out) in [([1], AVAudioFrameCount(5_000)), ([7, 13, 1, 441, 3, 2_048], 17), ([4_096], 1), ([999], 160)] {
            let pieces = try run(chunks, out)
            #expect(pieces == whole, "chunks \(chunks), output \(out): \(pieces.count) frames, first difference at \(String(describing: zip(pieces, whole).enumerated().first { $0.element.0 != $0.element.1 }?.offset))")
        }
    }

    @Test("statuses: noDataNow gives inputRanDry with what there is; endOfStream flushes, then endOfStream; reset starts a new stream")
    func statuses() throws {
        let input = try Self.float32(channels: 1)
        let output = try Self.float32(rate: 16_000, channels: 1)
        let converter = try #require(AVAudioConverter(from: input, to: output))
        let tone = Self.sine(1_000, frames: 4_410)
        var calls: [AVAudioPacketCount] = []
        var given = false
        let out = try #require(AVAudioPCMBuffer(pcmFormat: output, frameCapacity: 4_000))
        var error: NSError?
        let first = converter.convert(to: out, error: &error) { wanted, status in
            calls.append(wanted)
            if given { status.pointee = .noDataNow; return nil }
            given = true
            status.pointee = .haveData
            return try? Self.buffer(input, [tone])
        }
        #expect(first == .inputRanDry && calls.count == 2, "\(first) after \(calls)")
        #expect(calls.first == 11_025, "frames wanted for 4000 output frames: \(calls)")
        // The filter's look-ahead holds back the last few frames until the end.
        #expect(out.frameLength > 1_500 && out.frameLength < 1_600, "\(out.frameLength)")
        let start = Self.samples(out)[0]
        let second = converter.convert(to: out, error: &error) { _, status in
            status.pointee = .endOfStream
            return nil
        }
        #expect(second == .haveData && Int(out.frameLength) + start.count == 1_600, "\(second): \(out.frameLength) more")
        let third = converter.convert(to: out, error: &error) { _, status in
            Issue.record("no input is asked for after the end")
            status.pointee = .endOfStream
            return nil
        }
        #expect(third == .endOfStream && out.frameLength == 0)

        converter.reset()
        let again = try Self.stream(converter, [tone], chunks: [4_410], outputFrames: 4_000)[0]
        let fresh = try Self.stream(try #require(AVAudioConverter(from: input, to: output)), [tone], chunks: [4_410], outputFrames: 4_000)[0]
        #expect(again == fresh && again.count == 1_600)

        // A block that says it has data but gives none: an error in Apple's domain.
        converter.reset()
        let failed = converter.convert(to: out, error: &error) { _, status in
            status.pointee = .haveData
            return nil
        }
        #expect(failed == .error && error?.code == -50 && error?.domain == "com.apple.coreaudio.avfaudio")
    }

    @Test("quality: the default is high, FFmpeg's filter; min and max are other filters that keep the tone; .pre drops the leading frames' output")
    func qualityAndPriming() throws {
        let input = try Self.float32(channels: 1)
        let output = try Self.float32(rate: 16_000, channels: 1)
        let tone = [Self.sine(1_000, frames: 8_820)]
        func run(_ configure: (AVAudioConverter) -> Void) throws -> [Double] {
            let converter = try #require(AVAudioConverter(from: input, to: output))
            configure(converter)
            return try Self.stream(converter, tone, chunks: [1_000], outputFrames: 1_000)[0]
        }
        let standard = try run { _ in }
        let high = try run { $0.sampleRateConverterQuality = AVAudioQuality.high.rawValue }
        let low = try run { $0.sampleRateConverterQuality = AVAudioQuality.min.rawValue }
        let best = try run { $0.sampleRateConverterQuality = AVAudioQuality.max.rawValue }
        let mastering = try run { $0.sampleRateConverterAlgorithm = AVSampleRateConverterAlgorithm_Mastering }
        #expect(standard == high)
        #expect(standard != low && standard != best && mastering == best, "Mastering at high quality takes the max filter")
        for s in [low, best] {
            #expect(Self.peaks(at: 1_000, in: s.dropFirst(100).dropLast(100), rate: 16_000))
            #expect(abs(Self.amplitude(of: 1_000, in: s.dropFirst(100).dropLast(100), rate: 16_000) - 0.5) < 0.02)
        }
        let converter = try #require(AVAudioConverter(from: input, to: output))
        #expect(converter.sampleRateConverterQuality == AVAudioQuality.high.rawValue && converter.primeMethod == .normal)
        #expect(converter.sampleRateConverterAlgorithm == AVSampleRateConverterAlgorithm_Normal)
        // 441 input frames are exactly 160 output frames.
        let primed = try run {
            $0.primeMethod = .pre
            $0.primeInfo = AVAudioConverterPrimeInfo(leadingFrames: 441, trailingFrames: 0)
        }
        #expect(primed == Array(standard.dropFirst(160)))
        let none = try run { $0.primeMethod = .none }
        #expect(none == standard, ".none is FFmpeg's zero-latency output too")
    }

    @Test("the block form without rate change: Int16 interleaved to Float32, any buffer sizes, every frame once")
    func sameRateThroughTheBlock() throws {
        let input = try Self.format(bits: 16)
        let output = try Self.float32()
        let converter = try #require(AVAudioConverter(from: input, to: output))
        let signal = [Self.sine(440, frames: 1_000), Self.sine(880, frames: 1_000)]
        let result = try Self.stream(converter, signal, chunks: [333], outputFrames: 256)
        #expect(result[0].count == 1_000)
        #expect(zip(result.joined(), signal.joined()).allSatisfy { abs($0 - $1) <= 0.5 / 32_768 + 1e-9 })
    }

    // MARK: - Encoding and decoding

    /// `signal` (stereo at the format's rate) encoded into packets: each packet's bytes and the
    /// encoder's cookie.
    static func encode(_ signal: [[Double]], from input: AVAudioFormat, to output: AVAudioFormat,
                       bitRate: Int? = nil) throws -> (packets: [Data], cookie: Data?, converter: AVAudioConverter) {
        let converter = try #require(AVAudioConverter(from: input, to: output))
        if let bitRate { converter.bitRate = bitRate }
        let size = converter.maximumOutputPacketSize
        #expect(size > 0)
        var packets: [Data] = []
        var offset = 0
        let total = signal[0].count
        while true {
            let out = AVAudioCompressedBuffer(format: output, packetCapacity: 8, maximumPacketSize: size)
            var error: NSError?
            let status = converter.convert(to: out, error: &error) { wanted, status in
                guard offset < total else { status.pointee = .endOfStream; return nil }
                let n = min(Int(wanted), 3_000, total - offset)
                defer { offset += n }
                status.pointee = .haveData
                return try? buffer(input, signal.map { Array($0[offset..<(offset + n)]) })
            }
            #expect(status != .error, "\(String(describing: error))")
            guard status != .error else { break }
            let descriptions = try #require(out.packetDescriptions)
            for p in 0..<Int(out.packetCount) {
                let d = descriptions[p]
                #expect(d.mStartOffset + Int64(d.mDataByteSize) <= Int64(out.byteLength))
                packets.append(Data(bytes: out.data + Int(d.mStartOffset), count: Int(d.mDataByteSize)))
            }
            if status == .endOfStream { break }
        }
        return (packets, converter.magicCookie, converter)
    }

    /// `packets` decoded to `output`, fed a few at a time in one compressed buffer.
    static func decode(_ packets: [Data], format: AVAudioFormat, to output: AVAudioFormat) throws -> [[Double]] {
        let converter = try #require(AVAudioConverter(from: format, to: output))
        let largest = packets.map(\.count).max() ?? 1
        var next = 0
        var result = [[Double]](repeating: [], count: Int(output.channelCount))
        let input = AVAudioCompressedBuffer(format: format, packetCapacity: 3, maximumPacketSize: largest)
        while true {
            let out = try #require(AVAudioPCMBuffer(pcmFormat: output, frameCapacity: 3_000))
            var error: NSError?
            let status = converter.convert(to: out, error: &error) { _, status in
                guard next < packets.count else { status.pointee = .endOfStream; return nil }
                var offset = 0, count = 0
                while count < 3, next < packets.count {
                    packets[next].copyBytes(to: input.data.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: packets[next].count)
                    input.packetDescriptions?[count] = AudioStreamPacketDescription(mStartOffset: Int64(offset), mVariableFramesInPacket: 0,
                                                                                   mDataByteSize: UInt32(packets[next].count))
                    offset += packets[next].count
                    count += 1
                    next += 1
                }
                input.packetCount = AVAudioPacketCount(count)
                input.byteLength = UInt32(offset)
                status.pointee = .haveData
                return input
            }
            #expect(status != .error, "\(String(describing: error))")
            for (c, s) in samples(out).enumerated() { result[c] += s }
            if status == .endOfStream || status == .error { break }
        }
        return result
    }

    @Test("PCM -> AAC -> PCM: packets of AAC with a cookie, decoded back to the same tones at the same level")
    func aacRoundTrip() throws {
        let input = try Self.float32()
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        let signal = [Self.sine(1_000, frames: 88_200), Self.sine(2_500, amplitude: 0.25, frames: 88_200)]
        let (packets, cookie, encoder) = try Self.encode(signal, from: input, to: aac, bitRate: 128_000)
        #expect(encoder.bitRate == 128_000)
        #expect(encoder.maximumOutputPacketSize == 1_536)
        #expect(encoder.availableEncodeSampleRates?.contains(44_100) == true && encoder.availableEncodeSampleRates?.contains(96_000) == true)
        #expect(encoder.applicableEncodeBitRates?.contains(128_000) == true && encoder.availableEncodeBitRates?.contains(16_000) == true)
        #expect(encoder.availableEncodeChannelLayoutTags?.contains(NSNumber(value: kAudioChannelLayoutTag_Stereo)) == true)
        #expect(encoder.primeInfo.leadingFrames == 1_024, "AAC's priming")
        // AAC-LC (object type 2), 44.1 kHz (index 4), 2 channels: 0x12 0x10.
        #expect(cookie.map { [UInt8]($0.prefix(2)) } == [0x12, 0x10], "\(String(describing: cookie.map { [UInt8]($0) }))")
        // 88200 frames in 1024-frame packets, with the priming and the padding.
        #expect((87...90).contains(packets.count), "\(packets.count) packets")
        let bytes = packets.reduce(0) { $0 + $1.count }
        #expect(abs(Double(bytes * 8) / 2.0 - 128_000) < 16_000, "about 128 kb/s: \(bytes * 8 / 2) b/s")

        aac.magicCookie = cookie
        let decoded = try Self.decode(packets, format: aac, to: input)
        #expect(decoded[0].count == packets.count * 1_024, "every packet decodes to 1024 frames: \(decoded[0].count)")
        let middle = { (s: [Double]) in s[22_050..<66_150] }
        #expect(Self.peaks(at: 1_000, in: middle(decoded[0]), rate: 44_100) && Self.peaks(at: 2_500, in: middle(decoded[1]), rate: 44_100))
        #expect(abs(Self.rms(middle(decoded[0])) - 0.5 / 2.0.squareRoot()) < 0.02, "left level \(Self.rms(middle(decoded[0])))")
        #expect(abs(Self.rms(middle(decoded[1])) - 0.25 / 2.0.squareRoot()) < 0.02, "right level \(Self.rms(middle(decoded[1])))")
    }

    @Test("PCM -> FLAC / ALAC -> PCM is lossless: every Int16 sample comes back", arguments: [kAudioFormatFLAC, kAudioFormatAppleLossless])
    func losslessRoundTrip(_ formatID: AudioFormatID) throws {
        let input = try Self.format(bits: 16)
        let compressed = try #require(AVAudioFormat(settings: [AVFormatIDKey: formatID, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        let signal = [Self.sine(440, frames: 20_000), Self.sine(880, amplitude: 0.3, frames: 20_000)]
        let (packets, cookie, encoder) = try Self.encode(signal, from: input, to: compressed)
        #expect(cookie != nil && !packets.isEmpty)
        #expect(encoder.bitRate == 0 && encoder.availableEncodeBitRates == nil, "lossless codecs take no bit rate")
        compressed.magicCookie = cookie
        let decoded = try Self.decode(packets, format: compressed, to: input)
        #expect(decoded[0].count == 20_000, "\(decoded[0].count) frames")
        let original = try Self.samples(Self.buffer(input, signal))
        #expect(decoded == original, "lossless")
    }

    @Test("PCM -> Opus at 48 kHz -> PCM: the tone at its level")
    func opusRoundTrip() throws {
        let input = try Self.float32(rate: 48_000, channels: 1)
        let opus = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatOpus, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1]))
        let (packets, cookie, encoder) = try Self.encode([Self.sine(1_000, frames: 48_000, rate: 48_000)], from: input, to: opus, bitRate: 64_000)
        #expect(encoder.availableEncodeSampleRates == [8_000, 12_000, 16_000, 24_000, 48_000].map { NSNumber(value: $0) })
        #expect(cookie.map { [UInt8]($0.prefix(8)) } == Array("OpusHead".utf8))
        #expect((50...53).contains(packets.count), "20 ms packets: \(packets.count)")
        opus.magicCookie = cookie
        let decoded = try Self.decode(packets, format: opus, to: input)[0]
        let middle = decoded[12_000..<36_000]
        #expect(Self.peaks(at: 1_000, in: middle, rate: 48_000))
        #expect(abs(Self.rms(middle) - 0.5 / 2.0.squareRoot()) < 0.03, "level \(Self.rms(middle))")
    }
}
