internal import CFFmpeg
import Foundation

/// Turns decoded frames into RGBA pixels of a given size: the one owner of a `SwsContext`, kept across
/// frames and made again only when the input or output shape changes (`sws_getCachedContext`).
///
/// Colours: the frame's own matrix (BT.601, BT.709, BT.2020) and range (limited or full) where it
/// states them; where it does not, BT.709 for pictures taller than 576 lines and BT.601 for smaller
/// ones, as players assume. Any bit depth FFmpeg decodes (10-bit VP9, HEVC Main 10) comes out as
/// 8-bit. CPU work on the calling thread, growing with the output's size; not thread-safe (one owner
/// uses it at a time).
final class FrameScaler {
    private var context: OpaquePointer?
    private var shape: Shape?

    private struct Shape: Equatable {
        var width: Int32, height: Int32, format: Int32
        var colorspace: UInt32, fullRange: Bool
        var outWidth: Int32, outHeight: Int32
    }

    deinit { sws_freeContext(context) }

    /// `frame` scaled to `width` x `height` as tightly packed RGBA (alpha opaque for video).
    /// `maximumPixels` bounds the output (a picture's size comes from the file); nil leaves it to
    /// FFmpeg's own limits (a still image being decoded).
    func rgba(from frame: UnsafePointer<AVFrame>, width: Int, height: Int, source: String,
              maximumPixels: Int? = PictureFormat.maximumPixels) throws -> Data {
        let operation = "convert the picture"
        let f = frame.pointee
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixels <= (maximumPixels ?? Int(Int32.max) / 4), f.width > 0, f.height > 0 else {
            throw MediaEngineError(.invalidArgument, source: source, operation: operation,
                                   reason: "a picture of \(width)x\(height) from \(f.width)x\(f.height) is out of range")
        }
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || FrameScaler.isFullRangeFormat(f.format)
        let wanted = Shape(width: f.width, height: f.height, format: f.format, colorspace: f.colorspace.rawValue,
                           fullRange: fullRange, outWidth: Int32(width), outHeight: Int32(height))
        if wanted != shape {
            shape = nil
            // Bicubic for shrinking; accurate rounding keeps flat colours flat.
            let flags = SWS_BICUBIC
            context = sws_getCachedContext(context, f.width, f.height, AVPixelFormat(rawValue: f.format),
                                           Int32(width), Int32(height), AV_PIX_FMT_RGBA, flags, nil, nil, nil)
            guard let context else {
                throw MediaEngineError(.unsupported, source: source, operation: operation,
                                       reason: "cannot convert \(FrameScaler.formatName(f.format)) pictures")
            }
            let matrix = sws_getCoefficients(FrameScaler.swsColorspace(f.colorspace, height: f.height))
            let rgb = sws_getCoefficients(SWS_CS_DEFAULT)
            // Brightness 0, contrast and saturation 1.0 in 16.16 fixed point.
            sws_setColorspaceDetails(context, matrix, fullRange ? 1 : 0, rgb, 1, 0, 1 << 16, 1 << 16)
            shape = wanted
        }
        var output = Data(count: width * height * 4)
        let rows: Int32 = try output.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw MediaEngineError(.outOfMemory, source: source, operation: operation, reason: "out of memory")
            }
            var dst: [UnsafeMutablePointer<UInt8>?] = [base, nil, nil, nil]
            var dstStrides: [Int32] = [Int32(width * 4), 0, 0, 0]
            return FFmpeg.withPlanes(of: frame) { planes, srcStrides in
                let src = planes.map { $0.map { UnsafePointer($0) } }
                return sws_scale(context, src, srcStrides, 0, f.height, &dst, &dstStrides)
            }
        }
        try FFmpeg.check(rows, operation, source: source)
        return output
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
