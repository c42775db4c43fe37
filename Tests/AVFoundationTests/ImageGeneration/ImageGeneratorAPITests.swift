import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Synchronization
import Testing

/// The generator's ways of being called: the asynchronous sequence, the callback methods with their
/// exactly-once cancellation, the synchronous copy, and cancellation of work in progress.
@Suite("Image generator API", .serialized)
struct ImageGeneratorAPITests {
    static let h264 = Fixtures.frames("frames-h264.mp4")

    static func generator(_ name: String = h264.name, route: AssetRoute = .file) -> AVAssetImageGenerator {
        let generator = AVAssetImageGenerator(asset: route.asset(name))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        return generator
    }

    static func frameNumber(_ image: CGImage) -> Int? {
        FramePattern.read(image.dataProvider?.data ?? Data(), width: image.width, height: image.height).frameNumber
    }

    static func time(frame: Int) -> CMTime { CMTime(value: Int64(frame) * 24 + 12, timescale: 600) }

    @Test("images(for:) yields one element per time, in the order asked, failures included")
    func sequence() async throws {
        let generator = Self.generator()
        let frames = [3, 10, 11, 12, 40, 2, 60]
        var times = frames.map(Self.time(frame:))
        times.insert(CMTime(value: 9, timescale: 1), at: 4)
        var seen: [(CMTime, Int?)] = []
        var failures = 0
        for await result in generator.images(for: times) {
            switch result {
            case .success(requestedTime: let requested, image: let image, actualTime: let actual):
                seen.append((requested, Self.frameNumber(image)))
                #expect(try result.actualTime == actual)
            case .failure(requestedTime: let requested, error: let error):
                failures += 1
                seen.append((requested, nil))
                #expect((error as? AVError)?.code == .noImageAtTime)
                #expect(throws: AVError.self) { try result.image }
                #expect(throws: AVError.self) { try result.actualTime }
            }
        }
        #expect(seen.map(\.0) == times, "results in the order asked")
        #expect(seen.compactMap(\.1) == frames, "each the picture at its time")
        #expect(failures == 1, "9 s is past the end")
    }

    @Test("iterating images(for:) stops when the iterating task is cancelled")
    func sequenceCancellation() async throws {
        let generator = Self.generator()
        let times = (0..<2000).map { CMTime(value: Int64($0 % 100) * 24 + 12, timescale: 600) }
        let count = Atomic<Int>(0)
        let task = Task {
            for await _ in generator.images(for: times) { count.add(1, ordering: .relaxed) }
        }
        await until("three images") { count.load(ordering: .relaxed) >= 3 }
        task.cancel()
        let start = ContinuousClock.now
        await task.value
        #expect(ContinuousClock.now - start < TestTiming.bound(10, hang: 20), "at once, not after the 2000 images")
        #expect(count.load(ordering: .relaxed) < 2000, "the sequence ended early")
    }

    @Test("image(at:) throws CancellationError when its task is cancelled, at once, even on a slow server")
    func cancellation() async throws {
        let server = try LoopbackHTTPServer(routes: ["/slow.mp4": .slow(URL(fileURLWithPath: Fixtures.path("av.mp4")), bytesPerChunk: 512, delay: 0.05)])
        let asset = AVURLAsset(url: server.url("/slow.mp4"))
        let generator = AVAssetImageGenerator(asset: asset)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let task = Task { try await generator.image(at: CMTime(seconds: 1.9, preferredTimescale: 600)) }
        // Cancelled while it reads from the slow server (the whole file takes some 10 s).
        await until("the slow server's first request") { server.requests.count >= 1 }
        task.cancel()
        let start = ContinuousClock.now
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(ContinuousClock.now - start < TestTiming.bound(5, hang: 10), "at once, not when the slow download ends")
    }

    @Test("the callback method reports every time once, in order, on a background queue")
    func callbacks() async throws {
        let generator = Self.generator()
        let frames = [5, 30, 31, 70]
        let times = frames.map { NSValue(time: Self.time(frame: $0)) }
        let reports = Locked<[(CMTime, Int?, AVAssetImageGenerator.Result, Bool)]>([])
        await withHandOffContinuation { (done: CheckedContinuation<Void, Never>) in
            generator.generateCGImagesAsynchronously(forTimes: times) { requested, image, actual, result, error in
                let count = reports.withLock { r -> Int in
                    r.append((requested, image.map(Self.frameNumber) ?? nil, result, error == nil && actual.isNumeric))
                    return r.count
                }
                if count == times.count { done.resume() }
            }
        }
        let all = reports.withLock { $0 }
        #expect(all.map(\.0) == times.map(\.timeValue))
        #expect(all.map(\.1) == frames)
        #expect(all.allSatisfy { $0.2 == .succeeded && $0.3 })
    }

