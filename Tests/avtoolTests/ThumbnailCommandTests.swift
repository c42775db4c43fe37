@testable import avtool
import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// `avtool thumbnail` and `avtool thumbnails`, run as a user would: the images they write, their
/// sizes and pictures, and one-line errors.
@Suite("avtool thumbnail", .serialized)
struct ThumbnailCommandTests {
    @Test func aSheetLargerThanItsLimitShrinksToFit() throws {
        let cell = try #require(CGImage(rgbaPixels: Data(repeating: 200, count: 100 * 50 * 4), width: 100, height: 50))
        let sheet = try #require(ContactSheet.make([cell, nil, cell, cell], columns: 2, maximumPixels: 5000))
        // 2 x 2 cells of 100x50 would be 20,000 pixels: cells shrink by half, to 50x25.
        #expect(sheet.width == 2 * 50 + 3 * ContactSheet.gap && sheet.height == 2 * 25 + 3 * ContactSheet.gap)
        #expect(sheet.pixel(x: 4 + 25, y: 4 + 12)?.red == 200, "a picture")
        #expect(sheet.pixel(x: 8 + 50 + 25, y: 4 + 12)?.red == ContactSheet.background[0], "the missing picture's cell")
    }

    static func image(_ path: String) throws -> CGImage {
        try CGImage.decoded(from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func frame(_ image: CGImage) -> Int? {
        FramePattern.read(image.dataProvider?.data ?? Data(), width: image.width, height: image.height).frameNumber
    }

    @Test func aThumbnailAtATime() async throws {
        let dir = try Fixtures.temporaryDirectory()
        let out = dir.appendingPathComponent("t.png").path
        let result = try await AVToolProcess.run(["thumbnail", Fixtures.path("frames-h264.mp4"), "--at", "1.5", "--exact", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out): 320x240, the picture at 1.480 s\n")
        #expect(Self.frame(try Self.image(out)) == 37)
        let jpeg = dir.appendingPathComponent("k.jpg").path
        let fast = try await AVToolProcess.run(["thumbnail", Fixtures.path("frames-h264.mp4"), "--at", "1.4", "--max-size", "100x0", "-o", jpeg])
        #expect(fast.status == 0, "\(fast.stderr)")
        let small = try Self.image(jpeg)
        #expect(small.width == 100 && small.height == 75)
        #expect(Self.frame(small) == 25, "the nearest keyframe by default")
    }

    @Test func aThumbnailOfAnHTTPURL() async throws {
        let server = try LoopbackHTTPServer(routes: ["/clip.mp4": .file(URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))])
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("web.png").path
        let result = try await AVToolProcess.run(["thumbnail", server.url("/clip.mp4").absoluteString, "--at", "2.5", "--exact", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.frame(try Self.image(out)) == 62)
    }

    @Test func thumbnailsAreUpright() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("r.png").path
        let result = try await AVToolProcess.run(["thumbnail", Fixtures.path("frames-rotated.mov"), "--at", "0", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try Self.image(out)
        #expect(image.width == 240 && image.height == 320)
    }

    @Test func aContactSheet() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("sheet.png").path
        let result = try await AVToolProcess.run(["thumbnails", Fixtures.path("frames-h264.mp4"), "--count", "4", "--exact",
                                                  "--max-size", "80x0", "--sheet", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out): 172x132, 4 pictures\n")
        let sheet = try Self.image(out)
        #expect(sheet.width == 172 && sheet.height == 132)
        // Cells of 80x60 with 4-pixel gaps, in timeline order: 0.5, 1.5, 2.5 and 3.5 s.
        var frames: [Int?] = []
        for cell in 0..<4 {
            let rect = CGRect(x: 4 + (cell % 2) * 84, y: 4 + (cell / 2) * 64, width: 80, height: 60)
            frames.append(sheet.cropping(to: rect).flatMap(Self.frame))
        }
        #expect(frames == [12, 37, 62, 87])
    }

    @Test func picturesIntoADirectory() async throws {
        let dir = try Fixtures.temporaryDirectory().appendingPathComponent("thumbs")
        let result = try await AVToolProcess.run(["thumbnails", Fixtures.path("frames-h264.mp4"), "--count", "12", "--format", "jpeg", "-o", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names == (1...12).map { String(format: "thumbnail-%02d.jpg", $0) })
        #expect(try Self.image(dir.appendingPathComponent("thumbnail-01.jpg").path).width == 320)
        #expect(result.stderr.isEmpty, "no progress line when standard error is not a terminal")
    }

    /// On a terminal (`script` gives the command one), a progress line counts the pictures.
    @Test func progressOnATerminal() async throws {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        guard FileManager.default.isExecutableFile(atPath: script.path) else { return }
        let dir = try Fixtures.temporaryDirectory().appendingPathComponent("tty")
        let command = [ChildProcess.builtProduct("avtool").path, "thumbnails", Fixtures.path("frames-h264.mp4"), "--count", "3", "-o", dir.path]
        let result = try await ChildProcess.run(script, ["-qec", command.joined(separator: " "), "/dev/null"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\rthumbnails: 1/3") && result.stdout.contains("\rthumbnails: 3/3"), "\(result.stdout)")
    }

    @Test(arguments: [
        (["thumbnail", "/nonexistent/clip.mp4", "--at", "1", "-o", "/tmp/avocet-x.png"], "/nonexistent/clip.mp4"),
        (["thumbnail", Fixtures.path("tone.wav"), "--at", "1", "-o", "/tmp/avocet-x.png"], "no video track"),
        (["thumbnail", Fixtures.path("not-media.mp4"), "--at", "1", "-o", "/tmp/avocet-x.png"], "not-media.mp4"),
        (["thumbnail", Fixtures.path("av.mp4"), "--at", "1", "-o", "/tmp/avocet-x.gif"], ".png, .jpg or .jpeg"),
        (["thumbnail", Fixtures.path("av.mp4"), "--at", "1", "--max-size", "big", "-o", "/tmp/avocet-x.png"], "WxH"),
        (["thumbnail", Fixtures.path("av.mp4"), "-o", "/tmp/avocet-x.png"], "--at"),
        (["thumbnail", Fixtures.path("av.mp4"), "--at", "1", "-o", "/nonexistent/dir/x.png"], "cannot write"),
        (["thumbnails", Fixtures.path("av.mp4"), "--count", "0", "-o", "/tmp/avocet-x"], "--count"),
        (["thumbnails", Fixtures.path("av.mp4"), "--count", "3"], "either -o DIR or --sheet FILE"),
        (["thumbnails", Fixtures.path("av.mp4"), "--count", "3", "-o", "/tmp/avocet-x", "--sheet", "/tmp/avocet-x.png"], "either"),
        (["thumbnails", Fixtures.path("tone.wav"), "--count", "3", "--sheet", "/tmp/avocet-x.png"], "no video track"),
        (["thumbnails", "/nonexistent/clip.mp4", "--count", "3", "--sheet", "/tmp/avocet-x.png"], "/nonexistent/clip.mp4"),
    ])
    func badArgumentsAndFilesGetOneLine(arguments: [String], mention: String) async throws {
        let result = try await AVToolProcess.run(arguments)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("avtool: ") == true && result.stderr.contains(mention), "\(result.stderr)")
    }
}
