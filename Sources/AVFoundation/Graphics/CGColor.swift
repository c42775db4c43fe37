import Foundation

/// A colour: components in a colour space (red, green, blue and alpha in sRGB, or gray and alpha),
/// each from 0 to 1. Immutable, so Sendable. What AVFoundation code uses of CoreGraphics' class: a
/// video composition instruction's background colour.
public final class CGColor: Hashable, Sendable, CustomStringConvertible {
    /// The colour's components, alpha last.
    public let components: [CGFloat]?
    /// The colour space the components are in.
    public let colorSpace: CGColorSpace?

    /// An sRGB colour.
    ///
    /// - Parameters:
    ///   - red: The red component, from 0 to 1.
    ///   - green: The green component, from 0 to 1.
    ///   - blue: The blue component, from 0 to 1.
    ///   - alpha: The opacity, from 0 (transparent) to 1 (opaque).
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        components = [red, green, blue, alpha]
        colorSpace = CGColorSpace(name: CGColorSpace.sRGB)
    }

    /// A gray in the generic gray space.
    ///
    /// - Parameters:
    ///   - gray: The level, from 0 (black) to 1 (white).
    ///   - alpha: The opacity, from 0 (transparent) to 1 (opaque).
    public init(gray: CGFloat, alpha: CGFloat) {
        components = [gray, alpha]
        colorSpace = CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)
    }

    /// Opaque black (gray 0).
    public static let black = CGColor(gray: 0, alpha: 1)
    /// Opaque white (gray 1).
    public static let white = CGColor(gray: 1, alpha: 1)
    /// Fully transparent (gray 0, alpha 0).
    public static let clear = CGColor(gray: 0, alpha: 0)

    /// The number of components, alpha included.
    public var numberOfComponents: Int { components?.count ?? 0 }
    /// The alpha component (the last); 1 when there are no components.
    public var alpha: CGFloat { components?.last ?? 1 }

    /// Red, green, blue and alpha from 0 to 255, components clamped (a gray repeats its level).
    var rgba8: (UInt8, UInt8, UInt8, UInt8) {
        func byte(_ v: CGFloat) -> UInt8 { UInt8((min(1, max(0, v.isFinite ? v : 0)) * 255).rounded()) }
        let c = components ?? [0, 1]
        if c.count >= 4 { return (byte(c[0]), byte(c[1]), byte(c[2]), byte(c[3])) }
        let gray = byte(c.first ?? 0)
        return (gray, gray, gray, byte(c.count > 1 ? c[1] : 1))
    }

    /// Whether both have the same components in the same colour space.
    public static func == (lhs: CGColor, rhs: CGColor) -> Bool {
        lhs.components == rhs.components && lhs.colorSpace == rhs.colorSpace
    }

    /// Hashes the components and colour space, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(components)
        hasher.combine(colorSpace)
    }

    /// The colour space's name and the components.
    public var description: String { "<CGColor \(colorSpace?.name ?? "?") \(components ?? [])>" }
}
