import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// Reading compositions through the image generator: pictures come from the right source at the right
/// time through the segments (cuts, scaled segments, empty time, segments given by URL), and layer
/// instructions render their transforms, opacity ramps, crops and background. Pixels are read from the
/// frame-index pattern: red, green and blue quarters and the frame number in grey blocks.
@Suite("Composition images", .serialized)
struct CompositionImageTests {
    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }

    static func videoTrack(_ name: String) async throws -> AVAssetTrack {
        try #require(try await AVURLAsset(url: url(name)).loadTracks(withMediaType: .video).first)
    }

    static func exactGenerator(_ asset: AVAsset) -> AVAssetImageGenerator {
        let generator = AVAssetImageGenerator(asset: asset)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        return generator
    }

    static func rgb(_ image: CGImage, _ x: Int, _ y: Int) -> FramePattern.RGB {
        FramePattern.mean(ImageGeneratorTests.rgba(image), width: image.width, height: image.height, x: x, y: y)
    }

    /// One second of the H.264 movie, then its own 2-3 s span of the HEVC one, then one second of the
    /// H.264 movie slowed to two; frames at 25 a second.
    static func splice() async throws -> AVMutableComposition {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        let h264 = try await videoTrack("frames-h264.mp4"), hevc = try await videoTrack("frames-hevc.mov")
        try track.insertTimeRange(r(0, 1), of: h264, at: .zero)
        try track.insertTimeRange(r(2, 3), of: hevc, at: t(1))
        try track.insertTimeRange(r(3, 4), of: h264, at: t(2))
        track.scaleTimeRange(r(2, 3), toDuration: t(2))
        return composition
    }

    @Test("exact pictures come through the segments, with actual times on the composition's timeline")
    func exactThroughSegments() async throws {
        let generator = Self.exactGenerator(try await Self.splice())
        // (composition time, source frame, actual time); in the slowed second a frame lasts 0.08 s.
        let cases: [(Double, Int, Double)] = [(0.5, 12, 0.48), (1.5, 62, 1.48), (2.0, 75, 2.0), (3.02, 87, 2.96), (3.9, 98, 3.84)]
        for (time, frame, actual) in cases {
            let (image, actualTime) = try await generator.image(at: Self.t(time))
            let reading = ImageGeneratorTests.reading(image)
            #expect(reading.frameNumber == frame && reading.topLeft.isClose(to: .red), "at \(time): \(reading)")
            #expect(abs(actualTime.seconds - actual) < 0.001, "at \(time): \(actualTime.seconds)")
        }
        await ImageGeneratorTests.expectError(.noImageAtTime) { _ = try await generator.image(at: Self.t(4.5)) }
    }

    @Test("default tolerances take a keyframe inside the segment, never one beyond its cut")
    func keyframesStayInsideTheSegment() async throws {
        let generator = AVAssetImageGenerator(asset: try await Self.splice())
        let (image, actual) = try await generator.image(at: Self.t(1.9))
        #expect(ImageGeneratorTests.reading(image).frameNumber == 50 && actual == Self.t(1))   // the HEVC keyframe at 2 s
        let (late, lateActual) = try await generator.image(at: Self.t(2.5))
        #expect(ImageGeneratorTests.reading(late).frameNumber == 75 && lateActual == Self.t(2))   // the H.264 keyframe at 3 s
    }

    @Test("empty time has no picture; segments given by URL are loaded; a missing source fails clearly")
    func emptyAndURLSegments() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        track.segments = [
            AVCompositionTrackSegment(timeRange: Self.r(0, 1)),
            AVCompositionTrackSegment(url: Self.url("frames-vp9-10bit.webm"), trackID: 1, sourceTimeRange: Self.r(2, 3), targetTimeRange: Self.r(1, 2)),
            AVCompositionTrackSegment(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"), trackID: 1, sourceTimeRange: Self.r(0, 1),
                                      targetTimeRange: Self.r(2, 3)),
        ]
        let generator = Self.exactGenerator(composition)
        await ImageGeneratorTests.expectError(.noImageAtTime) { _ = try await generator.image(at: Self.t(0.5)) }
        let image = try await generator.image(at: Self.t(1.2)).image
        #expect(ImageGeneratorTests.reading(image).frameNumber == 55)
        await ImageGeneratorTests.expectError(.failedToLoadMediaData) { _ = try await generator.image(at: Self.t(2.5)) }
        var actual = CMTime.invalid
        let copied = try generator.copyCGImage(at: Self.t(1.4), actualTime: &actual)
        #expect(ImageGeneratorTests.reading(copied).frameNumber == 60 && abs(actual.seconds - 1.4) < 0.001)
    }

    /// A cross-fade: the H.264 movie (track 1, 0-2 s) fades out over 1-2 s above the HEVC movie (track 2,
    /// 1-3 s) mirrored left to right, over `background` where no layer covers; one instruction for
    /// 0 to `end` s.
    static func crossFade(background: CGColor?, end: Double) async throws -> (AVMutableComposition, AVMutableVideoComposition) {
        let composition = AVMutableComposition()
        let a = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        let b = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 2))
        try a.insertTimeRange(r(0, 2), of: try await videoTrack("frames-h264.mp4"), at: .zero)
        try b.insertTimeRange(r(0, 2), of: try await videoTrack("frames-hevc.mov"), at: t(1))

        let fadeOut = AVMutableVideoCompositionLayerInstruction(assetTrack: a)
        fadeOut.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: r(1, 2))
        let mirrored = AVMutableVideoCompositionLayerInstruction(assetTrack: b)
        mirrored.setTransform(CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: 320, ty: 0), at: .zero)
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = r(0, end)
        instruction.layerInstructions = [fadeOut, mirrored]
        instruction.backgroundColor = background
        let video = AVMutableVideoComposition()
        video.renderSize = CGSize(width: 320, height: 240)
        video.frameDuration = CMTime(value: 1, timescale: 25)
        video.instructions = [instruction]
        return (composition, video)
    }

    @Test("a cross-fade blends the two layers by the opacity ramp")
    func crossFade() async throws {
        let (composition, video) = try await Self.crossFade(background: CGColor(red: 1, green: 1, blue: 1, alpha: 1), end: 4)
        let generator = Self.exactGenerator(composition)
        generator.videoComposition = video
        let start = try await generator.image(at: Self.t(0.5))
        #expect(start.image.width == 320 && start.image.height == 240 && start.actualTime == Self.t(0.5))
        #expect(Self.rgb(start.image, 80, 60).isClose(to: .red), "only the H.264 layer before 1 s")
        let middle = try await generator.image(at: Self.t(1.5)).image
        #expect(Self.rgb(middle, 80, 60).isClose(to: FramePattern.RGB(128, 128, 0)), "half red, half the mirrored green: \(Self.rgb(middle, 80, 60))")
        #expect(Self.rgb(middle, 240, 60).isClose(to: FramePattern.RGB(128, 128, 0)), "half green, half the mirrored red")
        let late = try await generator.image(at: Self.t(2.5)).image
        #expect(Self.rgb(late, 80, 60).isClose(to: .green) && Self.rgb(late, 240, 60).isClose(to: .red), "the mirrored layer alone")
        #expect(Self.rgb(late, 240, 180).isClose(to: .blue), "blue is bottom right once mirrored")
        let end = try await generator.image(at: Self.t(3.5)).image
        #expect(Self.rgb(end, 160, 120).isClose(to: FramePattern.RGB(255, 255, 255)), "the background where no layer has media")
    }

    /// One instruction over `range` with `layers`, at `renderSize` and 25 pictures a second.
    static func videoComposition(_ layers: [AVVideoCompositionLayerInstruction], range: CMTimeRange,
                                 renderSize: CGSize) -> AVMutableVideoComposition {
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = range
        instruction.layerInstructions = layers
        let video = AVMutableVideoComposition()
        video.renderSize = renderSize
        video.frameDuration = CMTime(value: 1, timescale: 25)
        video.instructions = [instruction]
        return video
    }

    /// A transform ramp slides the picture out to the right over two seconds: still at the start, half
    /// its width along at 1 s (the ramp's middle), the background where it has left.
    @Test("a transform ramp moves the layer by the ramp's share")
    func transformRamp() async throws {
        let slide = AVMutableVideoCompositionLayerInstruction(assetTrack: try await Self.videoTrack("frames-h264.mp4"))
        slide.setTransformRamp(fromStart: .identity, toEnd: CGAffineTransform(translationX: 320, y: 0), timeRange: Self.r(0, 2))
        let video = Self.videoComposition([slide], range: Self.r(0, 4), renderSize: CGSize(width: 320, height: 240))
        let generator = Self.exactGenerator(AVURLAsset(url: Self.url("frames-h264.mp4")))
        generator.videoComposition = video
        let start = try await generator.image(at: .zero).image
        #expect(Self.rgb(start, 80, 60).isClose(to: .red) && Self.rgb(start, 240, 60).isClose(to: .green), "in place at the start")
        let middle = try await generator.image(at: Self.t(1)).image
        #expect(Self.rgb(middle, 80, 60).isClose(to: .black), "the background where the picture was: \(Self.rgb(middle, 80, 60))")
        #expect(Self.rgb(middle, 240, 60).isClose(to: .red), "the top left quarter, 160 pixels on: \(Self.rgb(middle, 240, 60))")
        #expect(Self.rgb(middle, 240, 180).isClose(to: .blue), "the bottom left quarter, 160 pixels on")
        let after = try await generator.image(at: Self.t(3)).image
        #expect(Self.rgb(after, 160, 120).isClose(to: .black), "gone once the ramp has ended at 320 pixels")
    }

    @Test("a rotated and a cropped layer, and propertiesOf a rotated movie matching the upright picture")
    func rotatedAndCropped() async throws {
        let source = AVURLAsset(url: Self.url("frames-h264.mp4"))
        let turn = AVMutableVideoCompositionLayerInstruction(assetTrack: try await Self.videoTrack("frames-h264.mp4"))
        turn.setTransform(CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0), at: .zero)   // a quarter turn clockwise
        turn.setCropRectangle(CGRect(x: 0, y: 0, width: 160, height: 240), at: .zero)               // the left half only
        let video = Self.videoComposition([turn], range: Self.r(0, 4), renderSize: CGSize(width: 240, height: 320))
        let generator = Self.exactGenerator(source)
        generator.videoComposition = video
        let image = try await generator.image(at: Self.t(1)).image
        #expect(image.width == 240 && image.height == 320)
        #expect(Self.rgb(image, 60, 80).isClose(to: .blue), "the bottom left quarter turns to the top left")
        #expect(Self.rgb(image, 180, 80).isClose(to: .red), "the top left quarter turns to the top right")
        #expect(Self.rgb(image, 120, 240).isClose(to: .black), "the cropped-off right half leaves the background: \(Self.rgb(image, 120, 240))")
        generator.maximumSize = CGSize(width: 120, height: 0)
        let small = try await generator.image(at: Self.t(1)).image
        #expect(small.width == 120 && small.height == 160 && Self.rgb(small, 90, 40).isClose(to: .red))

        // propertiesOf a phone-style rotated movie renders it upright, as the preferred transform does.
        let rotated = AVURLAsset(url: Self.url("frames-rotated.mov"))
        let upright = Self.exactGenerator(rotated)
        upright.appliesPreferredTrackTransform = true
        let expected = try await upright.image(at: Self.t(0.5)).image
        let composed = Self.exactGenerator(rotated)
        composed.videoComposition = try await AVVideoComposition.videoComposition(withPropertiesOf: rotated)
        let rendered = try await composed.image(at: Self.t(0.5)).image
        #expect(rendered.width == expected.width && rendered.height == expected.height)
        for (x, y) in [(60, 80), (180, 80), (60, 240)] {
            #expect(Self.rgb(rendered, x, y).isClose(to: Self.rgb(expected, x, y)), "at \(x),\(y)")
        }
        #expect(ImageGeneratorTests.reading(rendered).frameNumber == ImageGeneratorTests.reading(expected).frameNumber)
    }

}
