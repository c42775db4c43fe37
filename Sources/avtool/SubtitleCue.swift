import AVFoundation
import Foundation

/// One timed piece of subtitle text, as `avtool subtitles` writes it.
struct SubtitleCue: Equatable {
    var start: Double
    var end: Double
    var text: String

    /// The cue a stored subtitle sample holds (its text as `SubtitleText` reads it, its times); nil for
    /// a sample without text.
    static func cue(_ sample: CMSampleBuffer) -> SubtitleCue? {
        guard let text = SubtitleText.text(of: sample), let range = SubtitleText.range(of: sample) else { return nil }
        return SubtitleCue(start: range.start.seconds, end: range.end.seconds, text: text)
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
        // Clamped to 99,999 hours first: a container's timestamps can be any size.
        let ms = seconds.isFinite ? Int((min(max(0, seconds), 359_999_999) * 1000).rounded()) : 0
        return String(format: "%02d:%02d:%02d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60) + separator + String(format: "%03d", ms % 1000)
    }
}
