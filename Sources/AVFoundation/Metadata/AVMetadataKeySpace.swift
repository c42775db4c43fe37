import Foundation

/// A family of metadata keys: the common key space, or one format's own.
public struct AVMetadataKeySpace: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let common = AVMetadataKeySpace(rawValue: "comn")
    public static let quickTimeUserData = AVMetadataKeySpace(rawValue: "udta")
    public static let isoUserData = AVMetadataKeySpace(rawValue: "uiso")
    public static let quickTimeMetadata = AVMetadataKeySpace(rawValue: "mdta")
    public static let iTunes = AVMetadataKeySpace(rawValue: "itsk")
    public static let id3 = AVMetadataKeySpace(rawValue: "org.id3")
    public static let icy = AVMetadataKeySpace(rawValue: "icy")
    public static let hlsDateRange = AVMetadataKeySpace(rawValue: "lsdr")
    public static let audioFile = AVMetadataKeySpace(rawValue: "caaf")
    /// Vorbis comments (FLAC, Ogg Vorbis, Ogg Opus). Avocet's: Apple has no key space for them.
    public static let vorbisComment = AVMetadataKeySpace(rawValue: "org.xiph.vorbis-comment")
    /// Matroska and WebM tags. Avocet's: Apple has no key space for them.
    public static let matroska = AVMetadataKeySpace(rawValue: "org.matroska.tags")

    /// The prefix of this key space's identifiers ("common", "itsk", "id3", ...).
    var identifierPrefix: String {
        switch self {
        case .common: return "common"
        case .id3: return "id3"
        case .vorbisComment: return "vorbis"
        case .matroska: return "mkv"
        default: return rawValue
        }
    }

    /// The key space whose identifiers start with `prefix`.
    init?(identifierPrefix prefix: String) {
        let all: [AVMetadataKeySpace] = [.common, .quickTimeUserData, .isoUserData, .quickTimeMetadata, .iTunes, .id3, .icy,
                                         .hlsDateRange, .audioFile, .vorbisComment, .matroska]
        guard let space = all.first(where: { $0.identifierPrefix == prefix }) else { return nil }
        self = space
    }

    /// The metadata format this key space belongs to.
    var format: AVMetadataFormat {
        switch self {
        case .quickTimeUserData: return .quickTimeUserData
        case .isoUserData: return .isoUserData
        case .quickTimeMetadata: return .quickTimeMetadata
        case .iTunes: return .iTunesMetadata
        case .id3: return .id3Metadata
        case .vorbisComment: return .vorbisComment
        case .matroska: return .matroskaTags
        case .audioFile: return .audioFile
        default: return .unknown
        }
    }
}
