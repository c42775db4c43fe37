import Foundation

/// Linear PCM as reader outputs hand it out: the stream description for a settings dictionary, and
/// packing interleaved 32-bit float samples into its encoding (8, 16, 24 or 32-bit signed integers,
/// 32 or 64-bit floats; either byte order; interleaved, or one channel after another). CPU work on the
/// calling thread, one pass over the samples.
enum LinearPCM {
    /// Sample buffers of linear PCM in one encoding, at one rate and channel count.
    struct Output {
        let rate: Int32
        let channels: Int
        let settings: ReaderOutputFormat.PCMSettings
        let description: AudioStreamBasicDescription
        let formatDescription: CMAudioFormatDescription

        init(_ settings: ReaderOutputFormat.PCMSettings, rate: Int32, channels: Int) throws {
            (self.rate, self.channels, self.settings) = (rate, channels, settings)
            description = LinearPCM.description(settings, rate: Double(rate), channels: channels)
            formatDescription = try CMFormatDescription(audioStreamBasicDescription: description)
        }

        /// A buffer of `samples` (interleaved 32-bit float, `channels` a frame) in the output's
        /// encoding, its first frame at `frame` (item time, at `rate`), each frame lasting 1/`rate`.
        func sampleBuffer(_ samples: [Float], at frame: Int64) throws -> CMSampleBuffer {
            try samples.withUnsafeBufferPointer { try sampleBuffer($0, at: frame) }
        }

        /// The same from samples lent for the call (packed straight into the buffer's memory).
        func sampleBuffer(_ samples: UnsafeBufferPointer<Float>, at frame: Int64) throws -> CMSampleBuffer {
            let frames = samples.count / channels
            let bytes = LinearPCM.byteCount(frames: frames, description)
            let block = try SampleMemory.blockBuffer(length: bytes) { memory in
                LinearPCM.pack(samples, channels: channels, settings, into: memory)
            }
            let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: rate), presentationTimeStamp: CMTime(value: frame, timescale: rate),
                                            decodeTimeStamp: .invalid)
            return try SampleMemory.sampleBuffer(data: block, formatDescription: formatDescription, samples: frames, timing: timing,
                                                 size: Int(description.mBytesPerFrame))
        }
    }

    /// Apple's description of the encoding `settings` ask for.
    /// (The reader's channel counts are a stream's, far from a frame too large for 32 bits; such a
    /// frame would give an empty description.)
    static func description(_ settings: ReaderOutputFormat.PCMSettings, rate: Double, channels: Int) -> AudioStreamBasicDescription {
        AudioStreamBasicDescription.linearPCM(sampleRate: rate, channels: UInt32(clamping: channels), bits: UInt32(clamping: settings.bitDepth),
                                              isFloat: settings.isFloat, isBigEndian: settings.isBigEndian,
                                              isNonInterleaved: settings.isNonInterleaved) ?? AudioStreamBasicDescription()
    }

    /// The bytes `frames` frames take (every channel).
    static func byteCount(frames: Int, _ description: AudioStreamBasicDescription) -> Int {
        frames * Int(description.mChannelsPerFrame) * Int(description.mBitsPerChannel / 8)
    }

    /// Writes `samples` (interleaved, `channels` a frame, nominally -1...1) into `memory` as `settings`
    /// say; integers are rounded and clipped.
    static func pack(_ samples: UnsafeBufferPointer<Float>, channels: Int, _ settings: ReaderOutputFormat.PCMSettings, into memory: UnsafeMutableRawPointer) {
        let frames = samples.count / channels
        let sampleBytes = settings.bitDepth / 8
        // Where sample `i` of the interleaved input goes, in samples from the start.
        let planar = settings.isNonInterleaved && channels > 1
        if settings.isFloat, settings.bitDepth == 32, !settings.isBigEndian, !planar {
            if let base = samples.baseAddress { memory.copyMemory(from: base, byteCount: frames * channels * 4) }
            return
        }
        for i in 0..<(frames * channels) {
            let slot = planar ? (i % channels) * frames + i / channels : i
            store(samples[i], at: memory + slot * sampleBytes, settings)
        }
    }

    private static func store(_ value: Float, at pointer: UnsafeMutableRawPointer, _ settings: ReaderOutputFormat.PCMSettings) {
        let big = settings.isBigEndian
        switch (settings.isFloat, settings.bitDepth) {
        case (true, 64):
            let bits = Double(value).bitPattern
            pointer.storeBytes(of: big ? bits.bigEndian : bits.littleEndian, as: UInt64.self)
        case (true, _):
            let bits = value.bitPattern
            pointer.storeBytes(of: big ? bits.bigEndian : bits.littleEndian, as: UInt32.self)
        case (false, 8):
            pointer.storeBytes(of: Int8(clipping: value, scale: 128), as: Int8.self)
        case (false, 16):
            let v = Int16(clipping: value, scale: 32768)
            pointer.storeBytes(of: big ? v.bigEndian : v.littleEndian, as: Int16.self)
        case (false, 24):
            let v = Int32(clipping: value, scale: 8_388_608, max: 8_388_607)
            let bytes = [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16)]
            for (k, byte) in (big ? bytes.reversed() : bytes).enumerated() { pointer.storeBytes(of: byte, toByteOffset: k, as: UInt8.self) }
        default:
            let v = Int32(clipping: value, scale: 2_147_483_648, max: 2_147_483_647)
            pointer.storeBytes(of: big ? v.bigEndian : v.littleEndian, as: Int32.self)
        }
    }
}

