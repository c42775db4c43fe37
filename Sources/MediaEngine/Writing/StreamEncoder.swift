internal import CFFmpeg
import Foundation

/// The codecs an export preset encodes video with: Debian's FFmpeg's libx264 and libx265.
package enum EncodedCodec: String, Sendable {
    case h264, hevc
}

/// The one owner of an encoding `AVCodecContext`, for `SampleWriter`'s tracks (behind both
/// `AVAssetWriter` and the export session): video from pixel memory or decoded frames (converted with
/// a `SwsContext` kept across pictures), audio from interleaved float samples (converted and cut into
/// the encoder's frames), packets handed to a callback. Frees everything in `deinit`. CPU work on the
/// calling engine thread (the video encoders run their own threads too); one caller at a time.
final class StreamEncoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Scales pictures straight to the encoder's format, kept across pictures.
    private var frameScaler: OpaquePointer?
    /// A writer's audio: interleaved float into the encoder's sample format.
    private var resampler: OpaquePointer?
    /// Sound of another rate or channel count than the encoder's, converted into its (libswresample,
    /// kept across appends for the filter's state), and the input shape it converts; nil while the
    /// sound appended matches the encoder.
    private var converter: OpaquePointer?
    private var converterShape: (rate: Int32, channels: Int32)?
    /// Interleaved float sound not yet a full frame, and the sample time of its first.
    private var pendingSamples: [Float] = []
    private var pendingStart: Int64 = 0
    let source: String

    var codecContext: UnsafeMutablePointer<AVCodecContext>? { context }
    var timeBase: AVRational { context?.pointee.time_base ?? AVRational(num: 1, den: 1) }
    /// Samples per audio frame the encoder takes (1024 for AAC).
    var frameSize: Int { Int(context?.pointee.frame_size ?? 0) }

    /// Opens FFmpeg's encoder named `encoderName` (`label` names it in errors), configured by
    /// `configure` and `options`.
    private init(encoderName: String, label: String, source: String, configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void,
                 options: [(String, String)]) throws {
        self.source = source
        let operation = "open the \(label) encoder"
        guard let encoder = avcodec_find_encoder_by_name(encoderName) else {
            throw MediaEngineError(.unsupported, source: source, operation: operation, reason: "this FFmpeg has no \(label) encoder (\(encoderName))")
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
        sws_freeContext(frameScaler)
        swr_free(&resampler)
        swr_free(&converter)
    }

    /// Encodes a decoded frame (any size and pixel format FFmpeg decodes) shown at `pts` ticks, scaled
    /// straight to the encoder's size and format with a context kept across frames; colours keep their
    /// matrix (the frame's, else BT.709 above 576 lines and BT.601 below) and become the encoder's. Nil
    /// encodes black (4:2:0 encoders).
    func encode(frame decoded: UnsafePointer<AVFrame>?, pts: Int64, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let f = frame else { return }
        try FFmpeg.check(av_frame_make_writable(f), "encode a picture", source: source)
        let width = ctx.pointee.width, height = ctx.pointee.height
        if let decoded, decoded.pointee.width > 0, decoded.pointee.height > 0 {
            let d = decoded.pointee
            frameScaler = sws_getCachedContext(frameScaler, d.width, d.height, AVPixelFormat(rawValue: d.format), width, height,
                                               AVPixelFormat(rawValue: f.pointee.format), SWS_BICUBIC, nil, nil, nil)
            guard let scaler = frameScaler else {
                throw MediaEngineError(.unsupported, source: source, operation: "convert pictures for encoding",
                                       reason: "swscale cannot convert this picture format")
            }
            let fullRange = d.color_range == AVCOL_RANGE_JPEG
            let input = sws_getCoefficients(FrameScaler.swsColorspace(d.colorspace, height: d.height))
            let output = sws_getCoefficients(height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601)
            let outputFull = ctx.pointee.color_range == AVCOL_RANGE_JPEG
            sws_setColorspaceDetails(scaler, input, fullRange ? 1 : 0, output, outputFull ? 1 : 0, 0, 1 << 16, 1 << 16)
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
        f.pointee.pts = pts
        f.pointee.pict_type = AV_PICTURE_TYPE_NONE
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

// MARK: - Encoders for a writer's tracks (AVAssetWriter): any codec the settings name, pictures from
// pixel memory in any layout, sound from interleaved float through a resampler and a frame queue.

extension StreamEncoder {
    /// A video encoder as `e` asks: FFmpeg's libx264, libx265, mjpeg or prores_ks, its times in
    /// ticks of 1/`e.timeScale`. Rate control: a bit rate when given, else a quality (0 to 1) mapped
    /// onto the codec's own scale, else the codec's default.
    static func video(_ e: WriterTrackSettings.VideoEncoding, globalHeader: Bool, source: String) throws -> StreamEncoder {
        typealias Codec = WriterTrackSettings.VideoEncoding.Codec
        let name: String, pixelFormat: AVPixelFormat
        var options: [(String, String)] = []
        switch e.codec {
        case .h264:
            (name, pixelFormat) = ("libx264", AV_PIX_FMT_YUV420P)
            if let profile = e.profile { options.append(("profile", profile)) }
        case .hevc:
            (name, pixelFormat) = ("libx265", e.profile == "main10" ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P)
            options.append(("x265-params", "log-level=error"))
            if let profile = e.profile { options.append(("profile", profile)) }
        case .jpeg:
            (name, pixelFormat) = ("mjpeg", AV_PIX_FMT_YUVJ420P)
        case .proResProxy, .proResLT, .proRes422, .proResHQ, .proRes4444:
            let profiles: [Codec: Int] = [.proResProxy: 0, .proResLT: 1, .proRes422: 2, .proResHQ: 3, .proRes4444: 4]
            (name, pixelFormat) = ("prores_ks", e.codec == .proRes4444 ? AV_PIX_FMT_YUV444P10LE : AV_PIX_FMT_YUV422P10LE)
            options.append(("profile", String(profiles[e.codec] ?? 2)))
        }
        if let preset = e.speedPreset, e.codec == .h264 || e.codec == .hevc { options.append(("preset", preset)) }
        if let crf = e.constantRateFactor, e.codec == .h264 || e.codec == .hevc {
            options.append(("crf", String(max(0, min(51, crf)))))
        } else if e.bitRate == nil, let q = e.quality, e.codec == .h264 || e.codec == .hevc {
            // Quality 1 is near-lossless (CRF 0 would be lossless); 0.5 is the encoders' default look.
            let crf = max(0, min(51, (51 * (1 - min(1, max(0, q))) - 2.5).rounded()))
            options.append(("crf", String(Int(crf))))
        }
        let rate = e.expectedFrameRate.flatMap { $0 > 0 && $0.isFinite && $0 <= 1000 ? $0 : nil } ?? 30
        let hd = e.height > 576
        let encoder = try StreamEncoder(encoderName: name, label: e.codec.rawValue, source: source, configure: { ctx in
            ctx.pointee.width = Int32(e.width)
            ctx.pointee.height = Int32(e.height)
            ctx.pointee.pix_fmt = pixelFormat
            ctx.pointee.time_base = AVRational(num: 1, den: e.timeScale)
            ctx.pointee.framerate = av_d2q(rate, 1_000_000)
            ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            ctx.pointee.color_range = e.codec == .jpeg ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            ctx.pointee.colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
            ctx.pointee.color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M
            ctx.pointee.color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M
            if let bitRate = e.bitRate { ctx.pointee.bit_rate = Int64(bitRate) }
            if let interval = e.maxKeyFrameInterval, interval > 0 {
                ctx.pointee.gop_size = Int32(clamping: interval)
            } else if let seconds = e.maxKeyFrameIntervalSeconds, seconds > 0, seconds.isFinite {
                ctx.pointee.gop_size = Int32(clamping: Int((seconds * rate).rounded(.down)).clamped(to: 1...100_000))
            }
            if !e.allowsFrameReordering { ctx.pointee.max_b_frames = 0 }
            if e.codec == .jpeg, let q = e.quality {
                // mjpeg's quantiser: 2 (best) to 31.
                let scale = 2 + (1 - min(1, max(0, q))) * 29
                ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
                ctx.pointee.global_quality = Int32(scale * Double(FF_QP2LAMBDA))
            }
            if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        }, options: options)
        guard let f = encoder.frame else { return encoder }
        f.pointee.format = pixelFormat.rawValue
        f.pointee.width = Int32(e.width)
        f.pointee.height = Int32(e.height)
        try FFmpeg.check(av_frame_get_buffer(f, 0), "allocate a picture", source: source)
        return encoder
    }

    /// Encodes the picture in `pixels` (any size and layout of `PixelMemory`), shown at `pts` ticks:
    /// scaled and converted straight to the encoder's format in one pass, with a context kept across
    /// pictures. RGB pictures take BT.709 above 576 lines and BT.601 below; YCbCr pictures keep their
    /// matrix; full-range sources become the encoder's range.
    /// `forceKeyframe` makes this picture a keyframe (where a segment must start).
    func encode(pixels: PixelMemory, pts: Int64, forceKeyframe: Bool = false, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let f = frame else { return }
        let operation = "convert a picture for encoding"
        guard pixels.width > 0, pixels.height > 0, pixels.planes.count == pixels.format.planeCount,
              pixels.planes.allSatisfy({ $0.bytesPerRow > 0 && $0.bytesPerRow <= Int(Int32.max) }) else {
            throw MediaEngineError(.invalidArgument, source: source, operation: operation, reason: "the picture's memory is not a \(pixels.format) picture")
        }
        try FFmpeg.check(av_frame_make_writable(f), "encode a picture", source: source)
        let width = ctx.pointee.width, height = ctx.pointee.height
        frameScaler = sws_getCachedContext(frameScaler, Int32(pixels.width), Int32(pixels.height), pixels.format.ffmpegFormat, width, height,
                                           AVPixelFormat(rawValue: f.pointee.format), SWS_BICUBIC, nil, nil, nil)
        guard let scaler = frameScaler else {
            throw MediaEngineError(.unsupported, source: source, operation: operation, reason: "swscale cannot convert \(pixels.format) pictures")
        }
        let outputMatrix = sws_getCoefficients(height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601)
        let inputMatrix = pixels.format.isRGB ? sws_getCoefficients(SWS_CS_DEFAULT) : outputMatrix
        let inputFull = pixels.format.isRGB || pixels.fullRange
        let outputFull = ctx.pointee.color_range == AVCOL_RANGE_JPEG
        sws_setColorspaceDetails(scaler, inputMatrix, inputFull ? 1 : 0, outputMatrix, outputFull ? 1 : 0, 0, 1 << 16, 1 << 16)
        var src: [UnsafePointer<UInt8>?] = [nil, nil, nil, nil]
        var srcStrides: [Int32] = [0, 0, 0, 0]
        for (i, plane) in pixels.planes.enumerated() {
            src[i] = UnsafePointer(plane.base.assumingMemoryBound(to: UInt8.self))
            srcStrides[i] = Int32(plane.bytesPerRow)
        }
        let rows = FFmpeg.withPlanes(of: f) { planes, strides in
            var dst = planes
            var dstStrides = strides
            return sws_scale(scaler, &src, &srcStrides, 0, Int32(pixels.height), &dst, &dstStrides)
        }
        try FFmpeg.check(rows, operation, source: source)
        f.pointee.pts = pts
        f.pointee.pict_type = forceKeyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        try send(f, write)
    }

    /// An audio encoder as `e` asks: FFmpeg's aac, flac, libopus, alac or a PCM encoder, at the rate
    /// and channel count given, its times in samples. Sound comes in as interleaved float
    /// (`encode(interleaved:pts:_:)`) and is converted and cut into the encoder's frames here.
    static func audio(_ e: WriterTrackSettings.AudioEncoding, globalHeader: Bool, source: String) throws -> StreamEncoder {
        let name: String, format: AVSampleFormat
        switch e.codec {
        case .aac: (name, format) = ("aac", AV_SAMPLE_FMT_FLTP)
        case .flac: (name, format) = ("flac", AV_SAMPLE_FMT_S32)
        case .opus: (name, format) = ("libopus", AV_SAMPLE_FMT_FLT)
        case .alac: (name, format) = ("alac", AV_SAMPLE_FMT_S32P)
        case .linearPCM(let bits, let isFloat, let isBigEndian):
            let endian = isBigEndian ? "be" : "le"
            switch (isFloat, bits) {
            case (true, 64): (name, format) = ("pcm_f64" + endian, AV_SAMPLE_FMT_DBL)
            case (true, _): (name, format) = ("pcm_f32" + endian, AV_SAMPLE_FMT_FLT)
            case (false, 8): (name, format) = ("pcm_s8", AV_SAMPLE_FMT_U8)
            case (false, 24): (name, format) = ("pcm_s24" + endian, AV_SAMPLE_FMT_S32)
            case (false, 32): (name, format) = ("pcm_s32" + endian, AV_SAMPLE_FMT_S32)
            default: (name, format) = ("pcm_s16" + endian, AV_SAMPLE_FMT_S16)
            }
        }
        let encoder = try StreamEncoder(encoderName: name, label: name, source: source, configure: { ctx in
            ctx.pointee.sample_fmt = format
            ctx.pointee.sample_rate = e.sampleRate
            av_channel_layout_default(&ctx.pointee.ch_layout, e.channels)
            if let bitRate = e.bitRate { ctx.pointee.bit_rate = Int64(bitRate) }
            ctx.pointee.time_base = AVRational(num: 1, den: e.sampleRate)
            if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            // FLAC, ALAC: the bits a sample actually holds (24-bit sources in 32-bit containers).
            if e.codec == .alac || e.codec == .flac { ctx.pointee.bits_per_raw_sample = 24 }
        }, options: [])
        guard let ctx = encoder.context else { return encoder }
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, e.channels)
        defer { av_channel_layout_uninit(&layout) }
        let rc = swr_alloc_set_opts2(&encoder.resampler, &ctx.pointee.ch_layout, format, e.sampleRate, &layout, AV_SAMPLE_FMT_FLT,
                                     e.sampleRate, 0, nil)
        guard rc >= 0, let swr = encoder.resampler else {
            throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the audio converter", source: source)
        }
        try FFmpeg.check(swr_init(swr), "set up the audio converter", source: source)
        return encoder
    }

    /// Queues interleaved float sound of `channels` channels at `rate` starting at `pts` (samples of the
    /// encoder's rate; a gap or an overlap with what came before moves the queue's clock there),
    /// encoding every full frame of the encoder's size. Sound of another rate or channel count is
    /// converted first: mono is copied to both channels of stereo, stereo becomes mono as the mean of its
    /// two, other counts take libswresample's standard mix; rates are converted with its default filter.
    func encode(interleaved samples: [Float], rate: Int32, channels: Int32, pts: Int64,
                _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context else { return }
        let outChannels = ctx.pointee.ch_layout.nb_channels, outRate = ctx.pointee.sample_rate
        guard outChannels > 0, rate > 0, channels > 0, samples.count >= Int(channels) else { return }
        let shape = rate == outRate && channels == outChannels ? nil : (rate: rate, channels: channels)
        if converterShape?.rate != shape?.rate || converterShape?.channels != shape?.channels {
            try drainConverter()
            if let shape { try makeConverter(shape) }
        }
        guard let converter else {
            if pendingSamples.isEmpty { pendingStart = pts }
            pendingSamples += samples
            return try encodePending(final: false, write)
        }
        // The converted sound's first sample lies the converter's delay before this input's.
        let delay = swr_get_delay(converter, Int64(outRate))
        if pendingSamples.isEmpty { pendingStart = pts.subtractingSaturating(max(0, delay)) }
        let frames = samples.count / Int(channels)
        try convert(samples, frames: frames)
        try encodePending(final: false, write)
    }

    /// Runs `frames` frames (or, with none, what the converter still holds) through the converter onto
    /// the queue.
    private func convert(_ samples: [Float]?, frames: Int) throws {
        guard let converter, let ctx = context else { return }
        let outChannels = Int(ctx.pointee.ch_layout.nb_channels)
        let capacity = Int(swr_get_out_samples(converter, Int32(clamping: frames)))
        guard capacity > 0 else { return }
        let start = pendingSamples.count
        // Grown in place (no array of zeroes made for each append), cut back to what was made below.
        pendingSamples.append(contentsOf: repeatElement(0, count: capacity * outChannels))
        let made: Int32 = pendingSamples.withUnsafeMutableBytes { out in
            var output: UnsafeMutablePointer<UInt8>? = out.baseAddress.map { ($0 + start * MemoryLayout<Float>.size).assumingMemoryBound(to: UInt8.self) }
            guard let samples else { return swr_convert(converter, &output, Int32(capacity), nil, 0) }
            return samples.withUnsafeBytes { raw in
                var input: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return swr_convert(converter, &output, Int32(capacity), &input, Int32(clamping: frames))
            }
        }
        pendingSamples.removeLast((capacity - Int(max(0, made))) * outChannels)
        try FFmpeg.check(made, "convert sound for encoding", source: source)
    }

    /// A converter from `shape` into the encoder's rate and channels, both interleaved float.
    private func makeConverter(_ shape: (rate: Int32, channels: Int32)) throws {
        guard let ctx = context else { return }
        guard shape.channels <= 64, shape.rate <= 768_000 else {
            throw MediaEngineError(.invalidArgument, source: source, operation: "convert sound for encoding",
                                   reason: "\(shape.channels) channels at \(shape.rate) Hz")
        }
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, shape.channels)
        defer { av_channel_layout_uninit(&layout) }
        let outChannels = ctx.pointee.ch_layout.nb_channels
        var made: OpaquePointer?
        let rc = swr_alloc_set_opts2(&made, &ctx.pointee.ch_layout, AV_SAMPLE_FMT_FLT, ctx.pointee.sample_rate, &layout, AV_SAMPLE_FMT_FLT,
                                     shape.rate, 0, nil)
        guard rc >= 0, let swr = made else {
            throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the sound converter", source: source)
        }
        converter = swr
        converterShape = shape
        // Mono to stereo copies; stereo to mono takes the mean (libswresample's own mix lowers both by 3 dB).
        if shape.channels == 1 && outChannels == 2 {
            var matrix: [Double] = [1, 1]
            try FFmpeg.check(swr_set_matrix(swr, &matrix, 1), "set up the sound converter", source: source)
        } else if shape.channels == 2 && outChannels == 1 {
            var matrix: [Double] = [0.5, 0.5]
            try FFmpeg.check(swr_set_matrix(swr, &matrix, 2), "set up the sound converter", source: source)
        }
        try FFmpeg.check(swr_init(swr), "set up the sound converter", source: source)
    }

    /// Puts what the converter still holds on the queue and drops it.
    private func drainConverter() throws {
        guard converter != nil else { return }
        try convert(nil, frames: 0)
        swr_free(&converter)
        converterShape = nil
    }

    /// Encodes what is queued (what the converter holds too), the last frame short, then drains the
    /// encoder.
    func finishSound(_ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try drainConverter()
        try encodePending(final: true, write)
        try drain(write)
    }

    private func encodePending(final: Bool, _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard let ctx = context, let f = frame, let swr = resampler else { return }
        let channels = Int(ctx.pointee.ch_layout.nb_channels)
        let capabilities = ctx.pointee.codec.map { $0.pointee.capabilities } ?? 0
        let variable = capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0
        // Encoders with a frame size take exactly that many samples a frame (the last may be short).
        let frameSize = ctx.pointee.frame_size > 0 && !variable ? Int(ctx.pointee.frame_size) : 4096
        var offset = 0
        while pendingSamples.count - offset >= frameSize * channels || (final && pendingSamples.count - offset > 0) {
            let count = min(frameSize, (pendingSamples.count - offset) / channels)
            guard count > 0 else { break }
            av_frame_unref(f)
            f.pointee.format = ctx.pointee.sample_fmt.rawValue
            f.pointee.nb_samples = Int32(count)
            f.pointee.sample_rate = ctx.pointee.sample_rate
            try FFmpeg.check(av_channel_layout_copy(&f.pointee.ch_layout, &ctx.pointee.ch_layout), "encode audio", source: source)
            try FFmpeg.check(av_frame_get_buffer(f, 0), "allocate audio", source: source)
            let made: Int32 = pendingSamples.withUnsafeBytes { raw in
                var input: UnsafePointer<UInt8>? = raw.baseAddress.map { ($0 + offset * MemoryLayout<Float>.size).assumingMemoryBound(to: UInt8.self) }
                guard let planes = f.pointee.extended_data else { return avocet_averror_invaliddata() }
                return swr_convert(swr, planes, Int32(count), &input, Int32(count))
            }
            try FFmpeg.check(made, "convert audio for encoding", source: source)
            f.pointee.pts = pendingStart
            pendingStart = pendingStart.addingSaturating(Int64(count))
            offset += count * channels
            try send(f, write)
        }
        pendingSamples.removeFirst(offset)
    }
}

private extension Int {
    func clamped(to range: ClosedRange<Int>) -> Int { Swift.min(range.upperBound, Swift.max(range.lowerBound, self)) }
}
