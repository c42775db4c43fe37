import Foundation

/// A metadata format, as listed by ``AVAsset/availableMetadataFormats``.
public struct AVMetadataFormat: RawRepresentable, Hashable, Sendable {
    /// The format's identifier.
    public let rawValue: String
    /// A format from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A format from its identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// QuickTime user data (`udta` atoms with `©` keys).
    public static let quickTimeUserData = AVMetadataFormat(rawValue: "com.apple.quicktime.udta")
    /// ISO user data (MPEG-4 `udta`).
    public static let isoUserData = AVMetadataFormat(rawValue: "org.mp4ra")
    /// QuickTime metadata (`mdta` keys such as `com.apple.quicktime.title`).
    public static let quickTimeMetadata = AVMetadataFormat(rawValue: "com.apple.quicktime.mdta")
    /// iTunes metadata (`ilst` atoms of MP4 and M4A files).
    public static let iTunesMetadata = AVMetadataFormat(rawValue: "com.apple.itunes")
    /// ID3 tags (MP3 files).
    public static let id3Metadata = AVMetadataFormat(rawValue: "org.id3")
    /// HTTP Live Streaming metadata.
    public static let hlsMetadata = AVMetadataFormat(rawValue: "com.apple.quicktime.HLS")
    /// A format Avocet does not name.
    public static let unknown = AVMetadataFormat(rawValue: "public.unknown")
    /// Vorbis comments (FLAC, Ogg). Avocet's.
    public static let vorbisComment = AVMetadataFormat(rawValue: "org.xiph.vorbis-comment")
    /// Matroska and WebM tags. Avocet's.
    public static let matroskaTags = AVMetadataFormat(rawValue: "org.matroska.tags")
    /// Tags of audio files without a richer scheme (WAV INFO chunks and the like). Avocet's name for
    /// what Apple reads through AudioFile.
    public static let audioFile = AVMetadataFormat(rawValue: "com.apple.coreaudio.audiofile")
}
