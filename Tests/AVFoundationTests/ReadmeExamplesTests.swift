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

    @Test func thumbnailSample() async throws {
        let generator = AVAssetImageGenerator(asset: AVAsset(url: URL(fileURLWithPath: Fixtures.path("iphone.mov"))))
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = CGSize(width: 160, height: 0)
        let (image, actualTime) = try await generator.image(at: CMTime(seconds: 0.5, preferredTimescale: 600))
        #expect("\(image.width) \(image.height) \(actualTime.seconds)" == "160 284 0.8333333333333334")
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let dir = try Fixtures.temporaryDirectory()
        var printed: [String] = []
        for await result in generator.images(for: [0.25, 0.5, 9].map { CMTime(seconds: $0, preferredTimescale: 600) }) {
            switch result {
            case .success(requestedTime: _, image: let image, actualTime: let time):
                try image.jpegData().write(to: dir.appendingPathComponent("thumb-\(time.seconds).jpg"))
            case .failure(requestedTime: let time, error: let error):
                printed.append("\(time.seconds) \((error as? AVError)?.code == .noImageAtTime)")
            }
        }
        #expect(printed == ["9.0 true"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 2)
    }
}