private extension FixedWidthInteger where Self: SignedInteger {
    /// `value * scale` rounded, clipped to the type (or to `max`); NaN is 0.
    init(clipping value: Float, scale: Double, max upper: Double? = nil) {
        let scaled = (Double(value) * scale).rounded()
        let top = upper ?? Double(Self.max)
        let bottom = -scale
        if scaled.isNaN {
            self = 0
        } else {
            self = Self(Swift.max(bottom, Swift.min(top, scaled)))
        }
    }
}

extension LinearPCM {
    /// The linear PCM of `buffer` (any bit depth, integer or float, either byte order, interleaved or
    /// not) as interleaved 32-bit float, with its channel count; nil when the buffer is not linear PCM
    /// or its data is not readable. One pass over the samples, on the calling thread.
    static func floats(of buffer: CMSampleBuffer) -> (samples: [Float], channels: Int)? {
        guard let asbd = buffer.formatDescription?.audioStreamBasicDescription, asbd.mFormatID == kAudioFormatLinearPCM,
              asbd.mChannelsPerFrame > 0, asbd.mBitsPerChannel > 0, asbd.mBitsPerChannel % 8 == 0, asbd.mBitsPerChannel <= 64 else { return nil }
        let channels = Int(asbd.mChannelsPerFrame)
        let frames = buffer.numSamples
        let isFloat = asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let big = asbd.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
        let planar = asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0 && channels > 1
        let bytes = Int(asbd.mBitsPerChannel / 8)
        guard let data = buffer.dataBuffer, frames >= 0, data.dataLength >= frames * channels * bytes,
              let contiguous = try? data.dataBytes() else { return nil }
        var out = [Float](repeating: 0, count: frames * channels)
        contiguous.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            for i in 0..<(frames * channels) {
                // Sample i of the interleaved output: frame i / channels, channel i % channels.
                let slot = planar ? (i % channels) * frames + i / channels : i
                out[i] = value(at: base + slot * bytes, bytes: bytes, isFloat: isFloat, bigEndian: big)
            }
        }
        return (out, channels)
    }

    private static func value(at p: UnsafeRawPointer, bytes: Int, isFloat: Bool, bigEndian: Bool) -> Float {
        switch (isFloat, bytes) {
        case (true, 8):
            let bits = p.loadUnaligned(as: UInt64.self)
            return Float(Double(bitPattern: bigEndian ? UInt64(bigEndian: bits) : UInt64(littleEndian: bits)))
        case (true, _):
            let bits = p.loadUnaligned(as: UInt32.self)
            return Float(bitPattern: bigEndian ? UInt32(bigEndian: bits) : UInt32(littleEndian: bits))
        case (false, 1):
            return Float(p.load(as: Int8.self)) / 128
        case (false, 2):
            let bits = p.loadUnaligned(as: Int16.self)
            return Float(bigEndian ? Int16(bigEndian: bits) : Int16(littleEndian: bits)) / 32768
        case (false, 3):
            let b0 = Int32(p.load(fromByteOffset: 0, as: UInt8.self)), b1 = Int32(p.load(fromByteOffset: 1, as: UInt8.self))
            let b2 = Int32(p.load(fromByteOffset: 2, as: UInt8.self))
            let v = bigEndian ? (b0 << 16 | b1 << 8 | b2) : (b2 << 16 | b1 << 8 | b0)
            return Float((v << 8) >> 8) / 8_388_608
        default:
            let bits = p.loadUnaligned(as: Int32.self)
            return Float(Double(bigEndian ? Int32(bigEndian: bits) : Int32(littleEndian: bits)) / 2_147_483_648)
        }
    }
}
