import MediaEngine
import Dispatch
import Foundation
import Synchronization

/// Byte sources that misbehave on purpose, wrapping a real file whose name and size they report.
package protocol FileWrappingSource: ByteSource {
    var base: FileByteSource { get }
}

extension FileWrappingSource {
    package var name: String { base.name }
    package func size(cancellation: CancellationToken) throws -> Int64? { try base.size(cancellation: cancellation) }
}

/// Reads at most `chunk` bytes per call: FFmpeg must cope with short reads.
package final class ShortReadSource: FileWrappingSource {
    package let base: FileByteSource
    package let chunk: Int
    package init(path: String, chunk: Int) throws {
        base = try FileByteSource(path: path)
        self.chunk = chunk
    }
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        let n = min(chunk, buffer.count)
        return try base.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]), cancellation: cancellation)
    }
}

/// Fails every read at or past `failAt`, as a disk or network error would.
package final class FailingSource: FileWrappingSource {
    package let base: FileByteSource
    package let failAt: Int64
    package init(path: String, failAt: Int64) throws {
        base = try FileByteSource(path: path)
        self.failAt = failAt
    }
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        if offset + Int64(buffer.count) > failAt {
            throw MediaEngineError(.readFailed, source: name, operation: "read", reason: "simulated disk error at byte \(failAt)")
        }
        return try base.read(at: offset, into: buffer, cancellation: cancellation)
    }
}

/// Waits `delay` seconds before each read. With `honoursCancellation` it wakes at once when cancelled
/// (as a well-behaved network source does); without, it sleeps the whole delay regardless.
package final class SlowSource: FileWrappingSource {
    package let base: FileByteSource
    package let delay: Double
    package let honoursCancellation: Bool
    /// Reads started.
    package let reads = Atomic<Int>(0)
    /// Reads returned or thrown: fewer than `reads` while one is in progress.
    package let readsEnded = Atomic<Int>(0)
    package init(path: String, delay: Double, honoursCancellation: Bool) throws {
        base = try FileByteSource(path: path)
        self.delay = delay
        self.honoursCancellation = honoursCancellation
    }
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        reads.add(1, ordering: .relaxed)
        defer { readsEnded.add(1, ordering: .relaxed) }
        if honoursCancellation {
            if cancellation.wait(seconds: delay) {
                throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled while waiting")
            }
        } else {
            Thread.sleep(forTimeInterval: delay)
        }
        return try base.read(at: offset, into: buffer, cancellation: cancellation)
    }
}

/// Holds every read until `open()` (or the read is cancelled, or a minute passes): a load sits in its
/// first read for as long as a test needs to look at it, however busy the machine, and finishes as soon
/// as the test lets it.
package final class GatedSource: FileWrappingSource {
    package let base: FileByteSource
    /// Reads started.
    package let reads = Atomic<Int>(0)
    private let gate = CancellationToken()
    package init(path: String) throws {
        base = try FileByteSource(path: path)
    }
    /// Lets every read, held or to come, through.
    package func open() { gate.cancel() }
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        reads.add(1, ordering: .relaxed)
        let woken = DispatchSemaphore(value: 0)
        let opened = gate.onCancel { woken.signal() }
        let cancelled = cancellation.onCancel { woken.signal() }
        _ = woken.wait(timeout: .now() + 60)
        gate.removeOnCancel(opened)
        cancellation.removeOnCancel(cancelled)
        if cancellation.isCancelled {
            throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled while held")
        }
        return try base.read(at: offset, into: buffer, cancellation: cancellation)
    }
}
