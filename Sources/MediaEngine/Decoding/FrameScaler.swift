internal import CFFmpeg
import Foundation

/// Turns decoded frames into pixels of a given size and layout (RGBA for pictures and thumbnails; the
/// 32-bit RGB orders and 4:2:0 bi-planar YCbCr that pixel buffers hold): the one owner of a
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
    /// Whether scaling trades some sharpness for speed (fast bilinear, as real-time players scale):
    /// for pictures shown as they play. Bicubic otherwise (thumbnails, reader outputs, export). Pictures
    /// kept at their size are converted the same either way.
    var prefersSpeed = false {
        didSet { if prefersSpeed != oldValue { shape = nil } }
    }

    private struct Shape: Equatable {
        var width: Int32, height: Int32, format: Int32
        var colorspace: UInt32, fullRange: Bool
        var outWidth: Int32, outHeight: Int32, outFormat: PixelMemory.Format, outFullRange: Bool
    }

    deinit { sws_freeContext(context) }

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
        if wanted != shape {
            shape = nil
            // Bicubic for shrinking, unless speed comes first.
            let flags = prefersSpeed ? SWS_FAST_BILINEAR : SWS_BICUBIC
            context = sws_getCachedContext(context, f.width, f.height, AVPixelFormat(rawValue: f.format),
                                           Int32(width), Int32(height), target.format.ffmpegFormat, flags, nil, nil, nil)
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
        let rows: Int32 = FFmpeg.withPlanes(of: frame) { planes, srcStrides in
            let src = planes.map { $0.map { UnsafePointer($0) } }
            return sws_scale(context, src, srcStrides, 0, f.height, &dst, &dstStrides)
        }
        try FFmpeg.check(rows, operation, source: source)
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
