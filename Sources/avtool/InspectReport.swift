import AVFoundation
import Foundation

/// What `avtool inspect` reports for one file, all of it from the public AVFoundation API; encodes as
/// the `--json` output.
///
/// A number Avocet cannot know (an indefinite duration, a rate of a stream without one) is `nil` and
/// encodes as JSON `null`; encoding also turns any non-finite value into `null`, so no report can fail
/// to encode for a NaN or an infinity. Facts that do not apply (a width for an audio track, a missing
/// language) are left out.
struct InspectReport: Encodable, Sendable {
    struct Track: Encodable, Sendable {
        var id: Int32
        var mediaType: String
        var codec: String
        var format: String?
        var enabled: Bool
        var playable: Bool
        var start: Double?
        var duration: Double?
        var timescale: Int32
        var dataRate: Float?
        var language: String?
        var title: String?
        /// Present for video tracks: width, height, rotation and frame rate.
        var video: Video?
        /// Present for tracks with an audio format description: sample rate and channels.
        var audio: Audio?

        struct Video: Sendable {
            var width: Int?
            var height: Int?
            var rotation: Double?
            var frameRate: Float?
        }

        struct Audio: Sendable {
            var sampleRate: Double?
            var channels: Int?
        }

        enum CodingKeys: String, CodingKey {
            case id, mediaType, codec, format, enabled, playable, start, duration, timescale, dataRate, language, title
            case width, height, rotation, frameRate, sampleRate, channels
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(mediaType, forKey: .mediaType)
            try c.encode(codec, forKey: .codec)
            try c.encodeIfPresent(format, forKey: .format)
            try c.encode(enabled, forKey: .enabled)
            try c.encode(playable, forKey: .playable)
            try c.encodeNumber(start, forKey: .start)
            try c.encodeNumber(duration, forKey: .duration)
            try c.encode(timescale, forKey: .timescale)
            try c.encodeNumber(dataRate, forKey: .dataRate)
            try c.encodeIfPresent(language, forKey: .language)
            try c.encodeIfPresent(title, forKey: .title)
            if let video {
                try c.encode(video.width, forKey: .width)
                try c.encode(video.height, forKey: .height)
                try c.encodeNumber(video.rotation, forKey: .rotation)
                try c.encodeNumber(video.frameRate, forKey: .frameRate)
            }
            if let audio {
                try c.encodeNumber(audio.sampleRate, forKey: .sampleRate)
                try c.encode(audio.channels, forKey: .channels)
            }
        }
    }

    struct Tag: Encodable, Sendable {
        var identifier: String
        var commonKey: String?
        var value: String?
        var bytes: Int?
    }

    struct Chapter: Encodable, Sendable {
        var start: Double?
        var end: Double?
        var title: String?

