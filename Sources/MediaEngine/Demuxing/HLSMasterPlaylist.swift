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
