@testable import MediaEngine
import FixtureSupport
import Foundation
import Synchronization
import Testing

@Suite("Engine threads, byte sources and cancellation")
struct EngineConcurrencyTests {
    @Test func shortReadsGiveTheSameInfo() async throws {
        let path = Fixtures.path("multi.mkv")
        let direct = try await Demuxer.open(path: path).info
        let short = try await Demuxer.open(source: ShortReadSource(path: path, chunk: 997)).info
        #expect(short == direct)
    }

    /// A source that honours cancellation: the open ends at once, well before its next read would.
    @Test func cancellingAnOpenBlockedOnASlowSourceEndsItPromptly() async throws {
        let source = try SlowSource(path: Fixtures.path("av.mp4"), delay: 30, honoursCancellation: true)
        let task = Task { try await Demuxer.open(source: source) }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the open must not succeed")
        } catch let error as MediaEngineError {
            #expect(error.code == .cancelled)
        }
        #expect(ContinuousClock.now - start < .seconds(2), "ended promptly, not after the 30 s read")
        #expect(source.reads.load(ordering: .relaxed) == 1)
    }

    /// A source that ignores cancellation: the bridge and FFmpeg's interrupt callback stop the open
    /// after the read in progress, instead of letting it read on.
    @Test func cancellationStopsFFmpegAfterTheReadInProgress() async throws {
        let source = try SlowSource(path: Fixtures.path("moov-at-end.mp4"), delay: 0.3, honoursCancellation: false)
        let task = Task { try await Demuxer.open(source: source) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: MediaEngineError.self) { try await task.value }
        let readsAtCancel = source.reads.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(700))
        #expect(source.reads.load(ordering: .relaxed) == readsAtCancel, "no reads after cancellation")
        #expect(readsAtCancel <= 2)
    }

    @Test func alreadyCancelledTaskDoesNoWork() async throws {
        let source = try SlowSource(path: Fixtures.path("av.mp4"), delay: 30, honoursCancellation: true)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Demuxer.open(source: source)
        }
        await #expect(throws: MediaEngineError.self) { try await task.value }
    }

    /// Blocked opens sit on engine threads: the cooperative pool stays free for other tasks.
    @Test func blockedOpensDoNotBlockTheCooperativePool() async throws {
        let sources = try (0..<8).map { _ in try SlowSource(path: Fixtures.path("av.mp4"), delay: 30, honoursCancellation: true) }
        let opens = sources.map { source in Task { try await Demuxer.open(source: source) } }
        let ticks = Atomic<Int>(0)
        let start = ContinuousClock.now
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(20))
            ticks.add(1, ordering: .relaxed)
        }
        #expect(ticks.load(ordering: .relaxed) == 10)
        #expect(ContinuousClock.now - start < .seconds(2))
        // A real open still completes while eight others are blocked.
        let info = try await Demuxer.open(path: Fixtures.path("tone.wav")).info
        #expect(info.streams.count == 1)
        opens.forEach { $0.cancel() }
        for open in opens { _ = try? await open.value }
    }

    @Test func executorRunsJobsConcurrentlyAndReturnsResults() async throws {
        let executor = IOExecutor(maxThreads: 4)
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<32 { group.addTask { try await executor.run { _ in i * i } } }
            return try await group.reduce(0, +)
        }
        #expect(results == (0..<32).map { $0 * $0 }.reduce(0, +))
        await #expect(throws: MediaEngineError.self) {
            try await executor.run { _ -> Int in
                throw MediaEngineError(.failed, source: "x", operation: "test", reason: "boom")
            }
        }
    }
}

@Suite("AVIO bridge")
struct AVIOBridgeTests {
    /// The callback FFmpeg polls during blocking work answers "stop" once the caller cancels.
    @Test func interruptCallbackFollowsTheToken() throws {
        let token = CancellationToken()
        let bridge = try AVIOBridge(source: FileByteSource(path: Fixtures.path("tone.wav")), cancellation: token)
        #expect(!bridge.interruptRequested)
        token.cancel()
        #expect(bridge.interruptRequested)
    }

    @Test func tokenWaitWakesOnCancel() async throws {
        let token = CancellationToken()
        let start = ContinuousClock.now
        Task.detached {
            try await Task.sleep(for: .milliseconds(50))
            token.cancel()
        }
        // Wait on a thread of our own, as engine threads do, never on the cooperative pool.
        let cancelled = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: token.wait(seconds: 10)) }.start()
        }
        #expect(cancelled)
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(!CancellationToken().wait(seconds: 0.01), "times out when nobody cancels")
    }
}
