internal import CFFmpeg
import Foundation

/// Decodes compressed audio packets handed in one by one (not read from a container): AAC, MP3, MP2,
/// MP1, FLAC, ALAC, Opus, Vorbis, AC-3, E-AC-3, AMR, µ-law and A-law, through FFmpeg's decoders
/// (a `StreamDecoder` opened from parameters made here rather than from a demuxed stream). A decoded
/// frame is held until the next `receive()`, for a `SampleConverter` to take
/// (`SampleConverter.convert(heldFrameOf:to:capacity:)`).
///
/// CPU work on the calling thread, no waits; one caller at a time. Owns its decoder, packet and frame.
package final class AudioPacketDecoder {
    private let decoder: StreamDecoder
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var holdsFrame = false

    /// Whether this FFmpeg has a decoder for `codec`.
    package static func canDecode(_ codec: Codec) -> Bool { codecID(codec).map { avcodec_find_decoder($0) != nil } ?? false }

    /// FFmpeg's codec for `codec`, by its name.
    static func codecID(_ codec: Codec) -> AVCodecID? {
        guard let name = codec.ffmpegName, let descriptor = avcodec_descriptor_get_by_name(name) else { return nil }
        return descriptor.pointee.type == AVMEDIA_TYPE_AUDIO ? descriptor.pointee.id : nil
    }

    /// Opens a decoder. Costs what the codec's set-up costs (tables: well under a millisecond).
    ///
    /// - Parameters:
    ///   - codec: The codec.
    ///   - sampleRate: The stream's rate, as its format says.
    ///   - channels: The stream's channel count.
    ///   - extradata: The codec's set-up bytes (FFmpeg's extradata: an AAC AudioSpecificConfig, a
    ///     FLAC STREAMINFO, an ALAC atom, an OpusHead); nil for none.
    ///   - bitsPerSample: Bits a coded sample, where the codec needs to know (0: unknown).
    /// - Throws: `.unsupported` when this FFmpeg has no decoder for the codec or it refuses the
    ///   parameters; `.outOfMemory`.
    package init(codec: Codec, sampleRate: Int, channels: Int, extradata: Data?, bitsPerSample: Int = 0) throws {
        let operation = "open the audio decoder"
        guard let id = Self.codecID(codec), avcodec_find_decoder(id) != nil else {
            throw MediaEngineError(.unsupported, source: "audio converter", operation: operation, reason: "this FFmpeg has no decoder for \(codec)")
        }
        guard sampleRate > 0, sampleRate <= Int(Int32.max), channels > 0, channels <= SampleConverter.maximumChannels,
              (extradata?.count ?? 0) < 1 << 24 else {
            throw MediaEngineError(.invalidArgument, source: "audio converter", operation: operation,
                                   reason: "\(channels) channels at \(sampleRate) Hz cannot be decoded")
        }
        decoder = try Self.openDecoder(id, sampleRate: sampleRate, channels: channels, extradata: extradata, bitsPerSample: bitsPerSample)
        var p = av_packet_alloc()
        guard let f = av_frame_alloc() else {
            av_packet_free(&p)
            throw MediaEngineError(.outOfMemory, source: "audio converter", operation: operation, reason: "out of memory")
        }
        guard let made = p else {
            var unused: UnsafeMutablePointer<AVFrame>? = f
            av_frame_free(&unused)
            throw MediaEngineError(.outOfMemory, source: "audio converter", operation: operation, reason: "out of memory")
        }
        (packet, frame) = (made, f)
    }

    /// A `StreamDecoder` for the parameters, opened through a stream of a container of no format
    /// that only carries them into its init (which copies them) and is freed before this returns.
    private static func openDecoder(_ id: AVCodecID, sampleRate: Int, channels: Int, extradata: Data?, bitsPerSample: Int) throws -> StreamDecoder {
        let operation = "open the audio decoder"
        let container = avformat_alloc_context()
        defer { avformat_free_context(container) }
        guard let ctx = container, let stream = avformat_new_stream(ctx, nil), let parameters = stream.pointee.codecpar else {
            throw MediaEngineError(.outOfMemory, source: "audio converter", operation: operation, reason: "out of memory")
        }
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = id
        parameters.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&parameters.pointee.ch_layout, Int32(channels))
        parameters.pointee.bits_per_coded_sample = Int32(clamping: bitsPerSample)
        if let extradata, !extradata.isEmpty {
            // Owned by the parameters from here on (freed with the container).
            guard let bytes = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
                throw MediaEngineError(.outOfMemory, source: "audio converter", operation: operation, reason: "out of memory")
            }
            extradata.copyBytes(to: bytes.assumingMemoryBound(to: UInt8.self), count: extradata.count)
            parameters.pointee.extradata = bytes.assumingMemoryBound(to: UInt8.self)
            parameters.pointee.extradata_size = Int32(extradata.count)
        }
        stream.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        return try FFmpegLog.capturing { try StreamDecoder(stream: stream, source: "audio converter") }
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// Hands the decoder one packet's bytes (copied). Damaged packets are dropped, as players drop them.
    ///
    /// - Returns: false when the decoder holds frames to take first (`receive()`); send it again then.
    package func send(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= Int(Int32.max) - Int(AV_INPUT_BUFFER_PADDING_SIZE) else { return true }
        av_packet_unref(packet)
        try FFmpeg.check(av_new_packet(packet, Int32(bytes.count)), "decode audio", source: "audio converter")
        guard let data = packet.pointee.data else { return true }
        data.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        let sent = try FFmpegLog.capturing { try decoder.send(packet) }
        av_packet_unref(packet)
        return sent != .full
    }

    /// Tells the decoder the packets have ended: `receive()` then gives what it still holds.
    package func sendEnd() throws {
        _ = try FFmpegLog.capturing { try decoder.send(nil) }
    }

    /// What `receive()` gave.
    package enum Received: Sendable, Equatable {
        /// A frame is held (`heldFrames` frames).
        case frame
        /// Send more packets.
        case needsInput
        /// Drained after `sendEnd()`.
        case end
    }

    /// Takes the next decoded frame (dropping the one held). Frames that fail to decode are skipped
    /// (after 64 in a row the decoder is taken to want more packets). CPU work on the calling thread.
    package func receive() -> Received {
        if holdsFrame { av_frame_unref(frame); holdsFrame = false }
        for _ in 0..<64 {
            switch FFmpegLog.capturing({ decoder.receive(into: frame) }) {
            case .frame:
                holdsFrame = true
                return .frame
            case .needsInput: return .needsInput
            case .end: return .end
            case .damaged: continue
            }
        }
        return .needsInput
    }

    /// The raw shape of the last frame whose shape was asked for, its `Shape`, and how many times
    /// it changed: decoded frames keep their shape, so it is worked out once, not per frame.
    private var shapeKey: (format: Int32, rate: Int32, channels: Int32, order: UInt32, mask: UInt64)?
    private var shape: SampleConverter.Shape?
    /// Counts the changes of ``shapeOfHeldFrame()``'s answer: a converter made for one shape stays
    /// right while this stays the same.
    package private(set) var shapeVersion = 0

    /// The shape of the held frame's samples; nil without one, or for a sample format Core Audio
    /// cannot name.
    package func shapeOfHeldFrame() -> SampleConverter.Shape? {
        guard holdsFrame else { return nil }
        let f = frame.pointee
        let native = f.ch_layout.order == AV_CHANNEL_ORDER_NATIVE
        let key = (format: f.format, rate: f.sample_rate, channels: f.ch_layout.nb_channels, order: f.ch_layout.order.rawValue,
                   mask: native ? f.ch_layout.u.mask : 0)
        if let known = shapeKey, known == key { return shape }
        shapeKey = key
        shape = SampleConverter.shape(of: frame)
        shapeVersion += 1
        return shape
    }

    /// The frames the held frame carries (0 without one).
    package var heldFrames: Int { holdsFrame ? Int(frame.pointee.nb_samples) : 0 }

    /// The held frame, for `SampleConverter`.
    var heldFrame: UnsafePointer<AVFrame>? { holdsFrame ? UnsafePointer(frame) : nil }

    /// Drops the held frame (it was converted).
    package func releaseFrame() {
        if holdsFrame { av_frame_unref(frame); holdsFrame = false }
    }

    /// Forgets everything held: a new stream of packets follows.
    package func reset() {
        releaseFrame()
        decoder.flush()
    }
}

extension SampleConverter {
    /// Converts every sample of the frame `decoder` holds (its shape must be this converter's input)
    /// into `output`, up to `capacity` frames; the rest is kept for the next call. The frame is
    /// released.
    package func convert(heldFrameOf decoder: AudioPacketDecoder, to output: UnsafePointer<UnsafeMutableRawPointer?>, capacity: Int) throws -> Int {
        guard let frame = decoder.heldFrame else { return try convertBuffered(to: output, capacity: capacity) }
        defer { decoder.releaseFrame() }
        return try convert(frame: frame, to: output, capacity: capacity)
    }
}
