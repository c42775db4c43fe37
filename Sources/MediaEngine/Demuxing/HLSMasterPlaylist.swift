import Foundation

/// The variant entries of an HTTP Live Streaming master playlist (`EXT-X-STREAM-INF`), read from its
/// text with a strict, bounded parser: what Apple's `AVAssetVariant` reports comes from these
/// attributes, which FFmpeg's HLS demuxer does not pass on (it keeps the bandwidth alone). Pure.
package enum HLSMasterPlaylist {
    /// One `EXT-X-STREAM-INF` entry's attributes, as far as they are well formed.
    package struct Variant: Sendable, Equatable {
        /// `BANDWIDTH`, bits per second.
        package var bandwidth: Int64?
        /// `AVERAGE-BANDWIDTH`, bits per second.
        package var averageBandwidth: Int64?
        /// `RESOLUTION`, as width and height.
        package var width: Int?
        package var height: Int?
        /// `FRAME-RATE`.
        package var frameRate: Double?
        /// `CODECS`, one RFC 6381 string each (`avc1.42c00d`, `mp4a.40.2`).
        package var codecs: [String] = []
        /// `VIDEO-RANGE` (`SDR`, `PQ`, `HLG`).
        package var videoRange: String?
        /// `SUBTITLES`: the group of subtitle renditions that goes with the variant.
        package var subtitles: String?
    }

    /// One `EXT-X-MEDIA` entry: an alternative rendition (audio, subtitles, ...) of a group.
    package struct Rendition: Sendable, Equatable {
        /// `TYPE`: AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS.
        package var type: String
        package var groupID: String
        package var name: String?
        package var language: String?
        package var isDefault = false
        package var autoselect = false
        package var forced = false
        /// `CHARACTERISTICS`: Uniform Type Identifiers, such as public.accessibility.transcribes-spoken-dialog.
        package var characteristics: [String] = []
        /// `URI`, as the playlist gives it (relative to the playlist's own URL).
        package var uri: String?
    }

    /// The `EXT-X-MEDIA` entries of `text`, in order (at most `maximumVariants`); entries without a
    /// TYPE or GROUP-ID are left out.
    package static func renditions(in text: Substring) -> [Rendition] {
        var result: [Rendition] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("#EXT-X-MEDIA:") {
            guard result.count < maximumVariants else { break }
            let attributes = attributeList(line.dropFirst("#EXT-X-MEDIA:".count))
            guard let type = attributes["TYPE"], let group = attributes["GROUP-ID"] else { continue }
            var rendition = Rendition(type: type, groupID: group)
            rendition.name = attributes["NAME"]
            rendition.language = attributes["LANGUAGE"]
            rendition.isDefault = attributes["DEFAULT"] == "YES"
            rendition.autoselect = attributes["AUTOSELECT"] == "YES"
            rendition.forced = attributes["FORCED"] == "YES"
            rendition.characteristics = attributes["CHARACTERISTICS"].map { $0.split(separator: ",").map(String.init) } ?? []
            rendition.uri = attributes["URI"]
            result.append(rendition)
        }
        return result
    }

    /// One segment of a media playlist: its `EXTINF` duration and its URI.
    package struct Segment: Sendable, Equatable {
        package var duration: Double
        package var uri: String
    }

    /// The most segments read from a media playlist.
    static let maximumSegments = 20_000

    /// The segments of a media playlist's `text`, in order (at most `maximumSegments`): each URI line
    /// after an `EXTINF` tag.
    package static func segments(in text: Substring) -> [Segment] {
        var result: [Segment] = []
        var duration: Double?
        for line in text.split(whereSeparator: \.isNewline) {
            guard result.count < maximumSegments else { break }
            let line = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1).first.map(String.init) ?? ""
                duration = Double(value).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? 0
            } else if !line.isEmpty, !line.hasPrefix("#"), let known = duration {
                result.append(Segment(duration: known, uri: line))
                duration = nil
            }
        }
        return result
    }

    /// The most entries and attribute bytes read: a playlist is text a stranger may write.
    static let maximumVariants = 1024
    static let maximumTextBytes = 1 << 20

    /// The variant entries of `text`, in order; empty for a media playlist or anything else.
    package static func variants(in text: Substring) -> [Variant] {
        var result: [Variant] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("#EXT-X-STREAM-INF:") {
            guard result.count < maximumVariants else { break }
            let attributes = attributeList(line.dropFirst("#EXT-X-STREAM-INF:".count))
            var variant = Variant()
            variant.bandwidth = attributes["BANDWIDTH"].flatMap(bitRate)
            variant.averageBandwidth = attributes["AVERAGE-BANDWIDTH"].flatMap(bitRate)
            if let resolution = attributes["RESOLUTION"] {
                let sides = resolution.split(separator: "x", omittingEmptySubsequences: false)
                if sides.count == 2, let w = Int(sides[0]), let h = Int(sides[1]), w > 0, h > 0, w <= 1 << 16, h <= 1 << 16 {
                    (variant.width, variant.height) = (w, h)
                }
            }
            variant.frameRate = attributes["FRAME-RATE"].flatMap { Double($0) }.flatMap { $0 > 0 && $0.isFinite && $0 < 1000 ? $0 : nil }
            variant.codecs = attributes["CODECS"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
            variant.videoRange = attributes["VIDEO-RANGE"]
            variant.subtitles = attributes["SUBTITLES"]
            result.append(variant)
        }
        return result
    }

    /// The most bits per second a bandwidth may state (a terabit): beyond, it is no real stream's.
    static let maximumBitRate: Int64 = 1_000_000_000_000

    /// A positive bit rate no greater than `maximumBitRate`; nil for anything else.
    static func bitRate(_ text: String) -> Int64? {
        Int64(text).flatMap { $0 > 0 && $0 <= maximumBitRate ? $0 : nil }
    }

    /// An attribute list (`KEY=VALUE,KEY="quoted, value"`) as a dictionary; quotes removed. A name seen
    /// twice keeps its first value.
    static func attributeList(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = String(rest[..<equals]).trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let afterQuote = rest.index(after: rest.startIndex)
                guard let close = rest[afterQuote...].firstIndex(of: "\"") else { break }
                value = rest[afterQuote..<close]
                rest = rest[rest.index(after: close)...]
                if let comma = rest.firstIndex(of: ",") { rest = rest[rest.index(after: comma)...] } else { rest = rest[rest.endIndex...] }
            } else if let comma = rest.firstIndex(of: ",") {
                value = rest[..<comma]
                rest = rest[rest.index(after: comma)...]
            } else {
                value = rest
                rest = rest[rest.endIndex...]
            }
            if !name.isEmpty, result[name] == nil { result[name] = String(value) }
        }
        return result
    }
}
