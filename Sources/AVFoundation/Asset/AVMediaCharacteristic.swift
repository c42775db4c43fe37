/// A characteristic of media a track may have (visual, audible, legible, ...).
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable {
    /// The characteristic's string.
    public let rawValue: String
    /// A characteristic from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A characteristic from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVMediaCharacteristic+Constants.swift.
