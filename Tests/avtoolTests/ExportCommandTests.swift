@testable import avtool
import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// `avtool splice` and `avtool export`, run as a user would: the files they write, read back, and
/// one-line errors for bad arguments and bad files.
@Suite("avtool splice and export", .serialized)
struct ExportCommandTests {
    static func duration(_ path: String) async throws -> Double {
        try await AVURLAsset(url: URL(fileURLWithPath: path)).load(.duration).seconds
    }

    @Test func splicingCopiesWhereItCanAndEncodesWhereItMust() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let copied = dir.appendingPathComponent("copied.mp4").path
        let h264 = Fixtures.path("frames-h264.mp4")
        let result = try await AVToolProcess.run(["splice", h264, "--to", "2", h264, "--from", "3", "-o", copied])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("\(copied): 3.000 s, avc1 320x240"), "\(result.stdout)")
        #expect(result.stderr.isEmpty, "no progress bar without a terminal: \(result.stderr)")

        let mixed = dir.appendingPathComponent("mixed.mov").path
        let encoded = try await AVToolProcess.run(["splice", h264, "--to", "1", Fixtures.path("frames-hevc.mov"), "--from", "1", "-o", mixed])
        #expect(encoded.status == 0, "\(encoded.stderr)")
        #expect(encoded.stderr.contains("encoding with the highest-quality preset"))
        #expect(abs(try await Self.duration(mixed) - 4) < 0.05)
    }

    @Test func exportingWithAPreset() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("part.m4a").path
        let result = try await AVToolProcess.run(["export", Fixtures.path("av.mp4"), "--preset", "m4a", "--from", "0.5", "--to", "1.5", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(abs(try await Self.duration(out) - 1) < 0.05)
        #expect(result.stdout.contains("aac"))
    }

    @Test func badArgumentsAndBadFilesGiveOneLine() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("x.mp4").path
        let existing = dir.appendingPathComponent("exists.mp4").path
        try Data([0]).write(to: URL(fileURLWithPath: existing))
        let cases: [([String], String)] = [
            (["splice", Fixtures.path("av.mp4")], "-o OUT"),
            (["splice", "--from", "1", Fixtures.path("av.mp4"), "-o", out], "must follow an input"),
            (["splice", Fixtures.path("av.mp4"), "-o", dir.appendingPathComponent("x.avi").path], ".mp4, .mov"),
            (["splice", Fixtures.path("av.mp4"), "--from", "2", "--to", "1", "-o", out], "--to must come after --from"),
            (["export", Fixtures.path("av.mp4"), "--preset", "huge", "-o", out], "--preset must be one of"),
            (["splice", "/nonexistent/clip.mp4", "-o", out], "clip.mp4"),
            (["export", Fixtures.path("av.mp4"), "--preset", "passthrough", "-o", existing], "already exists"),
            (["export", Fixtures.path("not-media.mp4"), "--preset", "medium", "-o", out], "not-media.mp4"),
        ]
        for (arguments, words) in cases {
            let result = try await AVToolProcess.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && result.stderr.hasPrefix("avtool: ") && result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "no partial file")
    }
}
