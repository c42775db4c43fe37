/// A file type, by its uniform type identifier.
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    /// The uniform type identifier.
    public let rawValue: String
    /// A file type from its uniform type identifier.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A file type from its uniform type identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVFileType+Constants.swift.
