internal import CFFmpeg
import Foundation

/// Converts RGBA pictures to 4:2:0 bi-planar (NV12: a Y plane, then interleaved CbCr), the layout
/// players' video outputs ask for, with a `SwsContext` kept across pictures. Colours: BT.709 above 576
/// lines, BT.601 below; video or full range as asked. CPU work on the calling thread; one caller at a
/// time.
package final class PixelConverter {
    private var context: OpaquePointer?

    package init() {}

    deinit { sws_freeContext(context) }

    /// Writes `rgba` (`width` x `height`, tightly packed) into the planes at `luma` and `chroma`.
    package func nv12(from rgba: Data, width: Int, height: Int, fullRange: Bool,
                      luma: UnsafeMutableRawPointer, lumaBytesPerRow: Int,
                      chroma: UnsafeMutableRawPointer, chromaBytesPerRow: Int) throws {
        guard width > 0, height > 0, width <= 65536, height <= 65536, rgba.count >= width * height * 4 else {
            throw MediaEngineError(.invalidArgument, source: "picture", operation: "convert to 4:2:0", reason: "the picture is not \(width)x\(height)")
        }
        context = sws_getCachedContext(context, Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(width), Int32(height), AV_PIX_FMT_NV12,
                                       SWS_BICUBIC, nil, nil, nil)
        guard let context else {
            throw MediaEngineError(.unsupported, source: "picture", operation: "convert to 4:2:0", reason: "swscale refused RGBA to NV12")
        }
        let matrix = sws_getCoefficients(height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601)
        sws_setColorspaceDetails(context, sws_getCoefficients(SWS_CS_DEFAULT), 1, matrix, fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        let rows: Int32 = rgba.withUnsafeBytes { raw in
            var src: [UnsafePointer<UInt8>?] = [raw.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            var srcStrides: [Int32] = [Int32(width * 4), 0, 0, 0]
            var dst: [UnsafeMutablePointer<UInt8>?] = [luma.assumingMemoryBound(to: UInt8.self), chroma.assumingMemoryBound(to: UInt8.self), nil, nil]
            var dstStrides: [Int32] = [Int32(lumaBytesPerRow), Int32(chromaBytesPerRow), 0, 0]
            return sws_scale(context, &src, &srcStrides, 0, Int32(height), &dst, &dstStrides)
        }
        try FFmpeg.check(rows, "convert to 4:2:0", source: "picture")
    }
}
