import AVFoundation
import CoreMedia
import Foundation

/// The facts `POST /inspect` answers about one asset, all read through Avocet's public API (one
/// `load` for the asset's keys, one per track); encodes as the response's JSON.
///
/// Loading runs on Avocet's engine threads (the caller only awaits). A number Avocet cannot know (an
/// indefinite duration, the rate of a stream without one) encodes as `null`, never as a failure.
public struct AssetReport: Encodable, Sendable {
    /// A width and height in pixels.
    public struct Size: Encodable, Sendable {
        public var width: Double
        public var height: Double
    }

    /// A time range in seconds.
    public struct TimeRange: Encodable, Sendable {
        public var start: Double?
        public var duration: Double?

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeNumber(start, forKey: .start)
            try c.encodeNumber(duration, forKey: .duration)
        }

        enum CodingKeys: String, CodingKey { case start, duration }
    }

    /// One track's facts.
    public struct Track: Encodable, Sendable {
        public var id: Int32
        /// Apple's media type raw value: `vide`, `soun`, `sbtl`, ...
        public var mediaType: String
        /// The codec's four-character code (`avc1`, `aac`, `Opus`), when the track has a format description.
        public var codec: String?
        public var naturalSize: Size?
        public var nominalFrameRate: Float?
        /// Bits per second.
        public var estimatedDataRate: Float?
        public var timeRange: TimeRange
        public var languageCode: String?

        enum CodingKeys: String, CodingKey { case id, mediaType, codec, naturalSize, nominalFrameRate, estimatedDataRate, timeRange, languageCode }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(mediaType, forKey: .mediaType)
            try c.encode(codec, forKey: .codec)
            try c.encodeIfPresent(naturalSize, forKey: .naturalSize)
            try c.encodeNumber(nominalFrameRate, forKey: .nominalFrameRate)
            try c.encodeNumber(estimatedDataRate, forKey: .estimatedDataRate)
            try c.encode(timeRange, forKey: .timeRange)
            try c.encodeIfPresent(languageCode, forKey: .languageCode)
        }
    }

    /// One item of the common metadata: its common key, and its text or, for binary values such as
    /// artwork, its length.
    public struct Tag: Encodable, Sendable {
        public var key: String
        public var value: String?
        public var bytes: Int?
    }

    /// The upload's id, by which `/thumbnail` and `/export` can name it; nil for other sources.
    public var uploadID: String?
    /// Bytes of the upload.
    public var size: Int64?
    /// Seconds; nil when the asset's duration is indefinite.
    public var duration: Double?
    public var tracks: [Track]
    public var metadata: [Tag]

    enum CodingKeys: String, CodingKey { case uploadID, size, duration, tracks, metadata }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(uploadID, forKey: .uploadID)
        try c.encodeIfPresent(size, forKey: .size)
        try c.encodeNumber(duration, forKey: .duration)
        try c.encode(tracks, forKey: .tracks)
        try c.encode(metadata, forKey: .metadata)
    }

    /// Loads the report of `asset`: its duration, tracks and common metadata.
    static func load(_ asset: AVURLAsset) async throws -> AssetReport {
        let (duration, tracks, common) = try await asset.load(.duration, .tracks, .commonMetadata)
        var report = AssetReport(uploadID: nil, size: nil, duration: finite(duration.seconds), tracks: [], metadata: [])
        for track in tracks { report.tracks.append(try await Self.track(track)) }
        for item in common {
            guard let key = item.commonKey?.rawValue else { continue }
            let (text, data) = try await item.load(.stringValue, .dataValue)
            report.metadata.append(Tag(key: key, value: text, bytes: text == nil ? data?.count : nil))
        }
        return report
    }

    private static func track(_ track: AVAssetTrack) async throws -> Track {
        let (descriptions, range, rate, language) = try await track.load(.formatDescriptions, .timeRange, .estimatedDataRate, .languageCode)
        let codec = descriptions.first.map { $0.mediaSubType.description.trimmingCharacters(in: .whitespaces) }
        var result = Track(id: track.trackID, mediaType: track.mediaType.rawValue, codec: codec, naturalSize: nil, nominalFrameRate: nil,
                           estimatedDataRate: finite(rate),
                           timeRange: TimeRange(start: finite(range.start.seconds), duration: finite(range.duration.seconds)),
                           languageCode: language)
        if track.mediaType == .video {
            let (size, frameRate) = try await track.load(.naturalSize, .nominalFrameRate)
            result.naturalSize = Size(width: Double(size.width), height: Double(size.height))
            result.nominalFrameRate = finite(frameRate)
        }
        return result
    }

    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
    static func finite(_ value: Float) -> Float? { value.isFinite ? value : nil }
}

extension KeyedEncodingContainer {
    /// A number, or `null` when it is unknown or not finite (JSON holds no NaN or infinity).
    mutating func encodeNumber(_ value: Double?, forKey key: Key) throws {
        if let value, value.isFinite { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeNumber(_ value: Float?, forKey key: Key) throws {
        if let value, value.isFinite { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
