import Foundation

/// A family of metadata keys: the common key space, or one format's own.
public struct AVMetadataKeySpace: RawRepresentable, Hashable, Sendable {
    /// The key space's code (`"itsk"`, `"org.id3"`).
    public let rawValue: String
    /// A key space from its code.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key space from its code.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    // The constants are generated from one table: see AVMetadataKeySpace+Constants.swift.

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
