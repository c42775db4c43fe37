import AVFoundation
import FixtureSupport
import Foundation
import Synchronization
import Testing

/// AVAssetImageGenerator on the frame-index movies: which picture comes back for a time and
/// tolerances (read from the picture itself), its actual time, size, orientation and colours.
/// Serialized, like the other decoding suites: each decoder runs frame threads, and dozens at once on
/// two cores starve the rest of the suite's timing tests.
@Suite("Image generator", .serialized)
struct ImageGeneratorTests {
    static let h264 = Fixtures.frames("frames-h264.mp4")

    static func generator(_ name: String, route: AssetRoute = .file) -> AVAssetImageGenerator {
        AVAssetImageGenerator(asset: route.asset(name))
    }

    static func reading(_ image: CGImage) -> FramePattern.Reading {
        FramePattern.read(rgba(image), width: image.width, height: image.height)
    }

    static func rgba(_ image: CGImage) -> Data {
        image.dataProvider?.data ?? Data()
    }

    static func time(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 600) }

    @Test("defaults are Apple's")
    func defaults() {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: URL(fileURLWithPath: Self.h264.path)))
        #expect(generator.requestedTimeToleranceBefore == .positiveInfinity)
        #expect(generator.requestedTimeToleranceAfter == .positiveInfinity)
        #expect(generator.maximumSize == .zero)
        #expect(generator.apertureMode == .cleanAperture)
        #expect(generator.apertureMode?.rawValue == "CleanAperture")
        #expect(AVAssetImageGenerator.ApertureMode.encodedPixels.rawValue == "EncodedPixels")
        #expect(!generator.appliesPreferredTrackTransform)
        #expect(AVAssetImageGenerator.Result.cancelled.rawValue == 2)
    }

    @Test("default tolerances give the nearest keyframe, decoded alone", arguments: AssetRoute.allCases)
    func nearestKeyframe(_ route: AssetRoute) async throws {
        let generator = Self.generator(Self.h264.name, route: route)
        for (seconds, frame) in [(1.4, 25), (1.6, 50), (0.3, 0), (3.99, 75)] {
            let (image, actual) = try await generator.image(at: Self.time(seconds))
            #expect(Self.reading(image).frameNumber == frame, "\(route) at \(seconds) s")
            #expect(actual == CMTime(value: Int64(frame) * 512, timescale: 12800) || abs(actual.seconds - Double(frame) / 25) < 1e-9,
                    "actual time \(actual)")
            #expect(image.width == 320 && image.height == 240)
        }
    }

    @Test("zero tolerances give the picture showing at the time, and its presentation time", arguments: AssetRoute.allCases)
    func exact(_ route: AssetRoute) async throws {
        let generator = Self.generator(Self.h264.name, route: route)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        for frame in [0, 13, 37, 38, 60, 24, 99] {
            // Just before the next picture: still this one.
            let time = CMTime(value: Int64(frame) * 24 + 23, timescale: 600)
            let (image, actual) = try await generator.image(at: time)
            #expect(Self.reading(image).frameNumber == frame, "\(route) frame \(frame)")
            #expect(abs(actual.seconds - Double(frame) / 25) < 1e-9, "\(actual)")
            #expect(actual <= time && time < actual + CMTime(value: 1, timescale: 25))
        }
    }

    @Test("the actual time always lies within the tolerances")
    func withinTolerances() async throws {
        let generator = Self.generator(Self.h264.name)
        var random = SplitMix64(seed: 8)
        for _ in 0..<40 {
            let seconds = Double(random.next() % 4000) / 1000
            let before = Double(random.next() % 1500) / 1000, after = Double(random.next() % 1500) / 1000
            generator.requestedTimeToleranceBefore = Self.time(before)
            generator.requestedTimeToleranceAfter = Self.time(after)
            let requested = Self.time(seconds)
            let (image, actual) = try await generator.image(at: requested)
            let frame = try #require(Self.reading(image).frameNumber)
            #expect(abs(actual.seconds - Double(frame) / 25) < 1e-9, "the picture shown is the one at the actual time")
            // The picture's interval [actual, actual + 1/25) meets [t - before, t + after].
            #expect(actual.seconds <= requested.seconds + after + 1e-9 && actual.seconds + 0.04 > requested.seconds - before - 1e-9,
                    "\(actual.seconds) for \(requested.seconds) -\(before) +\(after)")
        }
    }

    @Test("MPEG-TS: the exact picture on a fresh generator, though its seeks land past the time")
    func transportStream() async throws {
        let url = Fixtures.directory.appendingPathComponent("\(Fixtures.facts.hls.directory)/single/stream.ts")
        let video = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        let start = try await video.load(.timeRange).start.seconds
        for offset in [0.5, 1.5, 2.02, 3.3] {
            let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            let time = start + offset
            let actual = try await generator.image(at: Self.time(time)).actualTime.seconds
            #expect(actual <= time + 1e-9 && actual > time - 0.04 - 1e-9, "at \(offset) s into the stream: \(actual - start)")
        }
    }

    @Test("a recording without a keyframe index gives the keyframe at or before the time, found by seeking")
    func withoutIndex() async throws {
        for (seconds, frame) in [(3.3, 75), (2.2, 50), (0.7, 0)] {
            let generator = Self.generator("frames-live.webm")
            let (image, actual) = try await generator.image(at: Self.time(seconds))
            #expect(Self.reading(image).frameNumber == frame && abs(actual.seconds - Double(frame) / 25) < 1e-9, "at \(seconds) s")
        }
    }

    @Test("maximumSize shrinks keeping the aspect ratio and never enlarges")
    func maximumSize() async throws {
        let generator = Self.generator(Self.h264.name)
        for (maximum, expected) in [(CGSize(width: 100, height: 0), (100, 75)), (CGSize(width: 0, height: 60), (80, 60)),
                                    (CGSize(width: 100, height: 100), (100, 75)), (CGSize(width: 1000, height: 1000), (320, 240)),
                                    (CGSize(width: 160, height: 60), (80, 60))] {
            generator.maximumSize = maximum
            let (image, _) = try await generator.image(at: .zero)
            #expect(image.width == expected.0 && image.height == expected.1, "\(maximum): \(image.width)x\(image.height)")
            let reading = Self.reading(image)
            #expect(reading.topLeft.isClose(to: .red) && reading.topRight.isClose(to: .green) && reading.bottomLeft.isClose(to: .blue),
                    "\(reading)")
        }
    }

    @Test("appliesPreferredTrackTransform turns a rotated movie upright")
    func rotation() async throws {
        let generator = Self.generator("frames-rotated.mov")
        let (plain, _) = try await generator.image(at: .zero)
        #expect(plain.width == 320 && plain.height == 240)
        #expect(Self.reading(plain).topLeft.isClose(to: .red))
        generator.appliesPreferredTrackTransform = true
        let (upright, _) = try await generator.image(at: .zero)
        #expect(upright.width == 240 && upright.height == 320)
        // A quarter turn clockwise: the top left quarter (red) goes to the top right, bottom left (blue)
        // to the top left, top right (green) to the bottom right.
        let data = Self.rgba(upright)
        func at(_ x: Int, _ y: Int) -> FramePattern.RGB { FramePattern.mean(data, width: 240, height: 320, x: x, y: y) }
        #expect(at(180, 80).isClose(to: .red), "\(at(180, 80))")
        #expect(at(60, 80).isClose(to: .blue), "\(at(60, 80))")
        #expect(at(180, 240).isClose(to: .green), "\(at(180, 240))")
        generator.maximumSize = CGSize(width: 120, height: 0)
        let (small, _) = try await generator.image(at: .zero)
        #expect(small.width == 120 && small.height == 160, "maximumSize applies to the upright image")
        let phone = AVAssetImageGenerator(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("iphone.mov"))))
        phone.appliesPreferredTrackTransform = true
        let (portrait, _) = try await phone.image(at: .zero)
        #expect(portrait.width == 180 && portrait.height == 320, "the iPhone movie comes out upright")
    }

    @Test("the aperture mode decides whether the pixel aspect ratio applies")
    func aperture() async throws {
        let generator = Self.generator("frames-anamorphic.mp4")
        let (clean, _) = try await generator.image(at: .zero)
        #expect(clean.width == 320 && clean.height == 240, "display size, as naturalSize")
        #expect(Self.reading(clean).frameNumber == 0)
        generator.apertureMode = .productionAperture
        #expect(try await generator.image(at: .zero).image.width == 320)
        generator.apertureMode = .encodedPixels
        let (encoded, _) = try await generator.image(at: .zero)
        #expect(encoded.width == 160 && encoded.height == 240)
        #expect(Self.reading(encoded).topRight.isClose(to: .green))
    }

    /// A fuzzed AVI stated pixels 3:40000 wide, which made the display size under a pixel wide, and
    /// its images came out at the decoded size whatever `maximumSize` said. FFmpeg's own rule
    /// (av_image_check_sar) rejects such a shape: the pixels are square.
    @Test("a pixel shape that would make the picture under a pixel wide is ignored, and maximumSize holds")
    func impossibleAspectRatio() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-bad-aspect.avi")))
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        #expect(try await track.load(.naturalSize) == CGSize(width: 320, height: 240))
        let generator = AVAssetImageGenerator(asset: asset)
        generator.maximumSize = CGSize(width: 160, height: 120)
        for mode in [AVAssetImageGenerator.ApertureMode.cleanAperture, .encodedPixels] {
            generator.apertureMode = mode
            let (image, _) = try await generator.image(at: Self.time(0.5))
            #expect(image.width == 160 && image.height == 120, "\(mode): \(image.width)x\(image.height)")
            #expect(Self.reading(image).topRight.isClose(to: .green))
        }
    }

    /// Found by the soak (a delegate answering zeros): with its time-to-sample table emptied, an MP4
    /// opens but FFmpeg can seek nowhere in it, and says only -1 ("Operation not permitted").
    @Test("a movie whose sample table is empty fails to parse, not with an unknown error")
    func emptySampleTable() async throws {
        let url = try Fixtures.damagedCopy(of: "frames-h264.mp4") { bytes in
            let box = try #require(bytes.range(of: Data("stts".utf8)))
            bytes.replaceSubrange(box.upperBound..<box.upperBound + 8, with: Data(count: 8))
        }
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        await Self.expectError(.fileFailedToParse) { _ = try await generator.image(at: Self.time(0.5)) }
    }

    @Test("times outside the video, bad times and assets without video fail as documented")
    func outside() async throws {
        let short = Self.generator("frames-short-video.mp4")
        short.requestedTimeToleranceBefore = .zero
        short.requestedTimeToleranceAfter = .zero
        await Self.expectError(.noImageAtTime) { _ = try await short.image(at: Self.time(3)) }
        await Self.expectError(.noImageAtTime) { _ = try await short.image(at: Self.time(-1)) }
        await Self.expectError(.noImageAtTime) { _ = try await short.image(at: .invalid) }
        await Self.expectError(.noImageAtTime) { _ = try await short.image(at: .positiveInfinity) }
        short.requestedTimeToleranceBefore = Self.time(2.5)
        let (last, actual) = try await short.image(at: Self.time(3))
        #expect(Self.reading(last).frameNumber == 24 && abs(actual.seconds - 0.96) < 1e-9, "the last picture is within 2.5 s")
        let wide = Self.generator("frames-short-video.mp4")
        #expect(try await wide.image(at: Self.time(3)).actualTime.seconds < 1, "the nearest keyframe, with the defaults")
        #expect(try await wide.image(at: Self.time(-5)).actualTime == .zero)
        await Self.expectError(.operationNotSupportedForAsset) { _ = try await Self.generator("tone.wav").image(at: .zero) }
        await Self.expectError(.fileFormatNotRecognized) { _ = try await Self.generator("not-media.mp4").image(at: .zero) }
        let missing = AVAssetImageGenerator(asset: AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4")))
        await Self.expectError(.failedToLoadMediaData) { _ = try await missing.image(at: .zero) }
    }

    static func expectError(_ code: AVError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code)", sourceLocation: sourceLocation)
        } catch let error as AVError {
            #expect(error.code == code, "\(error.localizedDescription)", sourceLocation: sourceLocation)
            #expect(!error.localizedDescription.isEmpty, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("every video fixture gives an image, the nearest keyframe and the exact picture",
          arguments: Fixtures.media.filter { $0.video != nil }.map(\.name) + Fixtures.facts.frames.fixtures.filter { $0.showsAt == nil }.map(\.name))
    func everyVideo(_ name: String) async throws {
        let generator = Self.generator(name)
        generator.appliesPreferredTrackTransform = true
        let (image, actual) = try await generator.image(at: Self.time(0.5))
        #expect(image.width > 0 && image.height > 0)
        #expect(actual.seconds >= 0 && actual.seconds < 2.1, "\(name): \(actual.seconds)")
        // Not a blank picture: the pattern's colours vary.
        let data = Self.rgba(image)
        #expect(Set(stride(from: 0, to: data.count, by: 4 * 97).map { data[$0] }).count > 3, "\(name) has a picture")
        // FFmpeg 5.1 drops the moov's samples after the first of an MP4 whose fragments follow them:
        // there is no picture to find before the first fragment's (0.83 s).
        let exactTime = name == "partial-fragmented.mp4" ? 1.5 : 0.5
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let exact = try await generator.image(at: Self.time(exactTime)).actualTime.seconds
        #expect(exact <= exactTime && exact > exactTime - 0.1, "\(name): the picture showing at \(exactTime) s starts at \(exact)")
    }

    @Test("pictures match FFmpeg's own decode", arguments: Fixtures.facts.frames.references.map(\.file))
    func matchesFFmpeg(_ file: String) async throws {
        let reference = try #require(Fixtures.facts.frames.references.first { $0.file == file })
        let expected = try CGImage.decoded(from: Data(contentsOf: URL(fileURLWithPath: Fixtures.path(reference.file))))
        let generator = Self.generator(reference.source)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let time = CMTime(value: Int64(reference.frame) * 2 + 1, timescale: CMTimeScale(reference.fps * 2))
        let (image, _) = try await generator.image(at: time)
        #expect(image.width == expected.width && image.height == expected.height)
        let a = Self.rgba(image), b = expected.dataProvider?.data ?? Data(), width = image.width
        // Per column too: a strip of pixels left unconverted (the right edge of a picture whose width is
        // not a multiple of 8) hardly moves the whole picture's mean. Compared on a thread of its own
        // (a debug build's loop over a 480p picture would hold a thread of the cooperative pool).
        let (sums, columns) = try await onOwnThread { () -> ([Double], [Double]) in
            var sums = [0.0, 0.0, 0.0]
            var columns = [Double](repeating: 0, count: width)
            a.withUnsafeBytes { pa in
                b.withUnsafeBytes { pb in
                    for i in stride(from: 0, to: min(pa.count, pb.count), by: 4) {
                        for c in 0..<4 {
                            let difference = abs(Double(pa[i + c]) - Double(pb[i + c]))
                            if c < 3 { sums[c] += difference }
                            columns[(i / 4) % width] += difference
                        }
                    }
                }
            }
            return (sums, columns)
        }
        let pixels = Double(image.width * image.height)
        for c in 0..<3 {
            #expect(sums[c] / pixels < 1.5, "\(file): mean absolute difference \(sums[c] / pixels) in channel \(c)")
        }
        let worst = columns.indices.max { columns[$0] < columns[$1] } ?? 0
        #expect(columns[worst] / Double(image.height * 4) < 6, "\(file): column \(worst) differs by \(columns[worst] / Double(image.height * 4)) a sample")
    }

    @Test("images encode as PNG and JPEG")
    func encoding() async throws {
        let (image, _) = try await Self.generator(Self.h264.name).image(at: Self.time(1.5))
        let png = try CGImage.decoded(from: image.pngData())
        #expect(Self.rgba(png) == Self.rgba(image), "PNG is lossless")
        let jpeg = try CGImage.decoded(from: image.jpegData(compressionQuality: 0.9))
        #expect(jpeg.width == 320 && jpeg.height == 240)
        #expect(Self.reading(jpeg) .topLeft.isClose(to: .red) && Self.reading(jpeg).frameNumber == Self.reading(image).frameNumber)
    }
}
