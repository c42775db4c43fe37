/// A profile of a file type, for segment output: HLS's fragmented MPEG-4, or CMAF.
public struct AVFileTypeProfile: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Fragmented MPEG-4 as Apple's HTTP Live Streaming takes it.
    public static let mpeg4AppleHLS = AVFileTypeProfile(rawValue: "MPEG4AppleHLS")
    /// Fragmented MPEG-4 compliant with CMAF (its brand, one track's constraints).
    public static let mpeg4CMAFCompliant = AVFileTypeProfile(rawValue: "MPEG4CMAFCompliant")
}
