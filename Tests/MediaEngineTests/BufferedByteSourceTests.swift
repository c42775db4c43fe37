import FixtureSupport
import Foundation
import Locking
@testable import MediaEngine
import Synchronization
import Testing

/// The async-fed byte source with a real feeder on a queue of its own: FFmpeg reads through it, waits
/// end on arrival, cancellation and stall timeouts, and a silent feeder holds no thread it does not need.
@Suite struct BufferedByteSourceTests {
    static func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(name))) }

    /// Reads the source's first byte on an engine thread, waiting there as long as the source makes it.
    static func readFirstByte(of source: BufferedByteSource, on executor: IOExecutor) async throws -> Int {
        try await executor.run { token in
            var byte: UInt8 = 0
            return try withUnsafeMutableBytes(of: &byte) { try source.read(at: 0, into: $0, cancellation: token) }
        }
    }

    @Test(arguments: ["av.mp4", "moov-at-end.mp4", "multi.mkv", "tagged.flac", "tagged.mp3"])
    func demuxingThroughAFeederGivesWhatTheFileGives(_ name: String) async throws {
        let direct = try await Demuxer.open(path: Fixtures.path(name)).info
        for onDemand in [false, true] {
            let feeder = MemoryFeeder(name: Fixtures.path(name), bytes: try Self.bytes(name), onDemand: onDemand, behaviour: .serve(chunk: 5000))
            let fed = try await Demuxer.open(source: BufferedByteSource(feeder: feeder)).info
            #expect(fed == direct, "\(name), on demand: \(onDemand)")
        }
    }

    /// The size is what the feeder stated, never what reading found: it must not change between the
    /// header parse and a later scan (which checks it).
    @Test func anUnknownSizeStaysUnknown() async throws {
        let source = BufferedByteSource(feeder: MemoryFeeder(bytes: Data(count: 1000), lengthKnown: false))
        let first = try await IOExecutor.shared.run { token in try source.size(cancellation: token) }
        #expect(first == nil)
        _ = try await Self.readFirstByte(of: source, on: .shared)
        let after = try await IOExecutor.shared.run { token in try source.size(cancellation: token) }
        #expect(after == nil, "the end was found (1,000 bytes), the size still says unknown")
    }

    @Test func anUnknownLengthStillDemuxes() async throws {
        let feeder = MemoryFeeder(name: Fixtures.path("multi.mkv"), bytes: try Self.bytes("multi.mkv"), lengthKnown: false)
        let info = try await Demuxer.open(source: BufferedByteSource(feeder: feeder)).info
        let direct = try await Demuxer.open(path: Fixtures.path("multi.mkv")).info
        #expect(info.streams == direct.streams)
    }

    /// Under `.giveUp` a read of bytes not yet here fails at once and names the offset; the caller waits
    /// without a thread and reads them afterwards.
    @Test func givingUpThenWaitingWithoutAThread() async throws {
        // Filled in place: a debug build's map over 300,000 elements would hold a pool thread for long.
        var data = Data(count: 300_000)
        data.withUnsafeMutableBytes { raw in
            for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: i &* 7) }
        }
        let source = BufferedByteSource(feeder: MemoryFeeder(bytes: data, onDemand: true))
        let token = CancellationToken(missingBytes: .giveUp)
        var buffer = [UInt8](repeating: 0, count: 10)
        #expect(throws: MediaEngineError.self) {
            _ = try buffer.withUnsafeMutableBytes { try source.read(at: 270_000, into: $0, cancellation: token) }
        }
        #expect(token.missedOffset == 270_000)
        let result: Result<Void, MediaEngineError> = await withHandOffContinuation { continuation in
            source.whenReadable(at: 270_000, cancellation: token) { continuation.resume(returning: $0) }
        }
        #expect((try? result.get()) != nil)
        token.clearMissingBytes()
        let n = try buffer.withUnsafeMutableBytes { try source.read(at: 270_000, into: $0, cancellation: token) }
        #expect(n == 10)
        #expect(buffer == Array(data[270_000..<270_010]))
    }

    @Test func cancellingAReadBlockedOnASilentFeederEndsItAtOnceAndCancelsTheRequest() async throws {
        let feeder = MemoryFeeder(bytes: Data(count: 1000), behaviour: .silent)
        let source = BufferedByteSource(feeder: feeder)
        let executor = IOExecutor(maxThreads: 2)
        let task = Task {
            try await Self.readFirstByte(of: source, on: executor)
        }
        await until("the feeder's first request") { !feeder.started.isEmpty }
        await until("the blocked read parked") { executor.parkedJobs >= 1 }
        #expect(executor.parkedJobs == 1, "the blocked read is set aside, not counted as an engine thread")
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: MediaEngineError.self) { try await task.value }
        // The silent feeder never answers: without the cancellation the read would wait for good, so the
        // bound can leave a busy machine a minute.
        #expect(ContinuousClock.now - start < TestTiming.bound(10, hang: 120))
        await until("the request cancelled") { !feeder.cancelled.isEmpty }
        #expect(feeder.cancelled == feeder.started.map(\.id), "the request nobody waits for is cancelled")
    }

    @Test func aParkedReadDoesNotKeepOtherJobsWaiting() async throws {
        let feeder = MemoryFeeder(bytes: Data(count: 1000), behaviour: .silent)
        let source = BufferedByteSource(feeder: feeder)
        let executor = IOExecutor(maxThreads: 1)
        let stuck = Task {
            try await Self.readFirstByte(of: source, on: executor)
        }
        await until("the blocked read parked") { executor.parkedJobs >= 1 }
        let value = try await executor.run { _ in 42 }
        #expect(value == 42, "the one engine thread's job waits parked; another thread took this job")
        stuck.cancel()
        _ = try? await stuck.value
    }

    @Test func aStalledFeederTimesOut() async throws {
        let feeder = MemoryFeeder(bytes: Data(count: 1000), behaviour: .silent, stallTimeout: 0.2)
        let source = BufferedByteSource(feeder: feeder)
        // The read's own time is measured on the engine thread that runs it, on an executor of its own:
        // on the shared one it could first wait its turn behind the suite's other tests (CI once saw
        // 15 s pass before the 0.2 s stall began), which says nothing of the timeout.
        let (error, elapsed) = try await IOExecutor(maxThreads: 1).run { token -> (MediaEngineError?, Duration) in
            let start = ContinuousClock.now
            var byte: UInt8 = 0
            do {
                _ = try withUnsafeMutableBytes(of: &byte) { try source.read(at: 0, into: $0, cancellation: token) }
                return (nil, ContinuousClock.now - start)
            } catch let error as MediaEngineError {
                return (error, ContinuousClock.now - start)
            }
        }
        #expect(error?.code == .readFailed, "a silent feeder cannot give a byte")
        #expect(error?.reason.contains("no data arrived") == true)
        // A 0.2 s stall timeout; without it the read would wait for good. The bound leaves room for a
        // busy machine.
        #expect(elapsed < TestTiming.bound(10))
        // The async wait times out too.
        let second = BufferedByteSource(feeder: MemoryFeeder(bytes: Data(count: 10), behaviour: .silent, stallTimeout: 0.2))
        let result: Result<Void, MediaEngineError> = await withHandOffContinuation { continuation in
            second.whenReadable(at: 0, cancellation: CancellationToken()) { continuation.resume(returning: $0) }
        }
        #expect(throws: MediaEngineError.self) { try result.get() }
    }

    @Test func cancellingAnAsyncWaitCallsBackOnceAndCancelsTheRequest() async throws {
        let feeder = MemoryFeeder(bytes: Data(count: 1000), behaviour: .silent)
        let source = BufferedByteSource(feeder: feeder)
        let token = CancellationToken()
        let calls = Atomic<Int>(0)
        let result: Result<Void, MediaEngineError> = await withHandOffContinuation { continuation in
            source.whenReadable(at: 0, cancellation: token) { result in
                calls.add(1, ordering: .relaxed)
                continuation.resume(returning: result)
            }
            token.cancel()
        }
        if case .failure(let error) = result { #expect(error.code == .cancelled) } else { Issue.record("must be cancelled") }
        token.cancel()
        #expect(calls.load(ordering: .relaxed) == 1)
        #expect(feeder.cancelled == [1])
    }

    @Test func aFailingFeederFailsTheRead() async throws {
        let feeder = MemoryFeeder(name: Fixtures.path("av.mp4"), bytes: try Self.bytes("av.mp4"), behaviour: .failAt(offset: 1000))
        await #expect(throws: MediaEngineError.self) {
            _ = try await Demuxer.open(source: BufferedByteSource(feeder: feeder))
        }
    }

    @Test func droppingTheSourceCancelsItsRequests() async throws {
        let feeder = MemoryFeeder(bytes: Data(count: 1000), behaviour: .silent)
        var source: BufferedByteSource? = BufferedByteSource(feeder: feeder)
        source?.whenReadable(at: 0, cancellation: CancellationToken()) { _ in }
        #expect(feeder.started.count == 1)
        source = nil
        #expect(feeder.cancelled == [1])
    }
}

/// A file read with positional reads that shrinks while open reports it, rather than ending early.
@Suite("File byte source")
struct FileByteSourceTests {
    @Test func aFileThatShrinksWhileReadFails() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-shrink-\(UUID().uuidString)")
        try Data(repeating: 7, count: 10_000).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try FileByteSource(path: url.path)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let first = try buffer.withUnsafeMutableBytes { try source.read(at: 0, into: $0, cancellation: CancellationToken()) }
        #expect(first == 4096)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 5000)
        try handle.close()
        #expect(throws: MediaEngineError.self) {
            _ = try buffer.withUnsafeMutableBytes { try source.read(at: 4096, into: $0, cancellation: CancellationToken()) }
        }
        let atEnd = try buffer.withUnsafeMutableBytes { try source.read(at: 10_000, into: $0, cancellation: CancellationToken()) }
        #expect(atEnd == 0, "reading at the end it had is the end")
    }
}
