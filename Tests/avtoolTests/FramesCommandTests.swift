import FixtureSupport
import Foundation
import Testing

/// `avtool frames`, run as a user would: raw pixels of the right size and content, PNG files, the
/// JSON summary, and one-line errors.
@Suite("avtool frames", .serialized)
struct FramesCommandTests {
    @Test func rawPixelsEverySecond() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("f.raw").path
        let result = try await AVToolProcess.run(["frames", Fixtures.path("frames-h264.mp4"), "--every", "1", "--json", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let pictures = summary["pictures"] as? Int, width = summary["width"] as? Int, height = summary["height"] as? Int
        #expect(pictures == 4)
        #expect(width == 320)
        #expect(height == 240)
        #expect(summary["lastTime"] as? Double == 3)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.count == 4 * 320 * 240 * 4)
        // The fourth picture is frame 75: its grey blocks read 16 * (75 % 16) + 8 and 16 * (75 / 16) + 8.
        var rgba = [UInt8](repeating: 255, count: 320 * 240 * 4)
        let frame = bytes.suffix(320 * 240 * 4)
        for (i, start) in stride(from: frame.startIndex, to: frame.endIndex, by: 4).enumerated() {
            rgba[i * 4] = frame[start + 2]
            rgba[i * 4 + 1] = frame[start + 1]
            rgba[i * 4 + 2] = frame[start]
        }
        #expect(FramePattern.read(Data(rgba), width: 320, height: 240).frameNumber == 75)
    }

    @Test func nv12OverATimeRange() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("f.nv12").path
        let arguments = ["frames", Fixtures.path("av.mp4"), "--pixel-format", "nv12", "--start", "0.5", "--duration", "0.4", "--size", "160x120"]
        let result = try await AVToolProcess.run(arguments + ["-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        // Pictures showing within 0.5-0.9 s at 25 fps: the one from 0.48 s and ten more, 160x120 4:2:0 each.
        let expected = 11 * 160 * 120 * 3 / 2
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)).count == expected)
        // Without -o the pixels go to standard output, and nothing else does.
        let piped = try await AVToolProcess.run(arguments)
        #expect(piped.status == 0 && !piped.stdout.isEmpty && piped.stderr.isEmpty)
    }

    @Test func pngFiles() async throws {
        let dir = try Fixtures.temporaryDirectory().appendingPathComponent("png").path
        let result = try await AVToolProcess.run(["frames", Fixtures.path("frames-h264.mp4"), "--format", "png", "--every", "2", "-o", dir])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(dir): 2 pictures\n")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(files == ["frame-000001.png", "frame-000002.png"])
        let png = try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent(files[1]))
        #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func badArgumentsAndFilesGiveOneLine() async throws {
        let cases: [([String], String)] = [
            (["frames", Fixtures.path("av.mp4"), "--format", "gif"], "--format must be raw or png"),
            (["frames", Fixtures.path("av.mp4"), "--pixel-format", "yuv"], "--pixel-format must be"),
            (["frames", Fixtures.path("av.mp4"), "--format", "png"], "needs -o DIR"),
            (["frames", Fixtures.path("av.mp4"), "--every", "0"], "--every must be"),
            (["frames", Fixtures.path("tone.wav")], "no video track"),
            (["frames", Fixtures.path("not-media.mp4")], "not-media.mp4"),
        ]
        for (arguments, words) in cases {
            let result = try await AVToolProcess.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
