internal import MediaEngine
import Foundation

/// The text of a stored subtitle sample, by its format: what the legible output shows and `avtool
/// subtitles` writes. `tx3g`: a 16-bit length, then UTF-8 text; `wvtt` in MP4: boxes with the text in
/// `payl`; ASS and SSA (and FFmpeg's ASS events in Matroska): an event line whose ninth field is the
/// text, override codes removed; SubRip, WebVTT in Matroska and the rest: the text itself. Pure.
package enum SubtitleText {
    /// The text, trimmed; nil for a sample without text (an MP4 text track's gap) or bytes that are not
    /// UTF-8 text.
    package static func text(of bytes: [UInt8], subType: FourCharCode) -> String? {
        // A cue of more than 64 KiB is no subtitle a person reads: left out, not parsed.
        guard bytes.count <= maximumSampleBytes else { return nil }
        switch subType {
        case FourCharCode(fourCharString: "tx3g"):
            guard bytes.count >= 2 else { return nil }
            let length = Int(bytes[0]) << 8 | Int(bytes[1])
            guard length > 0, 2 + length <= bytes.count else { return nil }
            return utf8(bytes[2..<(2 + length)])
        case FourCharCode(fourCharString: "wvtt") where bytes.count >= 8 && ["vttc", "vtte"].contains(String(decoding: bytes[4..<8], as: UTF8.self)):
            // One cue box each (overlapping cues share a sample): their payloads, a line each.
            let texts = Atoms.bodies("vttc", in: bytes[...]).compactMap { Atoms.bodies("payl", in: $0).first.flatMap(utf8) }
            return texts.isEmpty ? nil : texts.joined(separator: "\n")
        case FourCharCode(fourCharString: "ssa "), FourCharCode(fourCharString: "ass "):
            return utf8(bytes[...]).map(assText)
        default:
            guard let text = utf8(bytes[...]) else { return nil }
            // FFmpeg hands ASS events in Matroska as "ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text".
            return text.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false).count == 9 && text.first?.isNumber == true
                ? assText(text) : text
        }
    }

    /// The text of a stored sample buffer (its data, by its format description's subtype).
    package static func text(of sample: CMSampleBuffer) -> String? {
        guard let block = sample.dataBuffer, let bytes = try? block.dataBytes(), !bytes.isEmpty else { return nil }
        return text(of: [UInt8](bytes), subType: sample.formatDescription?.mediaSubType.rawValue ?? 0).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// When a stored subtitle sample shows: from its presentation time for its duration, or for two
    /// seconds where it states none; nil for a sample without a time.
    package static func range(of sample: CMSampleBuffer) -> (start: CMTime, end: CMTime)? {
        let start = sample.presentationTimeStamp
        guard start.isNumeric else { return nil }
        let duration = sample.duration.isNumeric && sample.duration > .zero ? sample.duration : CMTime(value: 2, timescale: 1)
        return (start, start + duration)
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> String? {
        String(validating: bytes, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The most bytes a sample's text is read from.
    static let maximumSampleBytes = 64 << 10

    /// An ASS event's text: the ninth field, override blocks (`{\i1}`) removed, `\N` and `\n` as line
    /// breaks, `\h` as a space.
    private static func assText(_ event: String) -> String {
        let fields = event.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
        let raw = fields.count == 9 ? fields[8] : event[...]
        // Override blocks out in one pass: `{` to the next `}`; an unclosed `{` stays as text.
        var text = ""
        var rest = raw
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            text += rest[..<open]
            rest = rest[rest.index(after: close)...]
        }
        text += rest
        return text.replacingOccurrences(of: "\\N", with: "\n").replacingOccurrences(of: "\\n", with: "\n")
            .replacingOccurrences(of: "\\h", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
