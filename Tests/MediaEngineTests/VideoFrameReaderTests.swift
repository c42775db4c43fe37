import FixtureSupport
import Foundation
import MediaEngine
import Testing

@Suite("Video frame reader", .serialized)
struct VideoFrameReaderTests {
    static let h264 = Fixtures.frames("frames-h264.mp4")

    /// A reader on a fixture's first video stream, opened on an engine thread.
    static func reader(_ fixture: FixtureFacts.FrameFixture) async throws -> VideoFrameReader {
        try await IOExecutor.shared.run { token in
            let demuxer = try Demuxer(source: FileByteSource(path: fixture.path), options: DemuxerOptions(), cancellation: token)
            guard let video = demuxer.info.streams.first(where: { $0.kind == .video }) else {
                throw MediaEngineError(.failed, source: fixture.name, operation: "test", reason: "no video")
            }
            return try VideoFrameReader(source: FileByteSource(path: fixture.path), options: DemuxerOptions(),
                                        streamIndex: video.index, cancellation: token)
        }
    }

    static func picture(_ reader: VideoFrameReader, at seconds: Double, before: Double? = nil, after: Double? = nil,
                        size: (Int, Int) = (320, 240)) async throws -> DecodedPicture {
        func t(_ s: Double) -> MediaTimestamp { MediaTimestamp(value: Int64((s * 1_000_000).rounded()), timeBase: Rational(1, 1_000_000)) }
        let request = PictureRequest(time: t(seconds), earliest: before.map { t(seconds - $0) }, latest: after.map { t(seconds + $0) })
        return try await IOExecutor.shared.run { token in
            try reader.picture(request, format: PictureFormat(width: size.0, height: size.1), cancellation: token)
        }
    }

    @Test("zero tolerances give the picture whose interval holds the time, with its presentation time")
    func exactPictures() async throws {
        let reader = try await Self.reader(Self.h264)
        // Out of order on purpose: seeks back and forward.
        for frame in [37, 0, 1, 24, 25, 26, 99, 50, 13] {
            let time = (Double(frame) + 0.5) / 25
            let picture = try await Self.picture(reader, at: time, before: 0, after: 0)
            let reading = FramePattern.read(picture.pixels, width: picture.width, height: picture.height)
            #expect(reading.frameNumber == frame, "at \(time) s: \(reading)")
            #expect(abs(picture.presentationTime.seconds - Double(frame) / 25) < 1e-6, "actual time of frame \(frame)")
        }
    }

    @Test("unbounded tolerances decode the nearest keyframe alone")
    func nearestKeyframe() async throws {
        let reader = try await Self.reader(Self.h264)
        for (time, frame) in [(1.4, 25), (1.6, 50), (0.2, 0), (3.9, 75), (7.0, 75)] {
            let before = reader.workDone
            let picture = try await Self.picture(reader, at: time)
            let reading = FramePattern.read(picture.pixels, width: picture.width, height: picture.height)
            #expect(reading.frameNumber == frame, "at \(time) s: \(reading)")
            let work = reader.workDone
            #expect(work.decodedPictures - before.decodedPictures <= 1, "one picture decoded at most for \(time) s")
        }
    }

    @Test("times ahead in the same group of pictures decode on without a seek")
    func forwardWithoutSeek() async throws {
        let reader = try await Self.reader(Self.h264)
        _ = try await Self.picture(reader, at: 1.1, before: 0, after: 0)
        let start = reader.workDone
        for frame in stride(from: 28, to: 50, by: 3) {
            let picture = try await Self.picture(reader, at: (Double(frame) + 0.5) / 25, before: 0, after: 0)
            #expect(FramePattern.read(picture.pixels, width: picture.width, height: picture.height).frameNumber == frame)
        }
        let work = reader.workDone
        #expect(work.seeks == start.seeks, "no seek within the group of pictures")
        #expect(work.decodedPictures - start.decodedPictures <= 24, "each picture decoded once")
    }

