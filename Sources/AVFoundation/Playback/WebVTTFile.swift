import Foundation

/// Reads the cues of a WebVTT file, as an HLS subtitle rendition's segments hold them: each cue's
/// timing line and text, and the segment's `X-TIMESTAMP-MAP`, which ties its cue times to the MPEG-TS
/// clock of the stream's media segments. Pure; bounded by the text given.
enum WebVTTFile {
    /// A cue: from `start` to `end`, in the file's own seconds, with its text (tags left in).
    struct Cue: Equatable {
        var start: Double
        var end: Double
        var text: String
    }

    /// `X-TIMESTAMP-MAP=MPEGTS:<90 kHz ticks>,LOCAL:<cue time>`: the cue time `local` falls at `mpegts`.
    struct TimestampMap: Equatable {
        var mpegts: Int64
        var local: Double
    }

    /// The cues of `text` in order, and its timestamp map when it has one. Blocks other than cues
    /// (NOTE, STYLE, REGION) are skipped; a cue whose timing line does not parse, or ends before it
    /// starts, is left out.
    static func parse(_ text: String) -> (map: TimestampMap?, cues: [Cue]) {
        var map: TimestampMap?
        var cues: [Cue] = []
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let blocks = normalized.components(separatedBy: "\n\n")
        for (index, block) in blocks.enumerated() {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            guard !lines.isEmpty else { continue }
            if index == 0 || lines[0].hasPrefix("WEBVTT") {
                // The header: its X-TIMESTAMP-MAP, if any.
                for line in lines where line.hasPrefix("X-TIMESTAMP-MAP=") { map = timestampMap(line) }
                continue
            }
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }), timing <= 1 else { continue }
            let parts = lines[timing].components(separatedBy: "-->")
            guard parts.count == 2, let start = time(parts[0].trimmingCharacters(in: .whitespaces)),
                  let end = time(parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""),
                  end >= start else { continue }
            cues.append(Cue(start: start, end: end, text: lines[(timing + 1)...].joined(separator: "\n")))
        }
        return (map, cues)
    }

    /// A WebVTT timestamp, `hh:mm:ss.ttt` or `mm:ss.ttt`, in seconds; nil when malformed.
    static func time(_ text: String) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3, let secondsField = fields.last else { return nil }
        let secondParts = secondsField.split(separator: ".", omittingEmptySubsequences: false)
        guard secondParts.count == 2, secondParts[0].count == 2, secondParts[1].count == 3,
              let seconds = Int(secondParts[0]), let millis = Int(secondParts[1]), seconds < 60, millis >= 0 else { return nil }
        guard let minutes = Int(fields[fields.count - 2]), minutes >= 0, minutes < 60 else { return nil }
        var hours = 0
        if fields.count == 3 {
            guard let h = Int(fields[0]), h >= 0, h < 1_000_000 else { return nil }
            hours = h
        }
        return Double(hours * 3600 + minutes * 60 + seconds) + Double(millis) / 1000
    }

    /// The map of an `X-TIMESTAMP-MAP=` line; nil when either part is missing or malformed.
    static func timestampMap(_ line: String) -> TimestampMap? {
        var mpegts: Int64?, local: Double?
        for part in line.dropFirst("X-TIMESTAMP-MAP=".count).split(separator: ",") {
            let pair = part.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { continue }
            switch pair[0].trimmingCharacters(in: .whitespaces) {
            case "MPEGTS": mpegts = Int64(pair[1].trimmingCharacters(in: .whitespaces)).flatMap { $0 >= 0 && $0 < 1 << 33 ? $0 : nil }
            case "LOCAL": local = time(pair[1].trimmingCharacters(in: .whitespaces))
            default: break
            }
        }
        guard let mpegts, let local else { return nil }
        return TimestampMap(mpegts: mpegts, local: local)
    }
}