        enum CodingKeys: String, CodingKey { case start, end, title }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeNumber(start, forKey: .start)
            try c.encodeNumber(end, forKey: .end)
            try c.encodeIfPresent(title, forKey: .title)
        }
    }

    var file: String
    var size: Int64?
    /// Seconds; nil when the asset's duration is indefinite or invalid.
    var duration: Double?
    var preciseTiming: Bool
    var playable: Bool
    var tracks: [Track]
    var metadata: [Tag]
    var chapters: [Chapter]

    enum CodingKeys: String, CodingKey { case file, size, duration, preciseTiming, playable, tracks, metadata, chapters }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(size, forKey: .size)
        try c.encodeNumber(duration, forKey: .duration)
        try c.encode(preciseTiming, forKey: .preciseTiming)
        try c.encode(playable, forKey: .playable)
        try c.encode(tracks, forKey: .tracks)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(chapters, forKey: .chapters)
    }

    /// A time's seconds, or nil when it is not a finite number (invalid, indefinite, ±infinity).
    static func seconds(_ time: CMTime) -> Double? { finite(time.seconds) }

    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
    static func finite(_ value: Double?) -> Double? { value.flatMap(finite) }
    static func finite(_ value: Float) -> Float? { value.isFinite ? value : nil }

    /// Loads everything the report needs: the asset's keys in one `load`, then each track's.
    static func load(file: String) async throws -> InspectReport {
        // Precise timing costs a packet scan only for files whose header merely estimates (VBR MP3).
        let url = MediaLocation.url(file)
        let asset = AVURLAsset(url: url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        let (duration, precise, playable, tracks, metadata) = try await asset.load(
            .duration, .providesPreciseDurationAndTiming, .isPlayable, .tracks, .metadata)
        var report = InspectReport(
            file: file, size: url.isFileURL ? (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int).flatMap { $0.map(Int64.init) } : nil,
            duration: seconds(duration), preciseTiming: precise, playable: playable, tracks: [], metadata: [], chapters: [])
        for track in tracks { report.tracks.append(try await Self.track(track)) }
        for item in metadata { report.metadata.append(try await Self.tag(item)) }
        for group in try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: Locale.preferredLanguages) {
            let title = try await group.items.first?.load(.stringValue) ?? nil
            report.chapters.append(Chapter(start: seconds(group.timeRange.start), end: seconds(group.timeRange.end), title: title))
        }
        return report
    }

    private static func track(_ track: AVAssetTrack) async throws -> Track {
        let (descriptions, enabled, playable, range, rate, language, common) = try await track.load(
            .formatDescriptions, .isEnabled, .isPlayable, .timeRange, .estimatedDataRate, .languageCode, .commonMetadata)
        let description = descriptions.first
        let format = description?.extensions[.formatName]?.propertyListRepresentation as? String
        let title = try await AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierTitle).first?.load(.stringValue) ?? nil
        var result = Track(
            id: track.trackID, mediaType: track.mediaType.rawValue, codec: description?.mediaSubType.description ?? "?",
            format: format, enabled: enabled, playable: playable, start: seconds(range.start), duration: seconds(range.duration),
            timescale: try await track.load(.naturalTimeScale), dataRate: finite(rate), language: language, title: title)
        if track.mediaType == .video {
            let (size, transform, frameRate) = try await track.load(.naturalSize, .preferredTransform, .nominalFrameRate)
            var degrees = finite((atan2(Double(transform.b), Double(transform.a)) * 180 / .pi).rounded())
            if let d = degrees, d < 0 { degrees = d + 360 }
            result.video = Track.Video(width: Int(exactly: Double(size.width).rounded()), height: Int(exactly: Double(size.height).rounded()),
                                       rotation: degrees, frameRate: finite(frameRate))
        }
        if let asbd = description?.audioStreamBasicDescription {
            result.audio = Track.Audio(sampleRate: finite(asbd.mSampleRate), channels: Int(asbd.mChannelsPerFrame))
        }
        return result
    }

    private static func tag(_ item: AVMetadataItem) async throws -> Tag {
        let (text, data) = try await item.load(.stringValue, .dataValue)
        return Tag(identifier: item.identifier?.rawValue ?? "?", commonKey: item.commonKey?.rawValue, value: text, bytes: data?.count)
    }

    /// The order in which common keys are listed in text; keys not named here follow, in the file's order.
    static let commonKeyOrder = [
        "title", "artist", "albumName", "author", "creator", "contributor", "publisher", "subject", "description", "type",
        "creationDate", "lastModifiedDate", "location", "make", "model", "software", "copyrights", "language",
        "identifier", "format", "source", "relation", "accessibilityDescription", "artwork",
    ]

    /// The tags as text lists them: those with a common key first, named by it (`title`, `artist`,
    /// `albumName`, `artwork`, ...), then the others by their raw identifier (`itsk/%A9gen`, `mkv/ENCODER`).
    var tagLines: [(name: String, value: String)] {
        func rank(_ key: String) -> Int { Self.commonKeyOrder.firstIndex(of: key) ?? Self.commonKeyOrder.count }
        let common = metadata.enumerated()
            .compactMap { index, tag in tag.commonKey.map { (key: $0, index: index, tag: tag) } }
            .sorted { (rank($0.key), $0.index) < (rank($1.key), $1.index) }
            .map { (name: $0.key, tag: $0.tag) }
        let raw = metadata.filter { $0.commonKey == nil }.map { (name: $0.identifier, tag: $0) }
        return (common + raw).map { entry in
            (name: entry.name, value: entry.tag.value ?? entry.tag.bytes.map { "<\($0) bytes>" } ?? "")
        }
    }

    /// The human-readable form: the file, then one line per fact, track, tag and chapter.
    var text: String {
        var lines = [file]
        if let size { lines.append("  size       \(size) bytes") }
        let shownDuration = Self.finite(duration).map { String(format: "%.3f s", $0) + (preciseTiming ? "" : " (estimated)") } ?? "unknown"
        lines.append("  duration   " + shownDuration)
        for t in tracks {
            let kinds = ["vide": "video", "soun": "audio", "sbtl": "subtitle", "clcp": "closed captions", "meta": "metadata",
                         "tmcd": "timecode", "text": "text"]
            var parts = ["  track \(t.id)    \(kinds[t.mediaType] ?? t.mediaType)", t.codec.trimmingCharacters(in: .whitespaces)]
            if let format = t.format { parts.append(format) }
            if let w = t.video?.width, let h = t.video?.height { parts.append("\(w)x\(h)") }
            if let fps = t.video?.frameRate, fps.isFinite, fps > 0 { parts.append(String(format: "%.3g fps", fps)) }
            if let r = t.video?.rotation, r.isFinite, r != 0 { parts.append(String(format: "rotated %.0f°", r)) }
            if let rate = t.audio?.sampleRate, rate.isFinite { parts.append(String(format: "%.0f Hz", rate)) }
            if let channels = t.audio?.channels { parts.append(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) ch") }
            if let language = t.language { parts.append("[\(language)]") }
            if let title = t.title { parts.append("“\(title)”") }
            if !t.enabled { parts.append("disabled") }
            lines.append(parts.joined(separator: "  "))
        }
        for tag in tagLines {
            lines.append("  tag        \(tag.name): \(tag.value)")
        }
        for c in chapters {
            let start = Self.finite(c.start).map { String(format: "%.3f", $0) } ?? "?"
            let end = Self.finite(c.end).map { String(format: "%.3f", $0) } ?? "?"
            lines.append("  chapter    \(start)–\(end)  " + (c.title ?? ""))
        }
        return lines.joined(separator: "\n")
    }

    /// One report as pretty-printed JSON, with sorted keys and unescaped slashes.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The `--json` output: a JSON array of the reports' objects, each encoded on its own so that one
    /// report cannot cost the others theirs. The layout is JSONEncoder's for the same array.
    static func jsonArray(_ objects: [String]) -> String {
        // JSONEncoder indents every line of an element but the empty one inside an empty array.
        let indented = objects.map { object in
            object.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
        }
        return "[\n" + indented.joined(separator: ",\n") + "\n]"
    }
}

extension KeyedEncodingContainer {
    /// A number, or `null` when it is unknown (nil) or not finite (NaN, ±infinity), which JSON cannot hold.
    mutating func encodeNumber(_ value: Double?, forKey key: Key) throws {
        if let value, value.isFinite { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func encodeNumber(_ value: Float?, forKey key: Key) throws {
        if let value, value.isFinite { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
