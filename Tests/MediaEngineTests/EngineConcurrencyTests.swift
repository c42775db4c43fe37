@testable import MediaEngine
import FixtureSupport
import Foundation
import Locking
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
        // A read of 120 s, which the cancellation cuts short: the bound below can leave a busy machine
        // a minute and still tell the cancellation from the read's end.
        let source = try SlowSource(path: Fixtures.path("av.mp4"), delay: 120, honoursCancellation: true)
        let task = Task { try await Demuxer.open(source: source) }
        await until("the open's first read") { source.reads.load(ordering: .relaxed) >= 1 }
        let start = ContinuousClock.now
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("the open must not succeed")
        } catch let error as MediaEngineError {
            #expect(error.code == .cancelled)
        }
        #expect(ContinuousClock.now - start < TestTiming.bound(10, hang: 120), "ended promptly, not after the 120 s read")
        #expect(source.reads.load(ordering: .relaxed) == 1)
    }

    /// A source that ignores cancellation: the bridge and FFmpeg's interrupt callback stop the open
    /// after the read in progress, instead of letting it read on.
    @Test func cancellationStopsFFmpegAfterTheReadInProgress() async throws {
        let source = try SlowSource(path: Fixtures.path("moov-at-end.mp4"), delay: 0.3, honoursCancellation: false)
        let task = Task { try await Demuxer.open(source: source) }
        await until("the open's first read") { source.reads.load(ordering: .relaxed) >= 1 }
        // Counted at the moment of cancelling: the read in progress may finish, no other may start.
        let readsAtCancel = source.reads.load(ordering: .relaxed)
        task.cancel()
        await #expect(throws: MediaEngineError.self) { try await task.value }
        let readsAtEnd = source.reads.load(ordering: .relaxed)
        #expect(readsAtCancel >= 1)
        #expect(readsAtEnd <= readsAtCancel + 1, "at most the read in progress, then FFmpeg stops")
        await until("the read in progress ended") { source.readsEnded.load(ordering: .relaxed) >= source.reads.load(ordering: .relaxed) }
        // A negative check: no read starts after the open ended. 700 ms (two reads' worth) can only miss a
        // late read on a slow machine, never fail a right answer.
        try await Task.sleep(for: .milliseconds(700))
        #expect(source.reads.load(ordering: .relaxed) == readsAtEnd, "no reads after the open ended")
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
        // Reads that would block for 120 s (cancelled at the end): a blocked pool holds the ticks that long.
        let sources = try (0..<8).map { _ in try SlowSource(path: Fixtures.path("av.mp4"), delay: 120, honoursCancellation: true) }
        let opens = sources.map { source in Task { try await Demuxer.open(source: source) } }
        let ticks = Atomic<Int>(0)
        let start = ContinuousClock.now
        for _ in 0..<10 {
            try await Task.sleep(for: .milliseconds(20))
            ticks.add(1, ordering: .relaxed)
        }
        #expect(ticks.load(ordering: .relaxed) == 10)
        // A blocked pool would hold these 200 ms of ticks for the 120 s reads; 30 s (scaled, at most 60)
        // leaves room for a busy machine running the whole suite at once, where the other tests' jobs
        // queue on the pool's two threads for seconds (5.95 s was seen beside a video encode, 12.3 s
        // beside a fuzzer, 15.1 s under AddressSanitizer in CI).
        #expect(ContinuousClock.now - start < TestTiming.bound(30, hang: 120))
        // A real open still completes while eight others are blocked.
        let info = try await Demuxer.open(path: Fixtures.path("tone.wav")).info
        #expect(info.streams.count == 1)
        opens.forEach { $0.cancel() }
        for open in opens { _ = try? await open.value }
    }

    /// A cancelled queued job's closure is let go outside the executor's lock: what it held may submit
    /// work from its deinit (an image generator's readers are closed that way) without a deadlock or trap.
    @Test func aDroppedJobsCapturesMaySubmitWorkFromTheirDeinit() async throws {
        final class Flags: Sendable {
            let started = Atomic<Bool>(false)
            let submitted = Atomic<Bool>(false)
        }
        final class Canary: Sendable {
            let executor: IOExecutor
            let flags: Flags
            init(_ executor: IOExecutor, _ flags: Flags) {
                self.executor = executor
                self.flags = flags
            }
            deinit {
                executor.submit { }
                flags.submitted.store(true, ordering: .relaxed)
            }
        }
        let executor = IOExecutor(maxThreads: 1)
        let release = CancellationToken()
        let flags = Flags()
        let blocker = Task { try await executor.run { _ in flags.started.store(true, ordering: .relaxed); release.wait(seconds: 30) } }
        await until("the blocker started") { flags.started.load(ordering: .relaxed) }
        var canary: Canary? = Canary(executor, flags)
        let queued = Task { [canary] in try await executor.run { _ in withExtendedLifetime(canary) {} } }
        canary = nil
        await until("a job queued") { executor.queuedJobs >= 1 }
        queued.cancel()
        _ = try? await queued.value
        release.cancel()
        _ = try? await blocker.value
        // The worker passes the cancelled job, lets it go, and the canary's deinit queues a job.
        let done = try await executor.run { _ in true }
        #expect(done && flags.submitted.load(ordering: .relaxed))
    }

    /// A job cancelled while it waits in the queue (every engine thread busy) never runs, and its caller
    /// returns at once rather than when a thread frees up.
    @Test func aCancelledQueuedJobNeverRunsAndItsCallerReturnsAtOnce() async throws {
        final class Counters: Sendable {
            let blockersStarted = Atomic<Int>(0)
            let ran = Atomic<Bool>(false)
        }
        let executor = IOExecutor(maxThreads: 2)
        let release = CancellationToken()
        let counters = Counters()
        let blockers = (0..<2).map { _ in
            Task { try await executor.run { _ in counters.blockersStarted.add(1, ordering: .relaxed); release.wait(seconds: 30) } }
        }
        await until("both blockers started") { counters.blockersStarted.load(ordering: .relaxed) >= 2 }
        #expect(counters.blockersStarted.load(ordering: .relaxed) == 2, "both engine threads are blocked")

        let queued = Task { try await executor.run { _ in counters.ran.store(true, ordering: .relaxed) } }
        await until("a job queued") { executor.queuedJobs >= 1 }
        #expect(executor.queuedJobs == 1, "the job waits for a thread")
        let start = ContinuousClock.now
        queued.cancel()
        do {
            try await queued.value
            Issue.record("a cancelled queued job must not complete")
        } catch let error as MediaEngineError {
            #expect(error.code == .cancelled)
        }
        #expect(ContinuousClock.now - start < TestTiming.bound(10), "returned while both threads were still blocked (for 30 s)")
        #expect(counters.blockersStarted.load(ordering: .relaxed) == 2 && !release.isCancelled)

        release.cancel()
        for blocker in blockers { _ = try await blocker.value }
        // A job queued after the cancelled one runs, and the cancelled one was skipped on the way.
        #expect(try await executor.run { _ in 42 } == 42)
        let didRun = counters.ran.load(ordering: .relaxed)
        #expect(!didRun, "the cancelled job never ran")
        #expect(executor.startedJobs == 3, "two blockers and the last job; the cancelled one was skipped")
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
        // The cancel comes 50 ms into the wait, from a thread of its own: neither side needs the
        // cooperative pool, which other tests may hold for seconds on a busy machine.
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            token.cancel()
        }.start()
        // Wait on a thread of our own, as engine threads do, and time the wait itself there.
        let (cancelled, waited) = await withHandOffContinuation { continuation in
            Thread {
                let start = ContinuousClock.now
                let cancelled = token.wait(seconds: 10)
                continuation.resume(returning: (cancelled, ContinuousClock.now - start))
            }.start()
        }
        #expect(cancelled)
        #expect(waited < TestTiming.bound(5, hang: 10), "woken by the cancel, long before the 10 s wait ends: \(waited)")
        #expect(!CancellationToken().wait(seconds: 0.01), "times out when nobody cancels")
    }
}

/// The package's own rule, checked on its sources: every continuation goes through the hand-off
/// helpers of `Locking` (whose acquire lets ThreadSanitizer see what the resuming thread wrote). A
/// plain `withCheckedContinuation` made the sanitizer report a sample buffer made on an engine thread
/// and read by the task it was handed to.
@Suite("Package rules on the sources")
struct SourceRuleTests {
    @Test func everyContinuationIsAHandOff() throws {
        let sources = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("Sources")
        let plain = ["withCheckedContinuation", "withCheckedThrowingContinuation", "withUnsafeContinuation", "withUnsafeThrowingContinuation"]
        var offenders: [String] = []
        var files = 0
        let walker = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift", !url.path.contains("/Sources/Locking/") else { continue }
            files += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where plain.contains(where: { line.contains("\($0) {") || line.contains("\($0)(") }) {
                offenders.append("\(url.lastPathComponent):\(number + 1)")
            }
        }
        #expect(files > 100, "the sources were found")
        #expect(offenders.isEmpty, "use withHandOffContinuation and its siblings: \(offenders)")
    }
}
