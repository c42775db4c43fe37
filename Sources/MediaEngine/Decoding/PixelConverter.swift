internal import CFFmpeg
import Foundation

/// Converts RGBA pictures (a composed frame, a rendered image) into any `PixelMemory`: the 32-bit RGB
/// orders, 4:2:0 bi-planar at 8 or 10 bits, or 4:2:0 planar at 8, scaled to the target's size, in one pass, with a
/// `SwsContext` kept across pictures. Colours into YCbCr: BT.709 above 576 lines, BT.601 below; video or
/// full range as the target asks. CPU work on the calling thread; one caller at a time.
package final class PixelConverter {
    private var context: OpaquePointer?

    package init() {}

    deinit { sws_freeContext(context) }

    /// Writes `rgba` (`width` x `height`, tightly packed) into `target`.
    package func convert(rgba: Data, width: Int, height: Int, into target: PixelMemory) throws {
        let operation = "convert the picture"
        guard width > 0, height > 0, width <= PictureFormat.maximumSide, height <= PictureFormat.maximumSide,
              rgba.count >= width * height * 4, target.width > 0, target.height > 0,
              target.width <= PictureFormat.maximumSide, target.height <= PictureFormat.maximumSide,
              target.planes.count == target.format.planeCount else {
            throw MediaEngineError(.invalidArgument, source: "picture", operation: operation,
                                   reason: "a \(width)x\(height) picture cannot go into \(target.width)x\(target.height)")
        }
        context = sws_getCachedContext(context, Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(target.width), Int32(target.height),
                                       target.format.ffmpegFormat, SWS_BICUBIC, nil, nil, nil)
        guard let context else {
            throw MediaEngineError(.unsupported, source: "picture", operation: operation, reason: "swscale refused RGBA to \(target.format)")
        }
        if !target.format.isRGB {
            let matrix = sws_getCoefficients(target.height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601)
            sws_setColorspaceDetails(context, sws_getCoefficients(SWS_CS_DEFAULT), 1, matrix, target.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        }
        var dst: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
        var dstStrides: [Int32] = [0, 0, 0, 0]
        for (i, plane) in target.planes.enumerated() {
            guard plane.bytesPerRow > 0, plane.bytesPerRow <= Int(Int32.max) else {
                throw MediaEngineError(.invalidArgument, source: "picture", operation: operation, reason: "a row of \(plane.bytesPerRow) bytes is out of range")
            }
            dst[i] = plane.base.assumingMemoryBound(to: UInt8.self)
            dstStrides[i] = Int32(plane.bytesPerRow)
        }
        let rows: Int32 = rgba.withUnsafeBytes { raw in
            var src: [UnsafePointer<UInt8>?] = [raw.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            var srcStrides: [Int32] = [Int32(width * 4), 0, 0, 0]
            return sws_scale(context, &src, &srcStrides, 0, Int32(height), &dst, &dstStrides)
        }
        try FFmpeg.check(rows, operation, source: "picture")
    }
}
