/// The kind of media a track holds.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    /// The four-character code as a string (`"vide"`).
    public let rawValue: String
    /// A media type from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A media type from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Video (`"vide"`).
    public static let video = AVMediaType(rawValue: "vide")
    /// Audio (`"soun"`).
    public static let audio = AVMediaType(rawValue: "soun")
    /// Text (`"text"`).
    public static let text = AVMediaType(rawValue: "text")
    /// Closed captions (`"clcp"`).
    public static let closedCaption = AVMediaType(rawValue: "clcp")
    /// Subtitles (`"sbtl"`).
    public static let subtitle = AVMediaType(rawValue: "sbtl")
    /// Time code (`"tmcd"`).
    public static let timecode = AVMediaType(rawValue: "tmcd")
    /// Timed metadata (`"meta"`).
    public static let metadata = AVMediaType(rawValue: "meta")
    /// Audio and video multiplexed in one stream (`"muxx"`).
    public static let muxed = AVMediaType(rawValue: "muxx")
    /// Depth data (`"dpth"`).
    public static let depthData = AVMediaType(rawValue: "dpth")
    /// Metadata objects a capture finds, such as faces and codes (`"mobj"`); no file track has it.
    public static let metadataObject = AVMediaType(rawValue: "mobj")
}
