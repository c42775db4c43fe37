import AVFoundation
import Foundation

/// One timed piece of subtitle text, as `avtool subtitles` writes it.
struct SubtitleCue: Equatable {
    var start: Double
    var end: Double
    var text: String

    /// The cue a stored subtitle sample holds, by its format (`tx3g`: a 16-bit length, then UTF-8
    /// text; `wvtt` in MP4: boxes with the text in `payl`; SubRip, WebVTT in Matroska and the rest:
    /// the text itself; ASS and SSA: an event line whose ninth field is the text, with its override
    /// codes removed). Nil for a sample without text (an MP4 text track's gap) or bytes that are not
    /// UTF-8 text.
    static func cue(_ sample: CMSampleBuffer) -> SubtitleCue? {
        guard let block = sample.dataBuffer, let bytes = try? block.dataBytes(), !bytes.isEmpty else { return nil }
        let subType = sample.formatDescription?.mediaSubType.rawValue ?? 0
        guard let text = text(of: [UInt8](bytes), subType: subType), !text.isEmpty else { return nil }
        let start = sample.presentationTimeStamp
        guard start.isNumeric else { return nil }
        let end = sample.duration.isNumeric && sample.duration > .zero ? start + sample.duration : start + CMTime(value: 2, timescale: 1)
        return SubtitleCue(start: start.seconds, end: end.seconds, text: text)
    }

    static func text(of bytes: [UInt8], subType: FourCharCode) -> String? {
        switch subType {
        case FourCharCode(fourCharString: "tx3g"):
            guard bytes.count >= 2 else { return nil }
            let length = Int(bytes[0]) << 8 | Int(bytes[1])
            guard length > 0, 2 + length <= bytes.count else { return nil }
            return utf8(bytes[2..<(2 + length)])
        case FourCharCode(fourCharString: "wvtt") where bytes.count >= 8 && ["vttc", "vtte"].contains(String(decoding: bytes[4..<8], as: UTF8.self)):
            return box("payl", in: bytes[8...]).flatMap(utf8)
        case FourCharCode(fourCharString: "ssa "), FourCharCode(fourCharString: "ass "):
            return utf8(bytes[...]).map(assText)
        default:
            guard let text = utf8(bytes[...]) else { return nil }
            // FFmpeg hands ASS events in Matroska as "ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text".
            return text.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false).count == 9 && text.first?.isNumber == true
                ? assText(text) : text
        }
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> String? {
        String(validating: bytes, as: UTF8.self)?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The payload of the first box of `type` among `bytes`' boxes (size and type headers, 32-bit sizes).
    private static func box(_ type: String, in bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var at = bytes.startIndex
        while at + 8 <= bytes.endIndex {
            let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at + size <= bytes.endIndex else { return nil }
            if String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == type { return bytes[(at + 8)..<(at + size)] }
            at += size
        }
        return nil
    }

    /// An ASS event's text: the ninth field, override blocks (`{\i1}`) removed, `\N` and `\n` as
    /// line breaks, `\h` as a space.
    private static func assText(_ event: String) -> String {
        let fields = event.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
        var text = fields.count == 9 ? String(fields[8]) : event
        while let open = text.firstIndex(of: "{"), let close = text[open...].firstIndex(of: "}") {
            text.removeSubrange(open...close)
        }
        return text.replacingOccurrences(of: "\\N", with: "\n").replacingOccurrences(of: "\\n", with: "\n")
            .replacingOccurrences(of: "\\h", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The cues as a SubRip file.
    static func srt(_ cues: [SubtitleCue]) -> String {
        cues.enumerated().map { i, cue in "\(i + 1)\n\(stamp(cue.start, ",")) --> \(stamp(cue.end, ","))\n\(cue.text)\n" }
            .joined(separator: "\n")
    }

    /// The cues as a WebVTT file.
    static func vtt(_ cues: [SubtitleCue]) -> String {
        "WEBVTT\n\n" + cues.map { "\(stamp($0.start, ".")) --> \(stamp($0.end, "."))\n\($0.text)\n" }.joined(separator: "\n")
    }

    /// `HH:MM:SS,mmm` (or with a point), from seconds; negative times count as zero.
    private static func stamp(_ seconds: Double, _ separator: String) -> String {
        let ms = seconds.isFinite ? Int((max(0, seconds) * 1000).rounded()) : 0
        return String(format: "%02d:%02d:%02d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60) + separator + String(format: "%03d", ms % 1000)
    }
}
