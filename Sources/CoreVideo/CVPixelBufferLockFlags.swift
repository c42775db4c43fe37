/// CoreVideo's option bits.
public typealias CVOptionFlags = UInt64

/// How a base address is locked.
public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    /// The flag bits.
    public let rawValue: CVOptionFlags
    /// Flags from their bits.
    public init(rawValue: CVOptionFlags) { self.rawValue = rawValue }
    /// The caller only reads the memory while it is locked.
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 1)
}
