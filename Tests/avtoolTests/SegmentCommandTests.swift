import FixtureSupport
import Foundation
import Testing

/// `avtool segment`, run as a user would: the playlist and CMAF segments it writes, read back with
/// ffprobe, and one-line errors.
@Suite("avtool segment", .serialized)
struct SegmentCommandTests {
    @Test func packagesAMovieAsHLS() async throws {
        let dir = try Fixtures.temporaryDirectory().appendingPathComponent("hls")
        let result = try await AVToolProcess.run(["segment", Fixtures.path("frames-h264.mp4"), "-o", dir.path, "--interval", "1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let segments = summary["segments"] as? Int
        #expect(segments == 4)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == ["index.m3u8", "init.mp4", "segment1.m4s", "segment2.m4s", "segment3.m4s", "segment4.m4s"])
        let playlist = try String(contentsOf: dir.appendingPathComponent("index.m3u8"), encoding: .utf8)
        #expect(playlist.contains("#EXT-X-MAP:URI=\"init.mp4\"") && playlist.hasSuffix("#EXT-X-ENDLIST\n"))
        let probe = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/ffprobe"),
                                               ["-v", "error", "-count_frames", "-show_entries", "stream=codec_name,nb_read_frames:format=duration",
                                                "-of", "csv=p=0", dir.appendingPathComponent("index.m3u8").path])
        #expect(probe.stdout.contains("h264,100"), "\(probe.stdout) \(probe.stderr)")
    }

    @Test func soundAndPicturesStayTogether() async throws {
        let dir = try Fixtures.temporaryDirectory().appendingPathComponent("av")
        let result = try await AVToolProcess.run(["segment", Fixtures.path("av.mp4"), "-o", dir.path, "--interval", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        // Each media segment holds about a second of both tracks: the sound is not all in the first.
        let first = try Data(contentsOf: dir.appendingPathComponent("segment1.m4s")).count
        let second = try Data(contentsOf: dir.appendingPathComponent("segment2.m4s")).count
        #expect(second > first / 3, "\(first) and \(second) bytes")
    }

    @Test func badArgumentsGiveOneLine() async throws {
        let dir = try Fixtures.temporaryDirectory().path
        for (arguments, words) in [(["segment", Fixtures.path("av.mp4"), "-o", dir, "--interval", "0.1"], "--interval"),
                                   (["segment", Fixtures.path("av.mp4"), "-o", dir, "--size", "321x240"], "--size"),
                                   (["segment", Fixtures.path("not-media.mp4"), "-o", dir], "not-media.mp4")] {
            let result = try await AVToolProcess.run(arguments)
            #expect(result.status != 0)
            #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
    }
}
