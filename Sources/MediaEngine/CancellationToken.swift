import Foundation
import Synchronization

/// A one-way cancellation flag shared by an async caller and the engine thread doing its work.
///
/// `isCancelled` is a lock-free atomic load, cheap enough for FFmpeg's interrupt callback, which runs
/// on every blocking step. `wait(seconds:)` lets a byte source that must pause (a slow or remote
/// source) sleep on an engine thread and wake the moment the caller cancels.
package final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)
    private let condition = NSCondition()

    package init() {}

    package var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag and wakes every thread blocked in `wait(seconds:)`. Safe from any thread, idempotent.
    package func cancel() {
        flag.store(true, ordering: .releasing)
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling (engine) thread for up to `seconds`. Returns true if cancelled meanwhile.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !isCancelled {
            if !condition.wait(until: deadline) { break }
        }
        return isCancelled
    }
}