    @Test("decoding forward skips the pictures no other picture needs")
    func skipsNonReferencePictures() async throws {
        let reader = try await Self.reader(Self.h264)
        let picture = try await Self.picture(reader, at: 24.5 / 25, before: 0, after: 0)
        #expect(FramePattern.read(picture.pixels, width: picture.width, height: picture.height).frameNumber == 24)
        // 25 pictures lie between the keyframe and the target; with two B-frames between references,
        // most B-frames are never decoded.
        #expect(reader.workDone.decodedPictures < 20, "\(reader.workDone)")
    }

    @Test("past the end of the video: no picture with zero tolerances, the last one within a tolerance")
    func pastTheEnd() async throws {
        let reader = try await Self.reader(Self.h264)
        await #expect(throws: MediaEngineError.self) { try await Self.picture(reader, at: 4.5, before: 0, after: 0) }
        do {
            _ = try await Self.picture(reader, at: 4.5, before: 0, after: 0)
        } catch let error as MediaEngineError {
            #expect(error.code == .noFrameAtTime)
        }
        let last = try await Self.picture(reader, at: 4.5, before: 1, after: 0)
        #expect(FramePattern.read(last.pixels, width: last.width, height: last.height).frameNumber == 99)
        let first = try await Self.picture(reader, at: -1, before: 0, after: 2)
        #expect(FramePattern.read(first.pixels, width: first.width, height: first.height).frameNumber == 0)
    }

    @Test("a size not stated is the decoded one, fitted to the maximum as shown")
    func unstatedSize() async throws {
        let reader = try await Self.reader(Self.h264)
        let request = PictureRequest(time: MediaTimestamp(value: 0, timeBase: Rational(1, 25)), earliest: nil, latest: nil)
        let turned = PictureOrientation(a: 0, b: 1, c: -1, d: 0)
        let cases: [(PictureFormat, (Int, Int))] = [
            (PictureFormat(width: 0, height: 0), (320, 240)),
            (PictureFormat(width: 0, height: 0, maximumWidth: 160, maximumHeight: 0), (160, 120)),
            (PictureFormat(width: 0, height: 0, maximumWidth: 1000, maximumHeight: 60), (80, 60)),
            // Turned a quarter, the picture is 240 x 320 as shown, and the maximum applies to that.
            (PictureFormat(width: 0, height: 0, orientation: turned ?? .up, maximumWidth: 120, maximumHeight: 0), (120, 160)),
        ]
        #expect(turned?.transposes == true)
        for (format, expected) in cases {
            let picture = try await IOExecutor.shared.run { token in try reader.picture(request, format: format, cancellation: token) }
            #expect(picture.width == expected.0 && picture.height == expected.1, "\(format): \(picture.width)x\(picture.height)")
        }
    }

    @Test("every codec of the frame fixtures decodes the right picture in the right colours",
          arguments: Fixtures.facts.frames.fixtures.filter { $0.rotation == nil && $0.sampleAspectRatio == nil && $0.showsAt == nil })
    func codecs(_ fixture: FixtureFacts.FrameFixture) async throws {
        let reader = try await Self.reader(fixture)
        for frame in [0, fixture.frameCount / 2 + 3, fixture.frameCount - 1] {
            let picture = try await Self.picture(reader, at: (Double(frame) + 0.5) / Double(fixture.fps), before: 0, after: 0,
                                                 size: (fixture.width, fixture.height))
            let reading = FramePattern.read(picture.pixels, width: picture.width, height: picture.height)
            #expect(reading.frameNumber == frame, "\(fixture.name) frame \(frame): \(reading)")
            #expect(reading.topLeft.isClose(to: .red) && reading.topRight.isClose(to: .green) && reading.bottomLeft.isClose(to: .blue),
                    "\(fixture.name) colours: \(reading)")
        }
    }
}
