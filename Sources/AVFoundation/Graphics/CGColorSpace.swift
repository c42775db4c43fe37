/// A colour space, by name. Avocet's images are 8-bit RGB(A); the space is recorded, not converted.
public final class CGColorSpace: Hashable, Sendable {
    /// The space's name, such as ``sRGB``.
    public let name: String?
    /// Colour components without alpha: 3 for the RGB spaces, 1 for gray.
    public let numberOfComponents: Int

    /// The name of the sRGB space.
    public static let sRGB = "kCGColorSpaceSRGB"
    /// The name of the generic linear RGB space.
    public static let genericRGBLinear = "kCGColorSpaceGenericRGBLinear"
    /// The name of the device RGB space.
    public static let deviceRGB = "kCGColorSpaceDeviceRGB"
    /// The name of the generic gray space with gamma 2.2.
    public static let genericGrayGamma2_2 = "kCGColorSpaceGenericGrayGamma2_2"

    /// The named space. (Apple's takes a `CFString`; Linux has none.)
    ///
    /// - Parameter name: ``sRGB``, ``genericRGBLinear``, ``deviceRGB`` or ``genericGrayGamma2_2``; nil
    ///   for a name Avocet does not know.
    public init?(name: String) {
        switch name {
        case CGColorSpace.sRGB, CGColorSpace.genericRGBLinear, CGColorSpace.deviceRGB: numberOfComponents = 3
        case CGColorSpace.genericGrayGamma2_2: numberOfComponents = 1
        default: return nil
        }
        self.name = name
    }

    /// Whether both have the same name.
    public static func == (lhs: CGColorSpace, rhs: CGColorSpace) -> Bool { lhs.name == rhs.name }
    /// Hashes the name, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// The device RGB space.
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(name: CGColorSpace.deviceRGB)! }
