@testable import avtool
import CoreMedia
import Foundation
import Testing

/// The report model on its own: what it encodes, whatever Avocet loads.
@Suite("avtool inspect report")
struct InspectReportTests {
    static func report(file: String = "/x.mp4", duration: Double?) -> InspectReport {
        InspectReport(file: file, size: 10, duration: duration, preciseTiming: true, playable: true, tracks: [], metadata: [], chapters: [])
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    /// Times that are not numbers have no seconds to report.
    @Test(arguments: [CMTime.invalid, .indefinite, .positiveInfinity, .negativeInfinity])
    func nonNumericTimesHaveNoSeconds(time: CMTime) {
        #expect(time.seconds.isFinite == false)
        #expect(InspectReport.seconds(time) == nil)
    }

    @Test func numericTimesKeepTheirSeconds() {
        #expect(InspectReport.seconds(CMTime(value: 3, timescale: 2)) == 1.5)
        #expect(InspectReport.seconds(.zero) == 0)
    }

    /// An unknown duration (nil), and any NaN or infinity that reaches the model, encodes as null:
    /// "Unable to encode Double.nan directly in JSON" cannot happen.
    @Test func unknownAndNonFiniteNumbersEncodeAsNull() throws {
        var report = Self.report(duration: InspectReport.seconds(.indefinite))
        report.tracks = [
            InspectReport.Track(
                id: 1, mediaType: "vide", codec: "avc1", format: nil, enabled: true, playable: true, start: .nan,
                duration: .infinity, timescale: 600, dataRate: .nan, language: nil, title: nil,
                video: .init(width: 160, height: nil, rotation: .nan, frameRate: -.infinity), audio: nil),
            InspectReport.Track(
                id: 2, mediaType: "soun", codec: "aac", format: "AAC", enabled: true, playable: true, start: 0,
                duration: nil, timescale: 44100, dataRate: 64000, language: "eng", title: nil,
                video: nil, audio: .init(sampleRate: .nan, channels: 2)),
        ]
        report.chapters = [InspectReport.Chapter(start: 0, end: .nan, title: "One")]
        let object = try Self.object(try report.json())
        #expect(object["duration"] is NSNull)
        #expect(object["size"] as? Int == 10)
        let tracks = try #require(object["tracks"] as? [[String: Any]])
        #expect(tracks.count == 2)
        for key in ["start", "duration", "dataRate", "height", "rotation", "frameRate"] {
            #expect(tracks[0][key] is NSNull, "video \(key)")
        }
        #expect(tracks[0]["width"] as? Int == 160)
        #expect(tracks[0]["sampleRate"] == nil && tracks[0]["channels"] == nil, "no audio facts on a video track")
        #expect(tracks[1]["duration"] is NSNull && tracks[1]["sampleRate"] is NSNull)
        #expect(tracks[1]["start"] as? Double == 0 && tracks[1]["channels"] as? Int == 2 && tracks[1]["language"] as? String == "eng")
        #expect(tracks[1]["width"] == nil && tracks[1]["frameRate"] == nil, "no video facts on an audio track")
        let chapters = try #require(object["chapters"] as? [[String: Any]])
        #expect(chapters.first?["end"] is NSNull && chapters.first?["start"] as? Double == 0)
        // The text form says so too, rather than printing nan.
        #expect(report.text.contains("  duration   unknown"))
        #expect(!report.text.lowercased().contains("nan"))
    }

    /// The array is assembled from reports encoded one by one, with JSONEncoder's own layout.
    @Test func jsonArrayMatchesEncodingTheArrayWhole() throws {
        var a = Self.report(file: "/a.mp4", duration: 2)
        a.metadata = [InspectReport.Tag(identifier: "itsk/%A9nam", commonKey: "title", value: "Line\nbreak", bytes: nil)]
        let b = Self.report(file: "/b.mp4", duration: 1.5)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let whole = String(decoding: try encoder.encode([a, b]), as: UTF8.self)
        #expect(InspectReport.jsonArray([try a.json(), try b.json()]) == whole)
        #expect(InspectReport.jsonArray([]) == String(decoding: try encoder.encode([InspectReport]()), as: UTF8.self))
    }

    /// Common keys first, in a fixed order (artwork last); then tags without one, by identifier, in
    /// the file's order.
    @Test func tagLinesPutCommonKeysFirst() {
        var report = Self.report(duration: 1)
        report.metadata = [
            .init(identifier: "itsk/%A9gen", commonKey: nil, value: "Jazz", bytes: nil),
            .init(identifier: "itsk/covr", commonKey: "artwork", value: nil, bytes: 1687),
            .init(identifier: "itsk/%A9ART", commonKey: "artist", value: "The Avocets", bytes: nil),
            .init(identifier: "itsk/%A9nam", commonKey: "title", value: "Shore Song", bytes: nil),
            .init(identifier: "mkv/ENCODER", commonKey: nil, value: "Lavf", bytes: nil),
            .init(identifier: "mdta/com.apple.quicktime.make", commonKey: "make", value: "Apple", bytes: nil),
        ]
        #expect(report.tagLines.map { "\($0.name): \($0.value)" } == [
            "title: Shore Song", "artist: The Avocets", "make: Apple", "artwork: <1687 bytes>",
            "itsk/%A9gen: Jazz", "mkv/ENCODER: Lavf",
        ])
    }
}
