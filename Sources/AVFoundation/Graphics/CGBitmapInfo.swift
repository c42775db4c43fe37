/// Pixel layout flags of a bitmap: the alpha info in the low bits, byte order and float flags above.
public struct CGBitmapInfo: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags from their bits (a `CGImageAlphaInfo` raw value may sit in the low bits).
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The bits that hold the `CGImageAlphaInfo`.
    public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
    /// The bits that describe floating-point components.
    public static let floatInfoMask = CGBitmapInfo(rawValue: 0xF00)
    /// Components are floating point.
    public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
    /// The bits that hold the byte order.
    public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
    /// 16-bit little-endian words.
    public static let byteOrder16Little = CGBitmapInfo(rawValue: 1 << 12)
    /// 32-bit little-endian words.
    public static let byteOrder32Little = CGBitmapInfo(rawValue: 2 << 12)
    /// 16-bit big-endian words.
    public static let byteOrder16Big = CGBitmapInfo(rawValue: 3 << 12)
    /// 32-bit big-endian words.
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)
    /// The default byte order (no byte-order bits).
    public static let byteOrderDefault = CGBitmapInfo([])
}
