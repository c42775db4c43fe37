import Foundation

/// A metadata format, as listed by ``AVAsset/availableMetadataFormats``.
public struct AVMetadataFormat: RawRepresentable, Hashable, Sendable {
    /// The format's identifier.
    public let rawValue: String
    /// A format from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A format from its identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVMetadataFormat+Constants.swift.
