internal import CFFmpeg
import Foundation

/// Still-image encoding and decoding with libavcodec's PNG and MJPEG codecs, on RGBA pixels.
///
/// CPU work only (no I/O): runs on the calling thread; cost grows with width × height.
package enum ImageCodec {
    package enum Format: Sendable, Equatable {
        case png
        /// JPEG at a quality from 0 (smallest) to 1 (best).
        case jpeg(quality: Double)
    }

    /// Tightly packed 8-bit RGBA pixels with straight (not premultiplied) alpha.
    package struct RGBAImage: Sendable, Equatable {
        package var width: Int
        package var height: Int
        package var pixels: Data

        package init(width: Int, height: Int, pixels: Data) {
            self.width = width
            self.height = height
            self.pixels = pixels
        }

        /// Whether every pixel's alpha is 255.
        var isOpaque: Bool {
            pixels.withUnsafeBytes { raw in
                var i = 3
                while i < raw.count {
                    if raw[i] != 255 { return false }
                    i += 4
                }
                return true
            }
        }
    }

    /// Encodes `image` as one PNG or JPEG file. FFmpeg's messages are captured, not printed.
    package static func encode(_ image: RGBAImage, as format: Format) throws -> Data {
        try FFmpegLog.capturing { try encodeImage(image, as: format) }
    }

    private static func encodeImage(_ image: RGBAImage, as format: Format) throws -> Data {
        let operation = format == .png ? "encode PNG" : "encode JPEG"
        guard image.width > 0, image.height > 0, image.pixels.count >= image.width * image.height * 4 else {
            throw MediaEngineError(.invalidArgument, source: "image", operation: operation, reason: "the image has no pixels")
        }
        let isPNG = format == .png
        guard let codec = avcodec_find_encoder(isPNG ? AV_CODEC_ID_PNG : AV_CODEC_ID_MJPEG) else {
            throw MediaEngineError(.unsupported, source: "image", operation: operation, reason: "this FFmpeg has no such encoder")
        }
        var ctx = FFmpegLog.codecContext(for: codec)
        defer { avcodec_free_context(&ctx) }
        guard let context = ctx else { throw outOfMemory(operation) }
        // An opaque image (every video picture) is written without its alpha channel: a quarter less to
        // compress, and the file FFmpeg's own command writes.
        let targetFormat = isPNG ? (image.isOpaque ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_RGBA) : AV_PIX_FMT_YUVJ420P
        context.pointee.width = Int32(image.width)
        context.pointee.height = Int32(image.height)
        context.pointee.pix_fmt = targetFormat
        context.pointee.time_base = AVRational(num: 1, den: 1)
        if case .jpeg(let quality) = format {
            // MJPEG quality is a quantiser scale from 2 (best) to 31 (worst).
            let q = 2 + (1 - min(max(quality, 0), 1)) * 29
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = Int32(q * Double(FF_QP2LAMBDA))
            context.pointee.color_range = AVCOL_RANGE_JPEG
        }
        try FFmpeg.check(avcodec_open2(context, codec, nil), operation, source: "image")

        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let f = frame else { throw outOfMemory(operation) }
        f.pointee.format = targetFormat.rawValue
        f.pointee.width = Int32(image.width)
        f.pointee.height = Int32(image.height)
        // With a fixed quantiser the encoder takes each frame's own quality.
        f.pointee.quality = context.pointee.global_quality
        try FFmpeg.check(av_frame_get_buffer(f, 0), operation, source: "image")
        try image.pixels.withUnsafeBytes { raw in
            try convert(raw.bindMemory(to: UInt8.self).baseAddress!, stride: image.width * 4, from: AV_PIX_FMT_RGBA,
                        width: image.width, height: image.height, into: f, operation: operation)
        }

        try FFmpeg.check(avcodec_send_frame(context, f), operation, source: "image")
        try FFmpeg.check(avcodec_send_frame(context, nil), operation, source: "image")
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let p = packet else { throw outOfMemory(operation) }
        var output = Data()
        while true {
            let rc = avcodec_receive_packet(context, p)
            if rc == avocet_averror_eof() { break }
            try FFmpeg.check(rc, operation, source: "image")
            output.append(p.pointee.data, count: Int(p.pointee.size))
            av_packet_unref(p)
        }
        return output
    }

    /// Decodes a PNG or JPEG file into RGBA pixels. FFmpeg's messages are captured, not printed.
    package static func decode(_ data: Data) throws -> RGBAImage {
        try FFmpegLog.capturing { try decodeImage(data) }
    }

    private static func decodeImage(_ data: Data) throws -> RGBAImage {
        let operation = "decode image"
        let codecID: AVCodecID
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            codecID = AV_CODEC_ID_PNG
        } else if data.starts(with: [0xFF, 0xD8]) {
            codecID = AV_CODEC_ID_MJPEG
        } else {
            throw MediaEngineError(.notMedia, source: "image", operation: operation, reason: "the data is neither PNG nor JPEG")
        }
        guard let codec = avcodec_find_decoder(codecID) else {
            throw MediaEngineError(.unsupported, source: "image", operation: operation, reason: "this FFmpeg has no such decoder")
        }
        var ctx = FFmpegLog.codecContext(for: codec)
        defer { avcodec_free_context(&ctx) }
        guard let context = ctx else { throw outOfMemory(operation) }
        try FFmpeg.check(avcodec_open2(context, codec, nil), operation, source: "image")
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let p = packet else { throw outOfMemory(operation) }
        try FFmpeg.check(av_new_packet(p, Int32(data.count)), operation, source: "image")
        data.copyBytes(to: p.pointee.data, count: data.count)
        try FFmpeg.check(avcodec_send_packet(context, p), operation, source: "image")
        try FFmpeg.check(avcodec_send_packet(context, nil), operation, source: "image")
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        guard let f = frame else { throw outOfMemory(operation) }
        let received = avcodec_receive_frame(context, f)
        if received == avocet_averror_eof() {
            throw MediaEngineError(.decodeFailed, source: "image", operation: operation, reason: "the data holds no picture", ffmpegCode: received)
        }
        try FFmpeg.check(received, operation, source: "image")

        let width = Int(f.pointee.width), height = Int(f.pointee.height)
        let pixels = try FrameScaler().rgba(from: f, width: width, height: height, source: "image", maximumPixels: nil)
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    // MARK: - Pixel conversion

    /// Copies or converts packed `source` pixels into `frame`'s planes.
    private static func convert(
        _ source: UnsafePointer<UInt8>, stride: Int, from sourceFormat: AVPixelFormat, width: Int, height: Int,
        into frame: UnsafeMutablePointer<AVFrame>, operation: String
    ) throws {
        if frame.pointee.format == sourceFormat.rawValue {
            let dstStride = Int(frame.pointee.linesize.0)
            for row in 0..<height {
                memcpy(frame.pointee.data.0! + row * dstStride, source + row * stride, width * 4)
            }
            return
        }
        guard let sws = sws_getContext(Int32(width), Int32(height), sourceFormat, Int32(width), Int32(height),
                                       AVPixelFormat(rawValue: frame.pointee.format), SWS_BICUBIC, nil, nil, nil) else {
            throw MediaEngineError(.unsupported, source: "image", operation: operation, reason: "cannot convert pixel format")
        }
        defer { sws_freeContext(sws) }
        var srcPlanes: [UnsafePointer<UInt8>?] = [source, nil, nil, nil]
        var srcStrides: [Int32] = [Int32(stride), 0, 0, 0]
        try FFmpeg.withPlanes(of: frame) { dst, dstStrides in
            let rows = sws_scale(sws, &srcPlanes, &srcStrides, 0, Int32(height), dst, dstStrides)
            try FFmpeg.check(rows, operation, source: "image")
        }
    }

    private static func outOfMemory(_ operation: String) -> MediaEngineError {
        MediaEngineError(.outOfMemory, source: "image", operation: operation, reason: "out of memory")
    }
}
