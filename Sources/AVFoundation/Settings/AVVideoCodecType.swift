/// A video codec, the value of ``AVVideoCodecKey`` (its four-character code as a string), as Apple's.
public struct AVVideoCodecType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVVideoCodecType+Constants.swift.
