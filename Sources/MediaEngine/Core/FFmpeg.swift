internal import CFFmpeg
import Foundation

/// The one place FFmpeg error codes become `MediaEngineError`s. Every checked C call goes through here.
enum FFmpeg {
    /// FFmpeg's sentence for an error code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(avocet_error_max_string_size()))
        av_strerror(code, &buffer, buffer.count)
        return string(fromNullTerminated: buffer)
    }

    /// Throws when `rc` is negative, naming the operation and the source. `ioError`, when set, is the
    /// byte source's own error, which explains an EIO better than FFmpeg can.
    @discardableResult
    static func check(_ rc: Int32, _ operation: String, source: String, ioError: MediaEngineError? = nil) throws -> Int32 {
        guard rc < 0 else { return rc }
        throw error(rc, operation, source: source, ioError: ioError)
    }

    /// The engine error for FFmpeg's `rc`: the byte source's own error when there is one, else the
    /// code's nearest kind.
    static func error(_ rc: Int32, _ operation: String, source: String, ioError: MediaEngineError? = nil) -> MediaEngineError {
        if let ioError { return ioError }
        let code: MediaEngineError.Code
        switch rc {
        case avocet_averror_exit(): code = .cancelled
        case avocet_averror_invaliddata(): code = .notMedia
        // Where a caller did not expect the end (reading a header, probing streams): the data ends early.
        case avocet_averror_eof(): code = .truncated
        case avocet_averror_decoder_not_found(), avocet_averror_encoder_not_found(): code = .unsupported
        case avocet_averror_enomem(): code = .outOfMemory
        case avocet_averror_einval(): code = .invalidArgument
        case avocet_averror_eio(): code = .readFailed
        default: code = .failed
        }
        let reason = code == .cancelled ? "the operation was cancelled" : describe(rc)
        return MediaEngineError(code, source: source, operation: operation, reason: reason, ffmpegCode: rc)
    }
}

/// The text of a NUL-terminated C character buffer.
func string(fromNullTerminated buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

extension FFmpeg {
    /// A frame's plane pointers and line sizes as the C arrays swscale takes (as its destination; its
    /// source wants them as `UnsafePointer`s).
    static func withPlanes<T>(of frame: UnsafePointer<AVFrame>,
                              _ body: ([UnsafeMutablePointer<UInt8>?], [Int32]) throws -> T) rethrows -> T {
        let planes = withUnsafeBytes(of: frame.pointee.data) { Array($0.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)) }
        let strides = withUnsafeBytes(of: frame.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
        return try body(planes, strides)
    }
}

extension FFmpeg {
    /// Seeks `stream` to the keyframe at or before `timestamp` (its ticks); where the demuxer cannot
    /// (a time before the first keyframe, a demuxer with rules of its own), to the nearest it can, and
    /// last to the file's start. FFmpeg's result code: 0, or when every way failed the demuxer's own
    /// answer to the first (the later ways' codes say only that they do not apply, as a byte seek in MP4).
    static func seek(_ ctx: UnsafeMutablePointer<AVFormatContext>, stream: Int32, atOrBefore timestamp: Int64,
                     _ token: CancellationToken) -> Int32 {
        let first = av_seek_frame(ctx, stream, timestamp, AVSEEK_FLAG_BACKWARD)
        var rc = first
        // HLS refuses a time before its first packet's (the playlist's start, where the first keyframe
        // often shows a few hundredths later): a quarter second on lands in the first segment, whose
        // keyframe at or before that time is its first.
        if rc < 0 && !token.isCancelled, let name = ctx.pointee.iformat?.pointee.name, String(cString: name) == "hls",
           stream >= 0, stream < Int32(ctx.pointee.nb_streams), let st = ctx.pointee.streams[Int(stream)] {
            let quarter = av_rescale_q(1, AVRational(num: 1, den: 4), st.pointee.time_base)
            rc = av_seek_frame(ctx, stream, timestamp.addingSaturating(quarter), AVSEEK_FLAG_BACKWARD)
        }
        if rc < 0 && !token.isCancelled { rc = avformat_seek_file(ctx, stream, Int64.min, timestamp, Int64.max, 0) }
        if rc < 0 && !token.isCancelled { rc = av_seek_frame(ctx, stream, 0, AVSEEK_FLAG_BYTE) }
        return rc < 0 && !token.isCancelled ? first : rc
    }

    /// Where item time zero falls on the container's timeline, in AV_TIME_BASE units: the start time
    /// of an HLS stream or an MPEG stream (`ContainerFormat.countsFromItsStart`), else zero (files
    /// count from their own zero).
    /// The earliest start of the container and of its streams read (FFmpeg leaves a data or subtitle
    /// stream that starts well before the others out of the container's), so no track starts before zero.
    static func itemOrigin(_ ctx: UnsafeMutablePointer<AVFormatContext>, format: ContainerFormat) -> Int64 {
        let nopts = avocet_nopts_value()
        guard format.countsFromItsStart, ctx.pointee.start_time != nopts else { return 0 }
        var origin = ctx.pointee.start_time
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let st = ctx.pointee.streams[i]?.pointee, st.discard != AVDISCARD_ALL, st.start_time != nopts,
                  st.time_base.num > 0, st.time_base.den > 0 else { continue }
            origin = min(origin, av_rescale_q(st.start_time, st.time_base, AVRational(num: 1, den: AV_TIME_BASE)))
        }
        return origin
    }

    /// How many times in a row a demuxer may say it has no packet yet before the file counts as damaged.
    static let maximumReadRetries = 1_000

    /// `av_read_frame`, asked again while the demuxer says it has no packet ready yet (EAGAIN: FFmpeg's
    /// MP3 reader says so of a file's damaged frames), up to `maximumReadRetries` times in a row; then
    /// the file counts as damaged (INVALIDDATA).
    static func readFrame(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ packet: UnsafeMutablePointer<AVPacket>) -> Int32 {
        for _ in 0..<maximumReadRetries {
            let rc = av_read_frame(ctx, packet)
            if rc != avocet_averror_eagain() { return rc }
        }
        return avocet_averror_invaliddata()
    }

    /// The audio samples `packet`'s skip-samples side data tells the decoder to drop at its start and
    /// at its end (two little-endian 32-bit counts); none without such data. Damaged counts (beyond a
    /// day at 384 kHz) count as none.
    static func skippedSamples(_ packet: UnsafePointer<AVPacket>) -> (start: Int64, end: Int64) {
        var size = 0
        guard let data = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size), size >= 8 else { return (0, 0) }
        let raw = UnsafeRawPointer(data)
        let start = Int64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
        let end = Int64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        let limit: Int64 = 384_000 * 86_400
        return (start <= limit ? start : 0, end <= limit ? end : 0)
    }
}

extension MediaTimestamp {
    /// The time in ticks of `target`, rounded to the nearest (FFmpeg's `av_rescale_q`: no overflow in
    /// the product); 0 for a time base or target that is not positive.
    package func rescaled(to target: Rational) -> Int64 {
        guard timeBase.numerator > 0, timeBase.denominator > 0, target.numerator > 0, target.denominator > 0 else { return 0 }
        return av_rescale_q(value, AVRational(num: timeBase.numerator, den: timeBase.denominator),
                            AVRational(num: target.numerator, den: target.denominator))
    }
}
