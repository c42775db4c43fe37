internal import CFFmpeg
import Foundation

/// The codecs the engine encodes with: Debian's FFmpeg's libx264 and libx265, and FFmpeg's own AAC.
package enum EncodedCodec: String, Sendable {
    case h264, hevc, aac
}

/// The one owner of an encoding `AVCodecContext`: video from RGBA pictures (converted to 4:2:0 with a
/// `SwsContext` kept across pictures), audio from interleaved float samples (made planar), packets
/// handed to a callback. Frees everything in `deinit`. CPU work on the calling engine thread (the
/// video encoders run their own threads too); one caller at a time.
final class StreamEncoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    /// Scales decoded frames straight to the encoder's format (`encode(frame:index:_:)`).
    private var frameScaler: OpaquePointer?
    let source: String

    var codecContext: UnsafeMutablePointer<AVCodecContext>? { context }
    var timeBase: AVRational { context?.pointee.time_base ?? AVRational(num: 1, den: 1) }
    /// Samples per audio frame the encoder takes (1024 for AAC).
    var frameSize: Int { Int(context?.pointee.frame_size ?? 0) }

    private init(codec: EncodedCodec, source: String, configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void,
                 options: [(String, String)]) throws {
        self.source = source
        let operation = "open the \(codec.rawValue) encoder"
        let found: UnsafePointer<AVCodec>?
        switch codec {
        case .h264: found = avcodec_find_encoder_by_name("libx264")
        case .hevc: found = avcodec_find_encoder_by_name("libx265")
        case .aac: found = avcodec_find_encoder(AV_CODEC_ID_AAC)
        }
        guard let encoder = found else {
            throw MediaEngineError(.unsupported, source: source, operation: operation, reason: "this FFmpeg has no \(codec.rawValue) encoder")
        }
        guard let ctx = FFmpegLog.codecContext(for: encoder), let f = av_frame_alloc(), let p = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: source, operation: operation, reason: "out of memory")
        }
        (context, frame, packet) = (ctx, f, p)
        try configure(ctx)
        var dictionary: OpaquePointer? = nil
        defer { av_dict_free(&dictionary) }
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        try FFmpegLog.capturing {
            let rc = avcodec_open2(ctx, encoder, &dictionary)
            if rc < 0 {
                let words = FFmpegLog.lastError.map { "\($0) (\(FFmpeg.describe(rc)))" } ?? FFmpeg.describe(rc)
                throw MediaEngineError(.unsupported, source: source, operation: operation, reason: words, ffmpegCode: rc)
            }
        }
    }

    deinit {
        avcodec_free_context(&context)
        av_frame_free(&frame)
        av_packet_free(&packet)
        sws_freeContext(scaler)
        sws_freeContext(frameScaler)
    }

    /// A video encoder for `width` x `height` 4:2:0 pictures at `frameRate` (frames per second as a
    /// fraction), with x264/x265's constant rate factor `quality` and speed preset `preset`. Colours
    /// are tagged BT.709 above 576 lines, BT.601 below, limited range.
    static func video(_ codec: EncodedCodec, width: Int, height: Int, frameRate: Rational, quality: Int, preset: String,
                      globalHeader: Bool, source: String) throws -> StreamEncoder {
        let hd = height > 576
        let encoder = try StreamEncoder(codec: codec, source: source, configure: { ctx in
            ctx.pointee.width = Int32(width)
            ctx.pointee.height = Int32(height)
            ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            ctx.pointee.time_base = AVRational(num: frameRate.denominator, den: frameRate.numerator)
            ctx.pointee.framerate = AVRational(num: frameRate.numerator, den: frameRate.denominator)
            ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            ctx.pointee.color_range = AVCOL_RANGE_MPEG
            ctx.pointee.colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
            ctx.pointee.color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M
            ctx.pointee.color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M
            if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }, options: codec == .hevc
            ? [("crf", String(quality)), ("preset", preset), ("x265-params", "log-level=error")]
            : [("crf", String(quality)), ("preset", preset)])
        guard let f = encoder.frame else { return encoder }
        f.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        try FFmpeg.check(av_frame_get_buffer(f, 0), "allocate a picture", source: source)
        encoder.scaler = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(width), Int32(height), AV_PIX_FMT_YUV420P,
                                        SWS_BICUBIC, nil, nil, nil)
        guard let scaler = encoder.scaler else {
            throw MediaEngineError(.unsupported, source: source, operation: "convert pictures for encoding", reason: "swscale refused RGBA to 4:2:0")
        }
        let matrix = sws_getCoefficients(hd ? SWS_CS_ITU709 : SWS_CS_ITU601)
        sws_setColorspaceDetails(scaler, sws_getCoefficients(SWS_CS_DEFAULT), 1, matrix, 0, 0, 1 << 16, 1 << 16)
        return encoder
    }

    /// An AAC encoder for `channels` channels at `sampleRate`, `bitRate` bits a second.
    static func audio(sampleRate: Int32, channels: Int32, bitRate: Int, globalHeader: Bool, source: String) throws -> StreamEncoder {
        let encoder = try StreamEncoder(codec: .aac, source: source, configure: { ctx in
            ctx.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            ctx.pointee.sample_rate = sampleRate
            av_channel_layout_default(&ctx.pointee.ch_layout, channels)
            ctx.pointee.bit_rate = Int64(bitRate)
            ctx.pointee.time_base = AVRational(num: 1, den: sampleRate)
            if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }, options: [])
        return encoder
    }

    /// Encodes one RGBA picture (tightly packed, the encoder's size) shown at `index` frames.
    func encode(rgba: Data, index: Int64, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let f = frame else { return }
        let width = Int(ctx.pointee.width), height = Int(ctx.pointee.height)
        guard rgba.count >= width * height * 4 else {
            throw MediaEngineError(.invalidArgument, source: source, operation: "encode a picture", reason: "the picture is not \(width)x\(height)")
        }
        try FFmpeg.check(av_frame_make_writable(f), "encode a picture", source: source)
        let rows: Int32 = rgba.withUnsafeBytes { raw in
            var src: [UnsafePointer<UInt8>?] = [raw.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            var srcStrides: [Int32] = [Int32(width * 4), 0, 0, 0]
            return FFmpeg.withPlanes(of: f) { planes, strides in
                var dst = planes
                var dstStrides = strides
                return sws_scale(scaler, &src, &srcStrides, 0, Int32(height), &dst, &dstStrides)
            }
        }
        try FFmpeg.check(rows, "convert a picture for encoding", source: source)
        f.pointee.pts = index
        try send(f, write)
    }

    /// Encodes a decoded frame (any size and pixel format FFmpeg decodes), scaled straight to the
    /// encoder's size and 4:2:0 with a context kept across frames; colours keep their matrix (the
    /// frame's, else BT.709 above 576 lines and BT.601 below) and become the encoder's. Nil encodes
    /// black.
    func encode(frame decoded: UnsafePointer<AVFrame>?, index: Int64, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let f = frame else { return }
        try FFmpeg.check(av_frame_make_writable(f), "encode a picture", source: source)
        let width = ctx.pointee.width, height = ctx.pointee.height
        if let decoded, decoded.pointee.width > 0, decoded.pointee.height > 0 {
            let d = decoded.pointee
            frameScaler = sws_getCachedContext(frameScaler, d.width, d.height, AVPixelFormat(rawValue: d.format), width, height,
                                               AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
            guard let scaler = frameScaler else {
                throw MediaEngineError(.unsupported, source: source, operation: "convert pictures for encoding",
                                       reason: "swscale cannot convert this picture format")
            }
            let fullRange = d.color_range == AVCOL_RANGE_JPEG
            let input = sws_getCoefficients(FrameScaler.swsColorspace(d.colorspace, height: d.height))
            let output = sws_getCoefficients(height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601)
            sws_setColorspaceDetails(scaler, input, fullRange ? 1 : 0, output, 0, 0, 1 << 16, 1 << 16)
            let rows = FFmpeg.withPlanes(of: decoded) { sourcePlanes, sourceStrides in
                FFmpeg.withPlanes(of: f) { planes, strides in
                    let src = sourcePlanes.map { $0.map { UnsafePointer($0) } }
                    var dst = planes
                    var dstStrides = strides
                    return sws_scale(scaler, src, sourceStrides, 0, d.height, &dst, &dstStrides)
                }
            }
            try FFmpeg.check(rows, "convert a picture for encoding", source: source)
        } else {
            FFmpeg.withPlanes(of: f) { planes, strides in
                for (plane, level) in [(0, UInt8(16)), (1, UInt8(128)), (2, UInt8(128))] {
                    guard let base = planes[plane] else { continue }
                    let rows = Int(plane == 0 ? height : (height + 1) / 2)
                    memset(base, Int32(level), Int(strides[plane]) * rows)
                }
            }
        }
        f.pointee.pts = index
        try send(f, write)
    }

    /// Encodes `frameSize` frames of interleaved float samples (fewer for the last) starting at `pts`
    /// samples.
    func encode(samples: [Float], pts: Int64, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let f = frame else { return }
        let channels = Int(ctx.pointee.ch_layout.nb_channels)
        guard channels > 0 else { return }
        let count = samples.count / channels
        guard count > 0 else { return }
        av_frame_unref(f)
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.nb_samples = Int32(count)
        f.pointee.sample_rate = ctx.pointee.sample_rate
        try FFmpeg.check(av_channel_layout_copy(&f.pointee.ch_layout, &ctx.pointee.ch_layout), "encode audio", source: source)
        try FFmpeg.check(av_frame_get_buffer(f, 0), "allocate audio", source: source)
        FFmpeg.withPlanes(of: f) { planes, _ in
            for c in 0..<min(channels, planes.count) {
                guard let plane = planes[c] else { continue }
                let out = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
                for i in 0..<count { out[i] = samples[i * channels + c] }
            }
        }
        f.pointee.pts = pts
        try send(f, write)
    }

    /// Sends what the encoder still holds to `write`.
    func drain(_ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try send(nil, write)
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let p = packet else { return }
        let rc = avcodec_send_frame(ctx, frame)
        if rc < 0 && rc != avocet_averror_eof() { throw FFmpeg.error(rc, "encode", source: source) }
        while true {
            let got = avcodec_receive_packet(ctx, p)
            if got == avocet_averror_eagain() || got == avocet_averror_eof() { return }
            try FFmpeg.check(got, "encode", source: source)
            try write(p)
            av_packet_unref(p)
        }
    }
}
