import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// The sequential reader's starts: a start at a keyframe's time hands out that keyframe's picture
/// decoded alone (a tolerant seek's picture in one decode), and decoding then goes on from it exactly
/// as decoding in order would; readers at pace decode on one thread where they can. One test at a time:
/// together they decode about three seconds of CPU, which in the suite's busy first half kept players
/// of other suites from getting ready in time beside two busy processes.
@Suite("Stream reader", .serialized)
struct StreamReaderTests {
    /// Each picture's time and a digest of its RGBA pixels, from `seconds` on, and how many starts
    /// decoded their keyframe alone.
    static func pictures(_ path: String, from seconds: Double, _ token: CancellationToken,
                         configure: (StreamReader) -> Void = { _ in }) throws
        -> (pictures: [Picture], alone: Int, ticksPerSecond: Int64, decodersOpen: Int) {
        let reader = try StreamReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: 0, cancellation: token)
        configure(reader)
        try reader.start(at: MediaTimestamp(value: Int64((seconds * 1_000).rounded()), timeBase: Rational(1, 1_000)), token)
        var pictures: [Picture] = []
        let (width, height) = reader.pictureSize
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        while let timing = try pixels.withUnsafeMutableBytes({ raw in
            try reader.nextPicture(token, into: { decodedWidth, decodedHeight in
                guard (decodedWidth, decodedHeight) == (width, height) else { return nil }
                return raw.baseAddress.map { PixelMemory(format: .rgba, width: width, height: height, planes: [($0, width * 4)]) }
            })
        }) {
            pictures.append(Picture(time: timing.presentationTime, digest: Self.digest(pixels), oneThread: reader.decodesOnOneThread,
                                    threads: reader.decodingThreads))
        }
        return (pictures, reader.keyframesDecodedAlone, Int64(reader.timeBase.denominator / max(1, reader.timeBase.numerator)), reader.decodersOpen)
    }

    struct Picture: Equatable, CustomStringConvertible {
        let time: Int64
        let digest: UInt64
        /// Whether the reader decoded on one thread when it handed the picture out, and how many threads
        /// its decoder had (not compared).
        var oneThread = false
        var threads = 0
        var description: String { "\(time):\(String(digest, radix: 16).prefix(6))" }

        init(time: Int64, digest: UInt64, oneThread: Bool = false, threads: Int = 0) {
            (self.time, self.digest, self.oneThread, self.threads) = (time, digest, oneThread, threads)
        }

        /// Whether the decoder that made it had the threads the reader says: one, or (on a machine of
        /// two cores or more) more.
        var decoderAgrees: Bool {
            oneThread ? threads == 1 : (threads > 1 || ProcessInfo.processInfo.activeProcessorCount < 2)
        }

        static func == (a: Picture, b: Picture) -> Bool { a.time == b.time && a.digest == b.digest }
    }

    /// FNV-1a over the bytes, eight at a time (a picture's RGBA rows are a multiple of eight bytes), so
    /// that a debug build digests a hundred pictures quickly.
    static func digest(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var at = 0
            while at + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* 0x100_0000_01b3
                at += 8
            }
            while at < raw.count {
                hash = (hash ^ UInt64(raw[at])) &* 0x100_0000_01b3
                at += 1
            }
            return hash
        }
    }

    @Test("a start at a keyframe gives its picture decoded alone, then every later picture once, as decoding in order gives them",
          arguments: ["frames-h264.mp4", "frames-hevc.mov", "frames-h264.mkv"])
    func startAtAKeyframe(_ name: String) async throws {
        let path = Fixtures.path(name)
        let (atKey, inOrder, inside) = try await IOExecutor.shared.run { token in
            // Keyframes at 0, 1, 2 and 3 s (25 pictures a second, B-frames between).
            (try Self.pictures(path, from: 2, token), try Self.pictures(path, from: 0, token), try Self.pictures(path, from: 2.5, token))
        }
        // 2 s and 2.5 s in the stream's ticks, and a picture's length (25 a second).
        let second = inOrder.ticksPerSecond
        let later = inOrder.pictures.filter { $0.time >= 2 * second }
        #expect(atKey.alone == 1, "the keyframe's picture was decoded alone")
        #expect(atKey.pictures.count == 50 && atKey.pictures == later, "\(atKey.pictures.prefix(4)) vs \(later.prefix(4))")
        // A start inside a group of pictures decodes in order from its keyframe.
        #expect(inside.alone == 0)
        #expect(inside.pictures == inOrder.pictures.filter { $0.time + second / 25 > second * 5 / 2 }, "\(inside.pictures.prefix(3))")
        #expect(inOrder.alone == 0 && inOrder.pictures.count == 100)
    }

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
        // Decoded and compared on an engine thread (not the cooperative pool).
        let (mean, translucent, differs) = try await IOExecutor.shared.run { token in
            let fast = try Self.scaledPicture(path, width: width, height: height, fast: true, token)
            let careful = try Self.scaledPicture(path, width: width, height: height, fast: false, token)
            var total = 0
            for i in fast.indices { total += abs(Int(fast[i]) - Int(careful[i])) }
            let translucent = stride(from: 3, to: fast.count, by: 4).filter { fast[$0] != 255 }.count
            return (Double(total) / Double(max(1, fast.count)), translucent, fast != careful && fast.contains { $0 != 0 })
        }
        // Alpha opaque; colours within the two filters' difference (a wrong matrix or range is tens off
        // over whole areas).
        #expect(translucent == 0, "\(translucent) pixels not opaque")
        #expect(mean < 4, "mean difference \(mean)")
        #expect(differs)
    }

    @Test("conversion into tightly packed rows fills every pixel and writes nothing past the last row",
          arguments: [("frames-854x480.mp4", 854, 480, false), ("frames-h264.mp4", 200, 150, true), ("frames-h264.mp4", 213, 160, true),
                      ("frames-h264.mp4", 200, 150, false)])
    func tightRows(_ name: String, _ width: Int, _ height: Int, _ fast: Bool) async throws {
        let path = Fixtures.path(name)
        let canary: UInt8 = 0xAB
        let result = try await IOExecutor.shared.run { token in
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
            let unwritten = stride(from: 3, to: width * height * 4, by: 4).filter { memory[$0] != 255 }.map { ($0 / 4) % width }
            return (unwritten, memory[(width * height * 4)...].allSatisfy { $0 == canary })
        }
        let (unwritten, canaryKept) = result
        #expect(unwritten.isEmpty, "\(unwritten.count) pixels unwritten, in columns \(Set(unwritten).sorted().prefix(8))")
        #expect(canaryKept, "written past the last row")
    }

    // MARK: - Readers at pace (a player's output): one decoding thread where it is safe

    static func atPace(_ reader: StreamReader) { reader.decodesAtPace = true }

    @Test("a reader at pace started at a keyframe decodes on one thread, and its pictures are the frame threads' pictures",
          arguments: ["frames-h264.mp4", "frames-hevc.mov", "frames-vp9-10bit.webm", "frames-av1.mkv", "frames-mpeg4.avi"])
    func atPaceFromAKeyframe(_ name: String) async throws {
        let path = Fixtures.path(name)
        let (paced, threaded, pacedLater, threadedLater) = try await IOExecutor.shared.run { token in
            (try Self.pictures(path, from: 0, token, configure: Self.atPace), try Self.pictures(path, from: 0, token),
             try Self.pictures(path, from: 2, token, configure: Self.atPace), try Self.pictures(path, from: 2, token))
        }
        #expect(paced.pictures.count == 100 && paced.pictures == threaded.pictures, "\(paced.pictures.prefix(4)) vs \(threaded.pictures.prefix(4))")
        #expect(paced.pictures.allSatisfy { $0.oneThread } && !threaded.pictures.contains { $0.oneThread })
        #expect((paced.pictures + threaded.pictures).allSatisfy { $0.decoderAgrees })
        #expect(pacedLater.pictures.count == 50 && pacedLater.pictures == threadedLater.pictures)
        #expect(pacedLater.pictures.allSatisfy { $0.oneThread } && pacedLater.alone == 1)
    }

    @Test("after a start inside a group, a reader at pace decodes on to it with frame threads, then on one thread from the next IDR picture",
          arguments: ["frames-h264.mp4", "frames-h264.mkv"])
    func atPaceTakesOverAtAnIDRPicture(_ name: String) async throws {
        let path = Fixtures.path(name)
        let (paced, threaded) = try await IOExecutor.shared.run { token in
            (try Self.pictures(path, from: 2.5, token, configure: Self.atPace), try Self.pictures(path, from: 2.5, token))
        }
        let third = paced.ticksPerSecond * 3
        // 2.5 s to the end: 38 pictures, the ones from 3 s (an IDR picture) on decoded on one thread.
        #expect(paced.pictures.count == 38 && paced.pictures == threaded.pictures, "\(paced.pictures.prefix(4)) vs \(threaded.pictures.prefix(4))")
        #expect(paced.pictures.allSatisfy { $0.oneThread == ($0.time >= third) }, "\(paced.pictures.map { "\($0.time):\($0.oneThread)" })")
        #expect(paced.pictures.allSatisfy { $0.decoderAgrees })
        #expect(paced.decodersOpen == 1, "the frame-threaded decoder went when one thread took over")
    }

    @Test("a reader at pace never takes over at an open group's keyframe (HEVC CRA pictures): frame threads to the end, the same pictures")
    func atPaceKeepsFrameThreadsAtOpenGroups() async throws {
        let path = Fixtures.path("frames-hevc.mov")
        let (paced, threaded) = try await IOExecutor.shared.run { token in
            (try Self.pictures(path, from: 0.5, token, configure: Self.atPace), try Self.pictures(path, from: 0.5, token))
        }
        #expect(paced.pictures.count == 88 && paced.pictures == threaded.pictures)
        #expect(!paced.pictures.contains { $0.oneThread })
    }

    @Test("a reader at pace whose one thread takes more than its budget starts again on frame threads after its last picture, for good, whatever the codec",
          arguments: ["frames-h264.mp4", "frames-hevc.mov", "frames-mpeg4.avi", "frames-vp9-10bit.webm"])
    func atPaceFallsBackWhenOneThreadFallsBehind(_ name: String) async throws {
        let path = Fixtures.path(name)
        let (paced, threaded) = try await IOExecutor.shared.run { token in
            // No CPU time allowed: the first picture's cost is left out, the next 32 (to 1.28 s) show
            // that one thread falls behind, and the 34th comes from frame threads.
            (try Self.pictures(path, from: 0, token, configure: { $0.decodesAtPace = true; $0.oneThreadBudget = 0 }),
             try Self.pictures(path, from: 0, token))
        }
        #expect(paced.pictures.count == 100 && paced.pictures == threaded.pictures, "\(paced.pictures.prefix(40).suffix(10)) vs \(threaded.pictures.prefix(40).suffix(10))")
        #expect(paced.pictures.prefix(33).allSatisfy { $0.oneThread } && !paced.pictures.dropFirst(33).contains { $0.oneThread },
                "\(paced.pictures.map { "\($0.time):\($0.oneThread)" })")
        #expect(paced.pictures.allSatisfy { $0.decoderAgrees })
        #expect(paced.decodersOpen == 1, "the decoder on one thread went when frame threads took over")
    }
}
