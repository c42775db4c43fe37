import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// An app's own instruction: passes `track` through for `timeRange`, or (track 0) asks for rendering.
final class AppInstruction: NSObject, AVVideoCompositionInstructionProtocol, @unchecked Sendable {
    let timeRange: CMTimeRange
    let passthroughTrackID: CMPersistentTrackID
    let enablePostProcessing = false
    let containsTweening = false
    var requiredSourceTrackIDs: [NSValue]? { nil }

    init(_ timeRange: CMTimeRange, passingThrough track: CMPersistentTrackID) {
        self.timeRange = timeRange
        passthroughTrackID = track
    }
}

/// The image generator with a video composition: pass-through rendering at the render size, and
/// Apple's exception cases as AVErrors.
@Suite("Image generator with a video composition", .serialized)
struct ImageGeneratorCompositionTests {
    static func composition(track: CMPersistentTrackID, size: CGSize = CGSize(width: 160, height: 120),
                            range: CMTimeRange = CMTimeRange(start: .zero, duration: CMTime(value: 4, timescale: 1))) -> AVMutableVideoComposition {
        let composition = AVMutableVideoComposition()
        composition.renderSize = size
        composition.frameDuration = CMTime(value: 1, timescale: 25)
        composition.instructions = [AppInstruction(range, passingThrough: track)]
        return composition
    }

    @Test("a composition is copied when set, and defaults are empty")
    func copying() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4"))))
        #expect(generator.videoComposition == nil)
        let mutable = Self.composition(track: 1)
        generator.videoComposition = mutable
        let held = try #require(generator.videoComposition)
        #expect(held !== mutable && !(held is AVMutableVideoComposition))
        #expect(held.renderSize == CGSize(width: 160, height: 120) && held.instructions.count == 1)
        mutable.renderSize = .zero
        #expect(generator.videoComposition?.renderSize == CGSize(width: 160, height: 120), "later changes do not reach the generator")
        let empty = AVVideoComposition()
        #expect(empty.renderScale == 1 && empty.instructions.isEmpty && !empty.frameDuration.isValid)
    }

    @Test("a pass-through instruction renders its track at the render size, without the preferred transform")
    func passThrough() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-rotated.mov")))
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        generator.videoComposition = Self.composition(track: video.trackID)
        let (image, actual) = try await generator.image(at: CMTime(value: 30, timescale: 25))
        #expect(image.width == 160 && image.height == 120)
        let reading = FramePattern.read(image.dataProvider?.data ?? Data(), width: image.width, height: image.height)
        #expect(reading.frameNumber == 30 && reading.topLeft.isClose(to: .red), "\(reading)")
        #expect(actual == CMTime(value: 30, timescale: 25))
        generator.maximumSize = CGSize(width: 80, height: 0)
        #expect(try await generator.image(at: .zero).image.width == 80)
    }

    @Test("what Apple's generator refuses, and an app's own instruction class that passes nothing through, fail with invalidVideoComposition")
    func invalid() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let cases: [(String, AVMutableVideoComposition, CMTime)] = {
            let scaled = Self.composition(track: video.trackID)
            scaled.renderScale = 2
            let empty = Self.composition(track: video.trackID, size: .zero)
            let timeless = Self.composition(track: video.trackID)
            timeless.frameDuration = .invalid
            return [("renderScale", scaled, .zero), ("renderSize", empty, .zero), ("frameDuration", timeless, .zero),
                    ("no instruction", Self.composition(track: video.trackID), CMTime(value: 5, timescale: 1)),
                    ("custom instruction", Self.composition(track: kCMPersistentTrackID_Invalid), .zero),
                    ("no such track", Self.composition(track: 99), .zero)]
        }()
        for (_, composition, time) in cases {
            let generator = AVAssetImageGenerator(asset: asset)
            generator.videoComposition = composition
            await ImageGeneratorTests.expectError(.invalidVideoComposition) { _ = try await generator.image(at: time) }
        }
    }
}
