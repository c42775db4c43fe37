internal import CFFmpeg
import Foundation

/// Turns decoded frames into pixels of a given size and layout (RGBA for pictures and thumbnails; the
/// 32-bit RGB orders and 4:2:0 bi-planar and planar YCbCr that pixel buffers hold): the one owner of a
/// `SwsContext`, kept across frames and made again only when the input or output shape changes
/// (`sws_getCachedContext`).
///
/// Colours: the frame's own matrix (BT.601, BT.709, BT.2020) and range (limited or full) where it
/// states them; where it does not, BT.709 for pictures taller than 576 lines and BT.601 for smaller
/// ones, as players assume. YCbCr output keeps the source's matrix and takes the range the target asks
/// for. Any bit depth FFmpeg decodes (10-bit VP9, HEVC Main 10) comes out at the target's depth (8 bits,
/// or 10 for `.p010`). CPU work on the calling thread, growing with the output's size; not thread-safe
/// (one owner uses it at a time).
final class FrameScaler {
    private var context: OpaquePointer?
    private var shape: Shape?
    /// The first of two steps when a YCbCr picture is scaled for speed into RGB: scaled in its own
    /// format into `scaled`, which `context` then converts at the output's size.
    private var scaleContext: OpaquePointer?
    private var scaled: UnsafeMutablePointer<AVFrame>?
    /// Rows with room for whole groups of 16 pixels, for conversions whose target rows have none
    /// (see the end of `convert`).
    private var scratch: [UInt8] = []
    /// Whether scaling trades some sharpness for speed (fast bilinear, as real-time players scale):
    /// for pictures shown as they play. Bicubic otherwise (thumbnails, reader outputs, export). Pictures
    /// kept at their size are converted the same either way.
    ///
    /// A YCbCr picture scaled for speed into RGB is scaled first in its own format, then converted at
    /// the output's size by swscale's unscaled colour conversion: about half the CPU of doing both in
    /// one pass (1080p 4:2:0 to 1280x720 BGRA: 1.0 ms instead of 1.9 ms here), which players pay on
    /// every picture.
    var prefersSpeed = false {
        didSet { if prefersSpeed != oldValue { shape = nil } }
    }

    private struct Shape: Equatable {
        var width: Int32, height: Int32, format: Int32
        var colorspace: UInt32, fullRange: Bool
        var outWidth: Int32, outHeight: Int32, outFormat: PixelMemory.Format, outFullRange: Bool
    }

    deinit {
        sws_freeContext(context)
        sws_freeContext(scaleContext)
        av_frame_free(&scaled)
    }

