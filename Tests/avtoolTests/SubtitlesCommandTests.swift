@testable import avtool
import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// `avtool subtitles`, run as a user would: the cues of Matroska SubRip and MP4 text tracks, at the
/// times ffprobe gives their packets, as SubRip or WebVTT; and the one-line errors.
@Suite("avtool subtitles")
struct SubtitlesCommandTests {
    /// The start times ffprobe gives the packets of subtitle stream `index` of `path`.
    static func packetStarts(_ path: String, stream index: Int) async throws -> [String] {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ffprobe"), [
            "-v", "error", "-select_streams", "s:\(index)", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return result.stdout.split(separator: "\n").compactMap { Double($0) }.map { String(format: "%.3f", $0).replacingOccurrences(of: ".", with: ",") }
    }

    @Test func matroskaSubRipAtFFprobesTimes() async throws {
        let path = Fixtures.path("selection.mkv")
        let result = try await AVToolProcess.run(["subtitles", path])
        #expect(result.status == 0, "\(result.stderr)")
        let starts = try await Self.packetStarts(path, stream: 0)
        #expect(starts.count == 2)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "1" && lines[2] == "Shore ahead." && lines[4] == "2" && lines[6] == "Hold on.", "\(result.stdout)")
        #expect(lines[1].hasPrefix("00:00:0" + starts[0]) && lines[5].hasPrefix("00:00:0" + starts[1]), "\(lines) vs \(starts)")
    }

    @Test func aChosenTrackAsWebVTT() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("french.vtt").path
        let result = try await AVToolProcess.run(["subtitles", Fixtures.path("selection.mp4"), "--track", "5", "-o", out, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["cues"] as? Int == 2 && summary["track"] as? Int == 5 && summary["format"] as? String == "vtt")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        #expect(text == "WEBVTT\n\n00:00:00.100 --> 00:00:00.500\nRivage en vue.\n\n00:00:00.600 --> 00:00:00.900\nTenez bon.\n")
    }

    @Test func filesWithoutSuchATrackFailInOneLine() async throws {
        let none = try await AVToolProcess.run(["subtitles", Fixtures.path("av.mp4")])
        #expect(none.status == 1 && none.stderr.contains("no subtitle track"), "\(none.stderr)")
        let wrong = try await AVToolProcess.run(["subtitles", Fixtures.path("selection.mkv"), "--track", "99"])
        #expect(wrong.status == 1 && wrong.stderr.contains("no subtitle track numbered 99"), "\(wrong.stderr)")
        let format = try await AVToolProcess.run(["subtitles", Fixtures.path("selection.mkv"), "--format", "ass"])
        #expect(format.status != 0 && format.stderr.contains("--format must be srt or vtt"))
    }

    /// A container's timestamps can be any size: the stamps are clamped, not trapped on.
    @Test func hugeTimesAreWrittenWithoutATrap() {
        let srt = SubtitleCue.srt([SubtitleCue(start: 1e16, end: .infinity, text: "far")])
        #expect(srt.contains("99999:59:59,000 --> 00:00:00,000"), "\(srt)")
    }

    /// The text of each stored form: MP4 text's length prefix, MP4 WebVTT's boxes, ASS events.
    @Test func sampleTextByFormat() {
        let tx3g = [0, 5] + Array("Hello".utf8) + [0, 0, 0, 8] + Array("styl".utf8)
        #expect(SubtitleText.text(of: tx3g, subType: FourCharCode(fourCharString: "tx3g")) == "Hello")
        #expect(SubtitleText.text(of: [0, 0], subType: FourCharCode(fourCharString: "tx3g")) == nil, "a gap")
        #expect(SubtitleText.text(of: [0, 9, 65], subType: FourCharCode(fourCharString: "tx3g")) == nil, "a length past the sample")
        let payl = [0, 0, 0, 12] + Array("payl".utf8) + Array("Hi!\n".utf8)
        let vttc = [0, 0, 0, UInt8(8 + payl.count)] + Array("vttc".utf8) + payl
        #expect(SubtitleText.text(of: vttc, subType: FourCharCode(fourCharString: "wvtt")) == "Hi!")
        let event = Array("3,0,Default,,0,0,0,,{\\i1}Low{\\i0} tide,\\Nhigh\\htide".utf8)
        #expect(SubtitleText.text(of: event, subType: FourCharCode(fourCharString: "ass ")) == "Low tide,\nhigh tide")
        #expect(SubtitleText.text(of: [0xFF, 0xFE], subType: FourCharCode(fourCharString: "srt ")) == nil, "not UTF-8")
    }
}
