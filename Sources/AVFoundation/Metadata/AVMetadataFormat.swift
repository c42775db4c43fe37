import Foundation

/// A metadata format, as listed by `availableMetadataFormats`.
public struct AVMetadataFormat: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let quickTimeUserData = AVMetadataFormat(rawValue: "com.apple.quicktime.udta")
    public static let isoUserData = AVMetadataFormat(rawValue: "org.mp4ra")
    public static let quickTimeMetadata = AVMetadataFormat(rawValue: "com.apple.quicktime.mdta")
    public static let iTunesMetadata = AVMetadataFormat(rawValue: "com.apple.itunes")
    public static let id3Metadata = AVMetadataFormat(rawValue: "org.id3")
    public static let hlsMetadata = AVMetadataFormat(rawValue: "com.apple.quicktime.HLS")
    public static let unknown = AVMetadataFormat(rawValue: "public.unknown")
    /// Vorbis comments (FLAC, Ogg). Avocet's.
    public static let vorbisComment = AVMetadataFormat(rawValue: "org.xiph.vorbis-comment")
    /// Matroska and WebM tags. Avocet's.
    public static let matroskaTags = AVMetadataFormat(rawValue: "org.matroska.tags")
    /// Tags of audio files without a richer scheme (WAV INFO chunks and the like). Avocet's name for
    /// what Apple reads through AudioFile.
    public static let audioFile = AVMetadataFormat(rawValue: "com.apple.coreaudio.audiofile")
}
