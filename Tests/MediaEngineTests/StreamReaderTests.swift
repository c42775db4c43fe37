import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// The sequential reader's pictures: converted into the memory given, every pixel of it and nothing
/// past it.
@Suite("Stream reader")
struct StreamReaderTests {
    /// The first picture of `path`, decoded and scaled to `width` x `height` RGBA, fast or not.
    static func scaledPicture(_ path: String, width: Int, height: Int, fast: Bool, _ token: CancellationToken) throws -> [UInt8] {
        let reader = try StreamReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: 0, cancellation: token)
        reader.scalesForSpeed = fast
        try reader.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, 1)), token)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        _ = try pixels.withUnsafeMutableBytes { raw in
            try reader.nextPicture(token, into: { _, _ in
                raw.baseAddress.map { PixelMemory(format: .rgba, width: width, height: height, planes: [($0, width * 4)]) }
            })
        }
        return pixels
    }

    @Test("pictures scaled for speed (scaled in YCbCr, then converted) match the careful scaling's colours",
          arguments: [(160, 120), (200, 150), (213, 160), (640, 480)])
    func scaledForSpeed(_ width: Int, _ height: Int) async throws {
        let path = Fixtures.path("frames-h264.mp4")
        let (fast, careful) = try await IOExecutor.shared.run { token in
            (try Self.scaledPicture(path, width: width, height: height, fast: true, token),
             try Self.scaledPicture(path, width: width, height: height, fast: false, token))
        }
        let differences = zip(fast, careful).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        // Alpha opaque; colours within the two filters' difference (a wrong matrix or range is tens off
        // over whole areas).
        let bad = stride(from: 3, to: fast.count, by: 4).filter { fast[$0] != 255 }.map { (($0 / 4) % width, ($0 / 4) / width) }
        let badCareful = stride(from: 3, to: careful.count, by: 4).filter { careful[$0] != 255 }.count
        #expect(bad.isEmpty, "\(bad.count) \(bad.prefix(5)) careful \(badCareful)")
        #expect(mean < 4, "mean difference \(mean)")
        #expect(fast.contains { $0 != 0 } && fast != careful)
    }

    @Test("conversion into tightly packed rows fills every pixel and writes nothing past the last row",
          arguments: [("frames-854x480.mp4", 854, 480, false), ("frames-h264.mp4", 200, 150, true), ("frames-h264.mp4", 213, 160, true),
                      ("frames-h264.mp4", 200, 150, false)])
    func tightRows(_ name: String, _ width: Int, _ height: Int, _ fast: Bool) async throws {
        let path = Fixtures.path(name)
        let canary: UInt8 = 0xAB
        let memory = try await IOExecutor.shared.run { token in
            let reader = try StreamReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: 0, cancellation: token)
            reader.scalesForSpeed = fast
            try reader.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, 1)), token)
            // 64 bytes after the picture's rows: FFmpeg 5.1's x86 conversion wrote up to 32 past them.
            var memory = [UInt8](repeating: canary, count: width * height * 4 + 64)
            _ = try memory.withUnsafeMutableBytes { raw in
                try reader.nextPicture(token, into: { _, _ in
                    raw.baseAddress.map { PixelMemory(format: .bgra, width: width, height: height, planes: [($0, width * 4)]) }
                })
            }
            return memory
        }
        let unwritten = stride(from: 3, to: width * height * 4, by: 4).filter { memory[$0] != 255 }.map { ($0 / 4) % width }
        #expect(unwritten.isEmpty, "\(unwritten.count) pixels unwritten, in columns \(Set(unwritten).sorted().prefix(8))")
        #expect(memory[(width * height * 4)...].allSatisfy { $0 == canary }, "written past the last row")
    }
}

