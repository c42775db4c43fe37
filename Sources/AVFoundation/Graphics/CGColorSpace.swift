/// A colour space, by name. Avocet's images are 8-bit RGB(A); the space is recorded, not converted.
public final class CGColorSpace: Hashable, Sendable {
    /// The space's name, such as `CGColorSpace.sRGB`.
    public let name: String?
    public let numberOfComponents: Int

    public static let sRGB = "kCGColorSpaceSRGB"
    public static let genericRGBLinear = "kCGColorSpaceGenericRGBLinear"
    public static let deviceRGB = "kCGColorSpaceDeviceRGB"
    public static let genericGrayGamma2_2 = "kCGColorSpaceGenericGrayGamma2_2"

    /// The named space; nil for a name Avocet does not know. (Apple's takes a `CFString`; Linux has none.)
    public init?(name: String) {
        switch name {
        case CGColorSpace.sRGB, CGColorSpace.genericRGBLinear, CGColorSpace.deviceRGB: numberOfComponents = 3
        case CGColorSpace.genericGrayGamma2_2: numberOfComponents = 1
        default: return nil
        }
        self.name = name
    }

    public static func == (lhs: CGColorSpace, rhs: CGColorSpace) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(name: CGColorSpace.deviceRGB)! }
