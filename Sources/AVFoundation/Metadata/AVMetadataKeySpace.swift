import Foundation

/// A family of metadata keys: the common key space, or one format's own.
public struct AVMetadataKeySpace: RawRepresentable, Hashable, Sendable {
    /// The key space's code (`"itsk"`, `"org.id3"`).
    public let rawValue: String
    /// A key space from its code.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key space from its code.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The common key space: keys every format maps onto (`title`, `artist`, `artwork`).
    public static let common = AVMetadataKeySpace(rawValue: "comn")
    /// QuickTime user-data keys (`©nam`).
    public static let quickTimeUserData = AVMetadataKeySpace(rawValue: "udta")
    /// ISO (MPEG-4) user-data keys.
    public static let isoUserData = AVMetadataKeySpace(rawValue: "uiso")
    /// QuickTime metadata keys (`com.apple.quicktime.title`).
    public static let quickTimeMetadata = AVMetadataKeySpace(rawValue: "mdta")
    /// iTunes keys (`©nam`, `trkn`, `covr`).
    public static let iTunes = AVMetadataKeySpace(rawValue: "itsk")
    /// ID3 frames (`TIT2`, `APIC`).
    public static let id3 = AVMetadataKeySpace(rawValue: "org.id3")
    /// SHOUTcast/Icecast stream metadata.
    public static let icy = AVMetadataKeySpace(rawValue: "icy")
    /// HTTP Live Streaming date-range metadata.
    public static let hlsDateRange = AVMetadataKeySpace(rawValue: "lsdr")
    /// Tags of audio files without a richer scheme (WAV INFO chunks and the like).
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
