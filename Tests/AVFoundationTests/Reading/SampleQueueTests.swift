@testable import AVFoundation
import FixtureSupport
import Foundation
import Locking
import MediaEngine
import Testing

/// A reader output's queue on its own, with a producer of plain buffers of a known size: how far it
/// reads ahead by count and by bytes, and that it makes the rest as they are taken.
@Suite("Sample queue read-ahead")
struct SampleQueueTests {
    /// A one-sample buffer of `size` bytes at `index` thirtieths of a second.
    static func buffer(_ index: Int, size: Int) throws -> CMSampleBuffer {
        let data = try CMBlockBuffer(length: size, flags: .assureMemoryNow)
        let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: CMTime(value: Int64(index), timescale: 30),
                                        decodeTimeStamp: .invalid)
        return try CMSampleBuffer(dataBuffer: data, formatDescription: nil, numSamples: 1, sampleTimings: [timing], sampleSizes: [size])
    }

    /// A queue over `total` buffers of `size` bytes; counts how many were made.
    static func queue(capacity: Int, budget: Int?, size: Int, total: Int) -> (SampleQueue, Locked<Int>) {
        let made = Locked(0)
        let queue = SampleQueue(capacity: capacity, byteBudget: budget, producer: { _ in
            let index = made.withLock { n -> Int? in
                guard n < total else { return nil }
                n += 1
                return n - 1
            }
            return try index.map { .buffer(try buffer($0, size: size)) }
        }, onEnd: { _ in })
        return (queue, made)
    }

    @Test("small buffers: as many ahead as the capacity; large ones: only the byte budget's worth, at least one")
    func readAheadStopsAtTheCountOrTheBytes() async throws {
        for (size, expected) in [(100, 256), (1 << 20, 4), (8 << 20, 1)] {
            let (queue, made) = Self.queue(capacity: 256, budget: 4 << 20, size: size, total: 1000)
            queue.prime()
            // Settled once no job runs: nothing more is made while nobody takes.
            await until("the queue stops reading ahead of nobody (\(size)-byte buffers)") { made.withLock { $0 } >= expected && queue.isIdle }
            #expect(made.withLock { $0 } == expected, "\(size)-byte buffers")
            queue.cancel()
        }
    }

    @Test("every buffer is handed out in order, however the budget cuts the batches")
    func everyBufferComesOutInOrder() throws {
        let (queue, made) = Self.queue(capacity: 256, budget: 4 << 20, size: 1 << 20, total: 50)
        var times: [Int64] = []
        while let buffer = queue.take() { times.append(buffer.presentationTimeStamp.value) }
        #expect(times == Array(0..<50))
        #expect(made.withLock { $0 } == 50)
        #expect(queue.ending.map { if case .finished = $0 { true } else { false } } == true)
    }

    /// The calling thread, told apart from others.
    static var threadID: String { String(describing: pthread_self()) }

    /// A queue whose `take()` makes samples inline, over `total` buffers; records, for each sample, the
    /// thread it was made on (`threadID`) and whether the queue asked for it inline (`inlineProducer`)
    /// or in a job, and runs `hook` (with the sample's index) before making it.
    static func inlineQueue(capacity: Int, total: Int, hook: @escaping @Sendable (Int, SampleQueue?) throws -> Void = { _, _ in })
        -> (SampleQueue, Locked<[(thread: String, inline: Bool)]>, Locked<[String]>) {
        let made = Locked<[(thread: String, inline: Bool)]>([])
        let ends = Locked<[String]>([])
        let box = Locked<SampleQueue?>(nil)
        let make = { @Sendable (inline: Bool) throws -> ProducedSample? in
            let index = made.withLock { $0.count }
            guard index < total else { return nil }
            try hook(index, box.withLock { $0 })
            made.withLock { $0.append((Self.threadID, inline)) }
            return .buffer(try buffer(index, size: 100))
        }
        let queue = SampleQueue(capacity: capacity, byteBudget: nil, takesInline: { true }, producer: { _ in try make(false) },
                                inlineProducer: { _ in try make(true) }, onEnd: { end in ends.withLock { $0.append("\(end)") } })
        box.withLock { $0 = queue }
        return (queue, made, ends)
    }

    @Test("a queue that takes inline reads ahead once on an engine thread, then makes each sample on the thread that takes it")
    func inlineTakesMakeOnTheTakingThread() async throws {
        let (queue, made, ends) = Self.inlineQueue(capacity: 8, total: 50)
        queue.prime()
        await until("the first job fills the queue and stops") { made.withLock { $0.count } == 8 && queue.isIdle }
        let (times, taker) = try await onOwnThread { () -> ([Int64], String) in
            var times: [Int64] = []
            while let buffer = queue.take() { times.append(buffer.presentationTimeStamp.value) }
            return (times, Self.threadID)
        }
        #expect(times == Array(0..<50))
        let samples = made.withLock { $0 }
        // The first job's eight on an engine thread; every later one made inline, on the thread that took it.
        #expect(samples.count == 50)
        #expect(samples.prefix(8).allSatisfy { !$0.inline && $0.thread != taker })
        #expect(samples.dropFirst(8).allSatisfy { $0.inline && $0.thread == taker })
        #expect(ends.withLock { $0 } == ["finished"])
    }

    @Test("next() on a queue that takes inline never makes a sample itself: every one comes from a job")
    func inlineQueueStillServesNextFromEngineThreads() async throws {
        let (queue, made, _) = Self.inlineQueue(capacity: 4, total: 30)
        var count = 0
        while await queue.next() != nil { count += 1 }
        #expect(count == 30)
        #expect(made.withLock { $0 }.allSatisfy { !$0.inline })
    }

    @Test("a cancellation while take() makes a sample inline ends the queue cancelled; the sample is dropped")
    func cancelWhileMakingInline() throws {
        let (queue, _, ends) = Self.inlineQueue(capacity: 4, total: 50) { index, queue in
            if index == 20 { queue?.cancel() }
        }
        var count = 0
        while queue.take() != nil { count += 1 }
        #expect(count == 20)
        #expect(queue.ending?.isCancellation == true)
        #expect(ends.withLock { $0 }.isEmpty)
    }

    @Test("a producer that fails while take() makes a sample inline fails the queue, after the samples before it")
    func failureWhileMakingInline() throws {
        struct Broken: Error {}
        let (queue, _, ends) = Self.inlineQueue(capacity: 4, total: 50) { index, _ in
            if index == 20 { throw Broken() }
        }
        var count = 0
        while queue.take() != nil { count += 1 }
        #expect(count == 20)
        if case .failed? = queue.ending {} else { Issue.record("the queue ended \(String(describing: queue.ending))") }
        #expect(ends.withLock { $0 }.count == 1 && ends.withLock { $0 }.first?.hasPrefix("failed") == true)
    }

    /// A stream's packets lent from a shelf (as stored samples are), read on the queue's engine thread.
    final class LendingSource: @unchecked Sendable {
        // @unchecked Sendable: `reader` is touched only by the queue's one job at a time.
        let shelf = PacketShelf()
        private var reader: StreamReader?

        func next(_ token: CancellationToken) throws -> ProducedSample? {
            if reader == nil {
                reader = try StreamReader(source: FileByteSource(path: Fixtures.path("av.mp4")), options: DemuxerOptions(), streamIndex: 0,
                                          forPackets: true, cancellation: token)
            }
            guard let reader, let lent = try reader.nextPacket(token, lendingFrom: shelf) else { return nil }
            return .packet(StoredPacket(lent: lent, formatDescription: nil, timeBase: reader.timeBase))
        }
    }

    @Test("stored packets wait lent, become buffers of their bytes when taken, and go back to their shelf when the queue is cancelled or dropped")
    func lentPacketsGoBack() async throws {
        let sizes = try await IOExecutor.shared.run { token in
            let reader = try StreamReader(source: FileByteSource(path: Fixtures.path("av.mp4")), options: DemuxerOptions(), streamIndex: 0,
                                          forPackets: true, cancellation: token)
            let shelf = PacketShelf()
            return try withExtendedLifetime(shelf) {
                try (0..<3).map { _ in
                    let lent = try #require(try reader.nextPacket(token, lendingFrom: shelf))
                    defer { lent.giveBack() }
                    return lent.bytes.count
                }
            }
        }
        for dropping in [false, true] {
            let source = LendingSource()
            var queue: SampleQueue? = SampleQueue(capacity: 32, byteBudget: nil, producer: source.next, onEnd: { _ in })
            queue?.prime()
            await until("the queue is full") { queue?.isIdle == true }
            #expect(source.shelf.packetsOut == 32)
            // Three taken of 32 start no job (that waits for half the capacity).
            let taken = (0..<3).compactMap { _ in queue?.take() }
            #expect(taken.map { CMSampleBufferGetDataBuffer($0).map(CMBlockBufferGetDataLength) } == sizes)
            #expect(taken.map(\.presentationTimeStamp.isValid) == [true, true, true])
            // Taken packets went back as their buffers were made; the queue holds the rest, lent.
            #expect(source.shelf.packetsOut == 29)
            if dropping { queue = nil } else { queue?.cancel() }
            #expect(source.shelf.packetsOut == 0, dropping ? "dropped" : "cancelled")
            withExtendedLifetime(queue) {}
        }
    }
}