    /// `frame` scaled to `width` x `height` as tightly packed RGBA (alpha opaque for video).
    /// `maximumPixels` bounds the output (a picture's size comes from the file); nil leaves it to
    /// FFmpeg's own limits (a still image being decoded).
    func rgba(from frame: UnsafePointer<AVFrame>, width: Int, height: Int, source: String,
              maximumPixels: Int? = PictureFormat.maximumPixels) throws -> Data {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixels <= (maximumPixels ?? Int(Int32.max) / 4) else {
            throw MediaEngineError(.invalidArgument, source: source, operation: "convert the picture",
                                   reason: "a picture of \(width)x\(height) from \(frame.pointee.width)x\(frame.pointee.height) is out of range")
        }
        var output = Data(count: width * height * 4)
        try output.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else {
                throw MediaEngineError(.outOfMemory, source: source, operation: "convert the picture", reason: "out of memory")
            }
            try convert(frame, into: PixelMemory(format: .rgba, width: width, height: height, planes: [(base, width * 4)]), source: source)
        }
        return output
    }

    /// Converts `frame` into the memory `target` describes, scaling it to the target's size.
    func convert(_ frame: UnsafePointer<AVFrame>, into target: PixelMemory, source: String) throws {
        let operation = "convert the picture"
        let f = frame.pointee
        let (width, height) = (target.width, target.height)
        guard width > 0, height > 0, width <= PictureFormat.maximumSide, height <= PictureFormat.maximumSide,
              target.planes.count == target.format.planeCount, f.width > 0, f.height > 0 else {
            throw MediaEngineError(.invalidArgument, source: source, operation: operation,
                                   reason: "a picture of \(width)x\(height) from \(f.width)x\(f.height) is out of range")
        }
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || FrameScaler.isFullRangeFormat(f.format)
        let wanted = Shape(width: f.width, height: f.height, format: f.format, colorspace: f.colorspace.rawValue,
                           fullRange: fullRange, outWidth: Int32(width), outHeight: Int32(height),
                           outFormat: target.format, outFullRange: target.format.isRGB || target.fullRange)
        let twoSteps = prefersSpeed && target.format.isRGB && (f.width != Int32(width) || f.height != Int32(height))
            && FrameScaler.scalesInPlace(f.format)
        if wanted != shape {
            shape = nil
            // Bicubic for shrinking, unless speed comes first.
            let flags = prefersSpeed ? SWS_FAST_BILINEAR : SWS_BICUBIC
            if twoSteps {
                try prepareScaling(f, width: Int32(width), height: Int32(height), flags: flags, source: source)
                context = sws_getCachedContext(context, Int32(width), Int32(height), AVPixelFormat(rawValue: f.format),
                                               Int32(width), Int32(height), target.format.ffmpegFormat, flags, nil, nil, nil)
            } else {
                context = sws_getCachedContext(context, f.width, f.height, AVPixelFormat(rawValue: f.format),
                                               Int32(width), Int32(height), target.format.ffmpegFormat, flags, nil, nil, nil)
            }
            guard let context else {
                throw MediaEngineError(.unsupported, source: source, operation: operation,
                                       reason: "cannot convert \(FrameScaler.formatName(f.format)) pictures")
            }
            let matrix = sws_getCoefficients(FrameScaler.swsColorspace(f.colorspace, height: f.height))
            // RGB output ignores its table; YCbCr output keeps the source's matrix.
            let out = target.format.isRGB ? sws_getCoefficients(SWS_CS_DEFAULT) : matrix
            // Brightness 0, contrast and saturation 1.0 in 16.16 fixed point.
            sws_setColorspaceDetails(context, matrix, fullRange ? 1 : 0, out, wanted.outFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
            shape = wanted
        }
        var dst: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var dstStrides: [Int32] = [0, 0, 0, 0]
        for (i, plane) in target.planes.enumerated() {
            guard plane.bytesPerRow > 0, plane.bytesPerRow <= Int(Int32.max) else {
                throw MediaEngineError(.invalidArgument, source: source, operation: operation, reason: "a row of \(plane.bytesPerRow) bytes is out of range")
            }
            dst[i] = plane.base.assumingMemoryBound(to: UInt8.self)
            dstStrides[i] = Int32(plane.bytesPerRow)
        }
        var input = frame
        if twoSteps, let scaleContext, let scaled {
            let rows: Int32 = FFmpeg.withPlanes(of: frame) { planes, srcStrides in
                FFmpeg.withPlanes(of: scaled) { into, intoStrides in
                    let src = planes.map { $0.map { UnsafePointer($0) } }
                    return sws_scale(scaleContext, src, srcStrides, 0, f.height, into, intoStrides)
                }
            }
            try FFmpeg.check(rows, operation, source: source)
            input = UnsafePointer(scaled)
        }
        // This swscale's SIMD conversion from YCbCr to 32-bit RGB at the same size (x86) writes pixels 8
        // at a time and leaves a row's last ones unwritten when the row has no room for 8 more: 6
        // columns of an 854-wide picture in tightly packed rows. Such rows are converted into rows with
        // room, then copied.
        let padded = (width + 15) / 16 * 16 * 4
        if target.format.isRGB, input.pointee.width == Int32(width), input.pointee.height == Int32(height),
           let plane = target.planes.first, plane.bytesPerRow < padded {
            let (count, overflow) = padded.multipliedReportingOverflow(by: height)
            guard !overflow, plane.bytesPerRow >= width * 4 else {
                throw MediaEngineError(.invalidArgument, source: source, operation: operation, reason: "a picture of \(width)x\(height) is out of range")
            }
            if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
            let rows: Int32 = scratch.withUnsafeMutableBufferPointer { memory in
                var into: [UnsafeMutablePointer<UInt8>?] = [memory.baseAddress, nil, nil, nil]
                var intoStrides: [Int32] = [Int32(padded), 0, 0, 0]
                let rows = FFmpeg.withPlanes(of: input) { planes, srcStrides in
                    sws_scale(context, planes.map { $0.map { UnsafePointer($0) } }, srcStrides, 0, input.pointee.height, &into, &intoStrides)
                }
                if rows > 0, let from = memory.baseAddress {
                    for row in 0..<height {
                        (plane.base + row * plane.bytesPerRow).copyMemory(from: from + row * padded, byteCount: width * 4)
                    }
                }
                return rows
            }
            try FFmpeg.check(rows, operation, source: source)
            return
        }
        let rows: Int32 = FFmpeg.withPlanes(of: input) { planes, srcStrides in
            let src = planes.map { $0.map { UnsafePointer($0) } }
            return sws_scale(context, src, srcStrides, 0, input.pointee.height, &dst, &dstStrides)
        }
        try FFmpeg.check(rows, operation, source: source)
    }

    /// Makes the first step of a two-step conversion: a context scaling `f`'s format to `width` x
    /// `height` in the same format, and the frame it scales into.
    private func prepareScaling(_ f: AVFrame, width: Int32, height: Int32, flags: Int32, source: String) throws {
        let format = AVPixelFormat(rawValue: f.format)
        scaleContext = sws_getCachedContext(scaleContext, f.width, f.height, format, width, height, format, flags, nil, nil, nil)
        if scaled.map({ $0.pointee.width != width || $0.pointee.height != height || $0.pointee.format != f.format }) ?? true {
            av_frame_free(&scaled)
            scaled = av_frame_alloc()
            if let scaled {
                (scaled.pointee.width, scaled.pointee.height, scaled.pointee.format) = (width, height, f.format)
                if av_frame_get_buffer(scaled, 0) < 0 { av_frame_free(&self.scaled) }
            }
        }
        guard scaleContext != nil, scaled != nil else {
            throw MediaEngineError(.outOfMemory, source: source, operation: "convert the picture",
                                   reason: "cannot scale \(FrameScaler.formatName(f.format)) pictures to \(width)x\(height)")
        }
    }

    /// Whether pictures of `format` can be scaled in their own format first (planar 8-bit YCbCr, the
    /// formats video decoders give most).
    private static func scalesInPlace(_ format: Int32) -> Bool {
        [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P]
            .contains { $0.rawValue == format }
    }

    /// Whether a pixel format is one of FFmpeg's full-range ("J") formats.
    private static func isFullRangeFormat(_ format: Int32) -> Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P]
            .contains { $0.rawValue == format }
    }

    static func swsColorspace(_ space: AVColorSpace, height: Int32) -> Int32 {
        switch space {
        case AVCOL_SPC_BT709: return SWS_CS_ITU709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601
        case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M
        case AVCOL_SPC_FCC: return SWS_CS_FCC
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
        default: return height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601
        }
    }

    static func formatName(_ format: Int32) -> String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } ?? "unknown"
    }

    /// `pixels` (RGBA, `width` x `height`) turned as `orientation` says; the same data when it is `.up`.
    static func reorient(_ pixels: Data, width: Int, height: Int, _ orientation: PictureOrientation) -> Data {
        guard orientation != .up else { return pixels }
        let (outWidth, outHeight) = orientation.transposes ? (height, width) : (width, height)
        var out = Data(count: pixels.count)
        out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
            pixels.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                let s = src.bindMemory(to: UInt32.self), d = dst.bindMemory(to: UInt32.self)
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The source coordinates that X and Y follow, before reversal.
                        let ox = orientation.reversesX ? outWidth - 1 - x : x
                        let oy = orientation.reversesY ? outHeight - 1 - y : y
                        let (sx, sy) = orientation.transposes ? (oy, ox) : (ox, oy)
                        d[y * outWidth + x] = s[sy * width + sx]
                    }
                }
            }
        }
        return out
    }
}
