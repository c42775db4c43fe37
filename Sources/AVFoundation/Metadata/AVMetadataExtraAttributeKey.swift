/// Keys of a metadata item's `extraAttributes`.
public struct AVMetadataExtraAttributeKey: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let valueURI = AVMetadataExtraAttributeKey(rawValue: "URL")
    public static let baseURI = AVMetadataExtraAttributeKey(rawValue: "baseURL")
    public static let info = AVMetadataExtraAttributeKey(rawValue: "info")
}
