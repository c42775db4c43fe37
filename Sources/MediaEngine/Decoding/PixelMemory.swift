internal import CFFmpeg

/// A picture in memory the caller owns (a pixel buffer's): its layout, size and planes (each a base
/// address and a row length in bytes), which a conversion writes into or an encoder reads from. The
/// caller keeps the memory alive during the call; rows hold `width` samples of the plane (4 bytes a
/// pixel for RGB, 1 or 2 bytes a sample for 4:2:0 planes).
package struct PixelMemory {
    /// The layouts a target can have.
    package enum Format: Sendable, Equatable, CaseIterable {
        /// 8-bit B, G, R, A in that byte order (Apple's `32BGRA`).
        case bgra
        /// 8-bit A, R, G, B (Apple's `32ARGB`).
        case argb
        /// 8-bit R, G, B, A (Apple's `32RGBA`).
        case rgba
        /// 4:2:0 bi-planar, 8 bits: Y, then interleaved Cb Cr at half width and height (`420v`/`420f`).
        case nv12
        /// 4:2:0 bi-planar, 10 bits in the high bits of 16-bit little-endian samples (`x420`/`xf20`).
        case p010
        /// 4:2:0 planar, 8 bits: Y, then Cb, then Cr at half width and height (`y420`/`f420`).
        case yuv420p

        package var planeCount: Int { isRGB ? 1 : self == .yuv420p ? 3 : 2 }
        package var isRGB: Bool { self == .bgra || self == .argb || self == .rgba }

        var ffmpegFormat: AVPixelFormat {
            switch self {
            case .bgra: return AV_PIX_FMT_BGRA
            case .argb: return AV_PIX_FMT_ARGB
            case .rgba: return AV_PIX_FMT_RGBA
            case .nv12: return AV_PIX_FMT_NV12
            case .p010: return AV_PIX_FMT_P010LE
            case .yuv420p: return AV_PIX_FMT_YUV420P
            }
        }
    }

    package var format: Format
    /// For YCbCr formats: full range (0-255) rather than video range (16-235).
    package var fullRange: Bool
    package var width: Int
    package var height: Int
    package var planes: [(base: UnsafeMutableRawPointer, bytesPerRow: Int)]

    package init(format: Format, fullRange: Bool = false, width: Int, height: Int, planes: [(base: UnsafeMutableRawPointer, bytesPerRow: Int)]) {
        self.format = format
        self.fullRange = fullRange
        self.width = width
        self.height = height
        self.planes = planes
    }
}
