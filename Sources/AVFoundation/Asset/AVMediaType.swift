/// The kind of media a track holds.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    /// The four-character code as a string (`"vide"`).
    public let rawValue: String
    /// A media type from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A media type from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVMediaType+Constants.swift.
