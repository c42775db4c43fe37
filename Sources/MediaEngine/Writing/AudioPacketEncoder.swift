internal import CFFmpeg
import Foundation

/// Encodes interleaved float sound into compressed packets kept in a queue for the caller to take one
/// by one (not written to a container): AAC, FLAC, ALAC and Opus through the `StreamEncoder` a writer's
/// audio track uses (FFmpeg's aac, flac, alac and libopus, with a global header so the set-up bytes
/// are `extradata`).
///
/// CPU work on the calling thread, no waits; one caller at a time. A finished encoder cannot take more
/// sound: make a new one for a new stream.
package final class AudioPacketEncoder {
    private let encoder: StreamEncoder
    /// The codec encoded.
    package let codec: WriterTrackSettings.AudioEncoding.Codec
    /// The encoded rate; sound is given at this rate.
    package let sampleRate: Int
    /// The encoded channel count; sound is given with these channels.
    package let channels: Int
    /// Encoded packets not yet taken (bytes, frames), and the index of the next.
    private var queue: [(bytes: [UInt8], frames: Int)] = []
    private var head = 0
    /// The sample time of the next sound encoded.
    private var nextTime: Int64 = 0
    /// Whether ``finish()`` was called: no more sound is taken.
    package private(set) var isFinished = false

    /// Opens an encoder. Costs the codec's set-up (well under a millisecond; libopus's a little more).
    ///
    /// - Parameters:
    ///   - codec: AAC, FLAC, ALAC or Opus (linear PCM is not packets).
    ///   - sampleRate: The encoded rate (Opus: 8, 12, 16, 24 or 48 kHz; AAC: 7.35 to 96 kHz).
    ///   - channels: The channel count (FFmpeg's default layout for it).
    ///   - bitRate: Bits a second for the lossy codecs; nil for the encoder's default.
    /// - Throws: `.unsupported` when the encoder refuses the parameters or is missing.
    package init(codec: WriterTrackSettings.AudioEncoding.Codec, sampleRate: Int, channels: Int, bitRate: Int?) throws {
        guard sampleRate > 0, sampleRate <= 768_000, channels > 0, channels <= 64 else {
            throw MediaEngineError(.invalidArgument, source: "audio converter", operation: "open the audio encoder",
                                   reason: "\(channels) channels at \(sampleRate) Hz cannot be encoded")
        }
        if case .linearPCM = codec {
            throw MediaEngineError(.unsupported, source: "audio converter", operation: "open the audio encoder", reason: "linear PCM is not encoded into packets")
        }
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        let settings = WriterTrackSettings.AudioEncoding(codec: codec, sampleRate: Int32(sampleRate), channels: Int32(channels), bitRate: bitRate)
        encoder = try StreamEncoder.audio(settings, globalHeader: true, source: "audio converter")
    }

    /// The codec's set-up bytes (FFmpeg's extradata: an AudioSpecificConfig for AAC, STREAMINFO for
    /// FLAC, the ALAC atom, an OpusHead); nil for none.
    package var extradata: Data? {
        guard let ctx = encoder.codecContext, let bytes = ctx.pointee.extradata, ctx.pointee.extradata_size > 0 else { return nil }
        return Data(bytes: bytes, count: Int(ctx.pointee.extradata_size))
    }

    /// Frames a packet holds (AAC 1024, Opus 960 at 48 kHz, FLAC 4608 at 44.1 kHz, ALAC 4096).
    package var frameSize: Int { encoder.frameSize }

    /// The frames of priming the encoder puts before the sound (AAC's 1024, Opus's 312).
    package var primingFrames: Int { Int(encoder.codecContext?.pointee.initial_padding ?? 0) }

    /// The bit rate the encoder runs at (0 for lossless codecs that state none).
    package var bitRate: Int { Int(encoder.codecContext?.pointee.bit_rate ?? 0) }

    /// The largest packet the encoder can make, in bytes: AAC's 6144 bits a channel, Opus's
    /// 1275 bytes a 20 ms frame plus its header, the lossless codecs' uncompressed frame and headers.
    package var maximumPacketSize: Int {
        let frames = max(frameSize, 1)
        switch codec {
        case .aac: return 768 * channels
        case .opus: return 1275 * 3 + 7
        case .flac, .alac: return frames * channels * 4 + 1024
        case .linearPCM(let bits, _, _): return frames * channels * max(1, bits / 8)
        }
    }

    /// Queues `samples` (interleaved float, `channels` a frame, at `sampleRate`), encoding every full
    /// packet's worth. CPU work on the calling thread; a packet's bytes are allocated as it is made.
    package func encode(interleaved samples: [Float]) throws {
        guard !isFinished, samples.count >= channels else { return }
        let frames = samples.count / channels
        try encoder.encode(interleaved: samples, rate: Int32(sampleRate), channels: Int32(channels), pts: nextTime) { packet in
            take(packet)
        }
        nextTime = nextTime.addingSaturating(Int64(frames))
    }

    /// Encodes what is queued (the last packet short) and drains the encoder.
    package func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        try encoder.finishSound { packet in take(packet) }
    }

    /// The size of the next packet; nil when none is queued.
    package var nextPacketSize: Int? { head < queue.count ? queue[head].bytes.count : nil }

    /// Copies the next packet to `destination` (which must have room for ``nextPacketSize`` bytes)
    /// and drops it from the queue.
    ///
    /// - Returns: Its bytes and frames; nil when none is queued.
    package func takePacket(into destination: UnsafeMutableRawPointer) -> (bytes: Int, frames: Int)? {
        guard head < queue.count else { return nil }
        let (bytes, frames) = queue[head]
        bytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(destination), byteCount: $0.count) }
        head += 1
        if head == queue.count { queue.removeAll(keepingCapacity: true); head = 0 }
        return (bytes.count, frames)
    }

    private func take(_ packet: UnsafeMutablePointer<AVPacket>) {
        let p = packet.pointee
        guard let data = p.data, p.size > 0 else { return }
        queue.append((Array(UnsafeBufferPointer(start: data, count: Int(p.size))), Int(clamping: max(0, p.duration))))
    }

    /// The rates FFmpeg's encoder for `codec` takes; nil where it takes any.
    package static func supportedSampleRates(_ codec: WriterTrackSettings.AudioEncoding.Codec) -> [Int]? {
        guard let name = encoderName(codec), let encoder = avcodec_find_encoder_by_name(name), let rates = encoder.pointee.supported_samplerates else { return nil }
        var result: [Int] = []
        var i = 0
        while rates[i] != 0, i < 64 {
            result.append(Int(rates[i]))
            i += 1
        }
        return result.sorted()
    }

    /// Whether this FFmpeg has the encoder `codec` needs.
    package static func canEncode(_ codec: WriterTrackSettings.AudioEncoding.Codec) -> Bool {
        encoderName(codec).map { avcodec_find_encoder_by_name($0) != nil } ?? false
    }

    private static func encoderName(_ codec: WriterTrackSettings.AudioEncoding.Codec) -> String? {
        switch codec {
        case .aac: return "aac"
        case .flac: return "flac"
        case .alac: return "alac"
        case .opus: return "libopus"
        case .linearPCM: return nil
        }
    }
}