    @Test("cancelAllCGImageGeneration reports each pending time cancelled, exactly once")
    func cancelAll() async throws {
        let generator = Self.generator()
        let times = (0..<300).map { NSValue(time: Self.time(frame: ($0 * 37) % 100)) }
        let reports = Locked<[(CMTime, AVAssetImageGenerator.Result)]>([])
        generator.generateCGImagesAsynchronously(forTimes: times) { requested, _, _, result, _ in
            reports.withLock { $0.append((requested, result)) }
        }
        // Cancelled once generating is under way, with most of the 300 times still pending.
        await until("a first report") { reports.withLock { $0.count } >= 1 }
        generator.cancelAllCGImageGeneration()
        await until("a report for each of the \(times.count) times") { reports.withLock { $0.count } >= times.count }
        // A negative check: let any late (second) report show itself. 100 ms more can only miss a late
        // report on a slow machine, never fail a right answer.
        try await Task.sleep(for: .milliseconds(100))
        let all = reports.withLock { $0 }
        #expect(all.count == times.count, "one report per time, no more")
        #expect(all.map(\.0) == times.map(\.timeValue), "in the order asked")
        let cancelled = all.firstIndex { $0.1 == .cancelled }
        #expect(cancelled != nil, "pending times were cancelled")
        #expect(all.prefix(cancelled ?? 0).allSatisfy { $0.1 == .succeeded } && all.suffix(from: cancelled ?? 0).allSatisfy { $0.1 == .cancelled },
                "succeeded up to the cancellation, cancelled after it")
        // The generator still works for later requests.
        #expect(Self.frameNumber(try await generator.image(at: Self.time(frame: 7)).image) == 7)
    }

    @Test("generateCGImageAsynchronously calls back once with the image and its time")
    func singleCallback() async throws {
        let generator = Self.generator()
        let (frame, actual, error) = await withHandOffContinuation { (done: CheckedContinuation<(Int?, CMTime, (any Error)?), Never>) in
            generator.generateCGImageAsynchronously(for: Self.time(frame: 44)) { image, actual, error in
                done.resume(returning: (image.map(Self.frameNumber) ?? nil, actual, error))
            }
        }
        #expect(frame == 44 && error == nil)
        #expect(abs(actual.seconds - 44.0 / 25) < 1e-9)
        let failure = await withHandOffContinuation { (done: CheckedContinuation<AVError.Code?, Never>) in
            generator.generateCGImageAsynchronously(for: CMTime(value: 30, timescale: 1)) { image, _, error in
                done.resume(returning: image == nil ? (error as? AVError)?.code : nil)
            }
        }
        #expect(failure == .noImageAtTime)
    }

    @Test("copyCGImage waits on its thread and gives the actual time")
    func copy() async throws {
        let generator = Self.generator()
        let (frame, actual) = try await onOwnThread { () throws -> (Int?, CMTime) in
            var actual = CMTime.invalid
            let image = try generator.copyCGImage(at: Self.time(frame: 81), actualTime: &actual)
            return (Self.frameNumber(image), actual)
        }
        #expect(frame == 81)
        #expect(abs(actual.seconds - 81.0 / 25) < 1e-9)
        let failure = try await onOwnThread { () -> AVError.Code? in
            do {
                _ = try AVAssetImageGenerator(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tone.wav"))))
                    .copyCGImage(at: .zero, actualTime: nil)
                return nil
            } catch { return (error as? AVError)?.code }
        }
        #expect(failure == .operationNotSupportedForAsset)
    }

    @Test("images come from HLS playlists")
    func hls() async throws {
        let hls = Fixtures.facts.hls
        let root = Fixtures.directory.appendingPathComponent(hls.directory)
        let server = try LoopbackHTTPServer(routes: LoopbackHTTPServer.routes(serving: root, at: "/hls"))
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: server.url("/hls/master.m3u8")))
        let variant = try #require(hls.variants.max { $0.bandwidth < $1.bandwidth })
        let (image, actual) = try await generator.image(at: CMTime(seconds: 2.3, preferredTimescale: 600))
        #expect(image.width == variant.width && image.height == variant.height, "the best variant")
        #expect(actual.seconds >= 0 && actual.seconds <= 2.3 + 1e-9, "\(actual.seconds)")
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let exact = try await generator.image(at: CMTime(seconds: 2.5, preferredTimescale: 600)).actualTime
        #expect(exact.seconds <= 2.5 && exact.seconds > 2.5 - 1.0 / Double(hls.fps), "the picture showing at 2.5 s: \(exact.seconds)")
    }
}
