import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// The text of stored subtitle samples: each form read, and any bytes at all read without a trap.
@Suite("Subtitle sample text")
struct SubtitleTextTests {
    static let subtypes = ["tx3g", "wvtt", "ass ", "ssa ", "srt ", "text"].map { FourCharCode(fourCharString: $0) }

    @Test func eachForm() {
        let tx3g = [0, 5] + Array("Hello".utf8)
        #expect(SubtitleText.text(of: tx3g, subType: Self.subtypes[0]) == "Hello")
        let payl = [0, 0, 0, 10] + Array("payl".utf8) + Array("Hi".utf8)
        #expect(SubtitleText.text(of: [0, 0, 0, UInt8(8 + payl.count)] + Array("vttc".utf8) + payl, subType: Self.subtypes[1]) == "Hi")
        #expect(SubtitleText.text(of: Array("0,0,Default,,0,0,0,,{\\b1}Bold\\Nline".utf8), subType: Self.subtypes[2]) == "Bold\nline")
        #expect(SubtitleText.text(of: Array("Plain text".utf8), subType: Self.subtypes[4]) == "Plain text")
        // Two cues in one MP4 WebVTT sample: both, a line each.
        func cue(_ text: String) -> [UInt8] {
            let payl = [0, 0, 0, UInt8(8 + text.utf8.count)] + Array("payl".utf8) + Array(text.utf8)
            return [0, 0, 0, UInt8(8 + payl.count)] + Array("vttc".utf8) + payl
        }
        #expect(SubtitleText.text(of: cue("Top") + cue("Bottom"), subType: Self.subtypes[1]) == "Top\nBottom")
        // An unclosed override block stays as text; a huge sample is no cue (and costs no parsing).
        #expect(SubtitleText.text(of: Array("0,0,Default,,0,0,0,,{open".utf8), subType: Self.subtypes[2]) == "{open")
        let flood = Array(String(repeating: "{}", count: 40_000).utf8)
        #expect(SubtitleText.text(of: flood, subType: Self.subtypes[2]) == nil)
    }

    /// Seeded random samples of every form: lengths and box sizes past the end, nesting, bad UTF-8.
    @Test func anyBytesAreReadWithoutATrap() {
        var random = SplitMix64(seed: 2)
        for _ in 0..<5_000 {
            var bytes = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if Bool.random(using: &random), bytes.count >= 8 {
                // A box header of a known type, with a size that may lie.
                bytes.replaceSubrange(4..<8, with: Array(["vttc", "vtte", "payl"].randomElement(using: &random)?.utf8 ?? "vttc".utf8))
            }
            for subtype in Self.subtypes {
                if let text = SubtitleText.text(of: bytes, subType: subtype) {
                    #expect(text.utf8.count <= bytes.count)
                }
            }
        }
    }
}
