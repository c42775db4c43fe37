import Foundation

/// A bitmap image: 8-bit RGBA pixels in memory, as Avocet's image generator produces them.
///
/// Linux has no CoreGraphics; this class keeps CoreGraphics' names and shape for what AVFoundation
/// code uses. Pixel layout: 8 bits per component, 32 bits per pixel, red first, alpha last
/// (``CGImageAlphaInfo/premultipliedLast``, ``CGImageAlphaInfo/last`` or
/// ``CGImageAlphaInfo/noneSkipLast``). Immutable, so Sendable.
public final class CGImage: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bits per colour component: 8.
    public let bitsPerComponent: Int
    /// Bits per pixel: 32.
    public let bitsPerPixel: Int
    /// Bytes from one row to the next (at least `width * 4`).
    public let bytesPerRow: Int
    /// The colour space, recorded (Avocet does not convert colours).
    public let colorSpace: CGColorSpace?
    /// The pixel layout: alpha info and byte order.
    public let bitmapInfo: CGBitmapInfo
    /// The pixels' bytes, row by row.
    public let dataProvider: CGDataProvider?
    /// Whether drawing the image scaled should smooth it; recorded.
    public let shouldInterpolate: Bool
    /// How out-of-gamut colours would be mapped; recorded.
    public let renderingIntent: CGColorRenderingIntent

    /// Where alpha sits, from ``bitmapInfo``.
    public var alphaInfo: CGImageAlphaInfo {
        CGImageAlphaInfo(rawValue: bitmapInfo.intersection(.alphaInfoMask).rawValue) ?? .none
    }

    /// An image over `provider`'s bytes, as CoreGraphics' initializer. The bytes are not copied.
    /// Returns nil for any layout other than 8-bit RGBA (32 bits per pixel, alpha last, big-endian or
    /// default byte order, integer components), for a colour space that is not RGB, for a width or
    /// height that is not positive, for a `bytesPerRow` smaller than `width * 4`, or when the provider
    /// holds fewer than `bytesPerRow * height` bytes.
    ///
    /// - Parameters:
    ///   - width: Width in pixels.
    ///   - height: Height in pixels.
    ///   - bitsPerComponent: 8.
    ///   - bitsPerPixel: 32.
    ///   - bytesPerRow: Bytes from one row to the next: at least `width * 4`.
    ///   - space: An RGB space, such as `CGColorSpace(name: CGColorSpace.sRGB)`; recorded, not converted.
    ///   - bitmapInfo: ``CGImageAlphaInfo/premultipliedLast``, ``CGImageAlphaInfo/last`` or
    ///     ``CGImageAlphaInfo/noneSkipLast`` in the alpha bits, with the default or 32-bit big-endian
    ///     byte order.
    ///   - provider: The pixels, row by row from the top.
    ///   - decode: Ignored.
    ///   - shouldInterpolate: Recorded.
    ///   - intent: Recorded.
    public init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
        bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
        intent: CGColorRenderingIntent
    ) {
        let alpha = CGImageAlphaInfo(rawValue: bitmapInfo.intersection(.alphaInfoMask).rawValue)
        let order = bitmapInfo.intersection(.byteOrderMask)
        guard width > 0, height > 0, bitsPerComponent == 8, bitsPerPixel == 32, bytesPerRow >= width * 4,
              [.premultipliedLast, .last, .noneSkipLast].contains(alpha),
              order == .byteOrderDefault || order == .byteOrder32Big,
              !bitmapInfo.contains(.floatComponents), space.numberOfComponents == 3,
              let data = provider.data, data.count >= bytesPerRow * height
        else { return nil }
        self.width = width
        self.height = height
        self.bitsPerComponent = bitsPerComponent
        self.bitsPerPixel = bitsPerPixel
        self.bytesPerRow = bytesPerRow
        self.colorSpace = space
        self.bitmapInfo = bitmapInfo
        self.dataProvider = provider
        self.shouldInterpolate = shouldInterpolate
        self.renderingIntent = intent
    }

    /// Straight-alpha RGBA pixels, tightly packed (Avocet's image generator and decoders use this).
    package convenience init?(rgbaPixels: Data, width: Int, height: Int) {
        guard let provider = CGDataProvider(data: rgbaPixels), let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        self.init(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4, space: space,
                  bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue), provider: provider, decode: nil,
                  shouldInterpolate: true, intent: .defaultIntent)
    }

    /// The part of the image inside `rect`. Copies the pixels in that rectangle.
    ///
    /// - Parameter rect: A rectangle in pixels, origin top-left; rounded out to whole pixels and clipped
    ///   to the image.
    /// - Returns: A new image of that part, in the same layout; nil when `rect` does not overlap the
    ///   image.
    public func cropping(to rect: CGRect) -> CGImage? {
        let bounds = CGRect(x: 0, y: 0, width: width, height: height)
        let area = rect.integral.intersection(bounds)
        guard !area.isNull, !area.isEmpty, let data = dataProvider?.data else { return nil }
        let x = Int(area.minX), y = Int(area.minY), w = Int(area.width), h = Int(area.height)
        var out = Data(capacity: w * h * 4)
        for row in y..<(y + h) {
            let start = row * bytesPerRow + x * 4
            out.append(data[data.startIndex + start ..< data.startIndex + start + w * 4])
        }
        guard let provider = CGDataProvider(data: out), let space = colorSpace else { return nil }
        return CGImage(width: w, height: h, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: w * 4, space: space,
                       bitmapInfo: bitmapInfo, provider: provider, decode: nil, shouldInterpolate: shouldInterpolate,
                       intent: renderingIntent)
    }

    /// The pixel at (`x`, `y`), as stored (Avocet's helper).
    ///
    /// - Parameters:
    ///   - x: The column, from 0 at the left.
    ///   - y: The row, from 0 at the top.
    /// - Returns: Red, green, blue and alpha as stored (premultiplied when the layout is); nil outside
    ///   the image.
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)? {
        guard (0..<width).contains(x), (0..<height).contains(y), let data = dataProvider?.data else { return nil }
        let i = data.startIndex + y * bytesPerRow + x * 4
        return (data[i], data[i + 1], data[i + 2], data[i + 3])
    }

    /// Tightly packed RGBA with straight alpha: premultiplied colours are divided out and skipped alpha
    /// becomes opaque.
    var straightRGBA: Data {
        guard let data = dataProvider?.data else { return Data() }
        let alpha = alphaInfo
        // Already straight and tightly packed (the image generator's images): no copy.
        if alpha == .last && bytesPerRow == width * 4 && data.count == width * height * 4 { return data }
        var out = Data(count: width * height * 4)
        out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
            data.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                for row in 0..<height {
                    for col in 0..<width {
                        let s = row * bytesPerRow + col * 4, d = (row * width + col) * 4
                        var r = src[s], g = src[s + 1], b = src[s + 2], a = src[s + 3]
                        switch alpha {
                        case .noneSkipLast: a = 255
                        case .premultipliedLast where a > 0 && a < 255:
                            r = CGImage.unpremultiply(r, alpha: a)
                            g = CGImage.unpremultiply(g, alpha: a)
                            b = CGImage.unpremultiply(b, alpha: a)
                        default: break
                        }
                        dst[d] = r; dst[d + 1] = g; dst[d + 2] = b; dst[d + 3] = a
                    }
                }
            }
        }
        return out
    }

    private static func unpremultiply(_ component: UInt8, alpha: UInt8) -> UInt8 {
        let a = Int(alpha)
        let value: Int = (Int(component) * 255 + a / 2) / a
        return UInt8(min(255, value))
    }
}
