/// Keys of a metadata item's `extraAttributes`.
public struct AVMetadataExtraAttributeKey: RawRepresentable, Hashable, Sendable {
    /// The key's string.
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The URL the value refers to.
    public static let valueURI = AVMetadataExtraAttributeKey(rawValue: "URL")
    /// The base URL a relative value URL resolves against.
    public static let baseURI = AVMetadataExtraAttributeKey(rawValue: "baseURL")
    /// Additional information about the item, such as an ID3 frame's description.
    public static let info = AVMetadataExtraAttributeKey(rawValue: "info")
}
