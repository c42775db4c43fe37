import AVFoundation
import FixtureSupport
import Testing

/// The README's Swift sample, with what it says it prints.
@Suite("README examples")
struct ReadmeExamplesTests {
    @Test func sample() {
        let a = CMTime(value: 1, timescale: 2)
        let b = CMTime(value: 1, timescale: 3)
        #expect((a + b).description == "{5/6 = 0.833}")
        #expect(CMTime(value: 1, timescale: 2) == CMTime(value: 300, timescale: 600))
        let clip = CMTimeRange(start: .zero, duration: CMTime(seconds: 2, preferredTimescale: 600))
        #expect(!clip.containsTime(clip.end))
        let portrait = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        #expect(CGRect(x: 0, y: 0, width: 1920, height: 1080).applying(portrait).size == CGSize(width: 1080, height: 1920))
        let boundary = NSValue(time: CMTime(value: 3, timescale: 1))
        #expect(boundary.timeValue == CMTime(value: 3, timescale: 1))
    }

    @Test func assetSample() async throws {
        let asset = AVAsset(url: URL(fileURLWithPath: Fixtures.path("multi.mkv")))   // an AVURLAsset; no I/O yet
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        #expect(asset is AVURLAsset && duration.seconds == 2.021 && tracks.count == 4)
        var printed: [String] = []
        for track in try await asset.loadTracks(withMediaType: .audio) {
            let (formats, language) = try await track.load(.formatDescriptions, .languageCode)
            printed.append("\(language ?? "und") \(formats.first?.audioStreamBasicDescription?.mSampleRate ?? 0)")
        }
        #expect(printed == ["eng 48000.0", "fra 48000.0"])
        let titles = AVMetadataItem.metadataItems(from: try await asset.load(.commonMetadata),
                                                  filteredByIdentifier: .commonIdentifierTitle)
        #expect(try await titles.first?.load(.stringValue) ?? "" == "Two Tongues")
        let chapters = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["en"])
        #expect(chapters.count == 2)
    }
}
