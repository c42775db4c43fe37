internal import CFFmpeg
import Foundation

/// The one owner of a stream's decoding `AVCodecContext`: opened from the stream's parameters, freed in
/// `deinit`. Video decodes with frame and slice threads (up to four, never more than the machine's
/// cores) unless opened `onOneThread`: a long decode forward runs faster (1080p H.264 on two cores:
/// 0.45 s instead of 0.6 s for a seven-second group of pictures), and a single picture costs one
/// drain, but every picture costs about 7% more CPU (60 s of 1080p30 H.264: 7.85 s against 7.3 s on
/// one thread). Audio decodes on the calling thread.
///
/// Blocking CPU work: call only on an engine thread; one caller at a time (its reader's operation).
final class StreamDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    let source: String

    /// Opens a decoder for `stream`. Throws `.unsupported` when this FFmpeg has none for the codec.
    convenience init(stream: UnsafeMutablePointer<AVStream>, source: String, onOneThread: Bool = false) throws {
        guard let parameters = stream.pointee.codecpar else {
            throw MediaEngineError(.failed, source: source, operation: "open the decoder", reason: "the stream has no codec parameters")
        }
        try self.init(parameters: parameters, timeBase: stream.pointee.time_base, source: source, onOneThread: onOneThread)
    }

    /// Opens a decoder for a stream described by `parameters`, whose packets count time in `timeBase`
    /// (a copy of a stream's parameters lets a decoder open on another thread than the container's).
    /// `onOneThread`: video decodes on the calling thread alone, as audio does.
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, source: String, onOneThread: Bool = false) throws {
        self.source = source
        let isVideo = parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO
        let operation = isVideo ? "open the video decoder" : "open the audio decoder"
        let codecID = parameters.pointee.codec_id
        guard let codec = avcodec_find_decoder(codecID) else {
            let name = String(cString: avcodec_get_name(codecID))
            throw MediaEngineError(.unsupported, source: source, operation: operation,
                                   reason: "this FFmpeg has no decoder for \(name) \(isVideo ? "video" : "audio")")
        }
        context = FFmpegLog.codecContext(for: codec)
        guard let ctx = context else {
            throw MediaEngineError(.outOfMemory, source: source, operation: operation, reason: "out of memory")
        }
        try FFmpeg.check(avcodec_parameters_to_context(ctx, parameters), operation, source: source)
        ctx.pointee.pkt_timebase = timeBase
        if isVideo && !onOneThread {
            ctx.pointee.thread_count = Int32(max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4)))
            ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        }
        let rc = avcodec_open2(ctx, codec, nil)
        if rc < 0 {
            let words = FFmpegLog.lastError.map { "\($0) (\(FFmpeg.describe(rc)))" } ?? FFmpeg.describe(rc)
            throw MediaEngineError(.unsupported, source: source, operation: operation, reason: words, ffmpegCode: rc)
        }
    }

    deinit { avcodec_free_context(&context) }

    /// How many threads the opened decoder may use, as FFmpeg left the count at the open (1: the calling
    /// thread alone; libdav1d and other decoders with threads of their own take the count too).
    var threadCount: Int { Int(context?.pointee.thread_count ?? 0) }

    /// The opened context (sample format, rate and channel layout of decoded audio).
    var codecContext: UnsafeMutablePointer<AVCodecContext>? { context }

    /// What sending a packet did.
    enum Sent {
        case accepted
        /// The decoder holds frames to take first; send the packet again after `receive`.
        case full
        /// The packet is damaged; it was dropped (as players do) and decoding goes on.
        case rejected
    }

    /// Sends a packet, or nil to drain what the decoder still holds.
    func send(_ packet: UnsafePointer<AVPacket>?) throws -> Sent {
        guard let ctx = context else { return .rejected }
        let rc = avcodec_send_packet(ctx, packet)
        if rc >= 0 { return .accepted }
        if rc == avocet_averror_eagain() { return .full }
        if rc == avocet_averror_eof() { return .rejected }
        if rc == avocet_averror_invaliddata() { return .rejected }
        if rc == avocet_averror_enomem() {
            throw MediaEngineError(.outOfMemory, source: source, operation: "decode", reason: "out of memory")
        }
        return .rejected
    }

    /// What receiving gave.
    enum Received {
        case frame
        /// Send more packets first.
        case needsInput
        /// Drained: nothing more until `flush()`.
        case end
        /// A picture could not be decoded; the next may be.
        case damaged
    }

    /// Takes the next decoded frame into `frame`.
    func receive(into frame: UnsafeMutablePointer<AVFrame>) -> Received {
        guard let ctx = context else { return .end }
        let rc = avcodec_receive_frame(ctx, frame)
        if rc >= 0 { return .frame }
        if rc == avocet_averror_eagain() { return .needsInput }
        if rc == avocet_averror_eof() { return .end }
        return .damaged
    }

    /// Whether the next packets sent may be skipped when no other picture refers to them (B-frames
    /// that are not references): decoding on to a later picture then costs only the pictures it needs.
    var skipsNonReferencePictures = false {
        didSet {
            guard oldValue != skipsNonReferencePictures, let ctx = context else { return }
            ctx.pointee.skip_frame = skipsNonReferencePictures ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        }
    }

    /// Pictures that could not be decoded so far; past 256 the stream counts as damaged beyond use.
    private var damagedPictures = 0

    /// Counts a picture the decoder could not decode (`.damaged`); throws `.decodeFailed` once the
    /// stream holds nothing but damage (256 of them), so a reader skips damage as players do but never
    /// decodes garbage forever.
    func noteDamagedPicture() throws {
        damagedPictures += 1
        if damagedPictures > 256 {
            throw MediaEngineError(.decodeFailed, source: source, operation: "decode",
                                   reason: "the video data is damaged: \(FFmpegLog.lastError ?? "the decoder gave no pictures")")
        }
    }

    /// Starts counting damaged pictures afresh (a random-access reader counts per request).
    func resetDamageCount() { damagedPictures = 0 }

    /// Forgets every picture held (after a seek, or to decode again after draining).
    func flush() {
        if let ctx = context { avcodec_flush_buffers(ctx) }
    }
}
