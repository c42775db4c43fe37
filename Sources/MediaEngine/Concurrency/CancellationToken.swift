import Foundation
internal import Locking
import Synchronization

/// A one-way cancellation flag shared by an async caller and the engine thread doing its work.
///
/// `isCancelled` is a lock-free atomic load, cheap enough for FFmpeg's interrupt callback, which runs
/// on every blocking step. `wait(seconds:)` lets a byte source that must pause (a slow or remote
/// source) sleep on an engine thread and wake the moment the caller cancels; `onCancel(_:)` lets
/// anything else waiting (a buffered source's readers, an async waiter) be woken by a callback rather
/// than by polling.
///
/// A token also says what its operation does when bytes it reads have not arrived yet
/// (`MissingBytes`): wait for them, or give up at once and let the caller run the operation again once
/// they have come (`BufferedByteSource` explains why).
package final class CancellationToken: Sendable {
    /// What a read of bytes that have not arrived yet does.
    package enum MissingBytes: UInt8, Sendable {
        /// Waits on the calling engine thread until they arrive, fail, time out or the token is cancelled.
        case wait
        /// Records the offset (`missedOffset`) and fails the read at once, so that the engine thread is
        /// free while a slow feeder takes its time. The operation is then worthless and must be run again.
        case giveUp
    }

    private let flag = Atomic<Bool>(false)
    private let condition = NSCondition()
    private let policy: Atomic<UInt8>
    /// The first offset a `.giveUp` read could not serve, or -1.
    private let missed = Atomic<Int64>(-1)
    private let callbacks = Locked<(next: Int, pending: [Int: @Sendable () -> Void])>((0, [:]))
    /// Bytes the operation may still move from a slow source (asked of its feeder, or read); -1: no limit.
    private let budget: Atomic<Int64>
    private let overspent = Atomic<Bool>(false)

    /// `readBudget`: how many bytes the operation may ask of a feeder and read from it in all (see
    /// `charge(_:)`); nil for no limit. A header parse has one: a source that claims an endless length
    /// and answers every range with noise must not keep a demuxer looking for a header forever.
    package init(missingBytes: MissingBytes = .wait, readBudget: Int64? = nil) {
        policy = Atomic(missingBytes.rawValue)
        budget = Atomic(readBudget.map { max(0, $0) } ?? -1)
    }

    package var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag, wakes every thread blocked in `wait(seconds:)` and runs every `onCancel` callback
    /// (on the calling thread, outside any lock). Safe from any thread, idempotent.
    package func cancel() {
        flag.store(true, ordering: .releasing)
        condition.lock()
        condition.broadcast()
        condition.unlock()
        let pending = callbacks.withLock { c -> [@Sendable () -> Void] in
            let all = Array(c.pending.values)
            c.pending = [:]
            return all
        }
        for callback in pending { callback() }
    }

    /// Runs `callback` once when the token is cancelled: at once (on this thread) if it already is.
    /// Returns a key for `removeOnCancel(_:)`, or nil when the callback already ran.
    @discardableResult
    package func onCancel(_ callback: @escaping @Sendable () -> Void) -> Int? {
        let key = callbacks.withLock { c -> Int? in
            // Checked under the lock that `cancel()` empties the table with: no callback is lost.
            if isCancelled { return nil }
            c.next += 1
            c.pending[c.next] = callback
            return c.next
        }
        if key == nil { callback() }
        return key
    }

    /// Forgets a callback that is no longer needed (its wait ended another way).
    package func removeOnCancel(_ key: Int?) {
        guard let key else { return }
        _ = callbacks.withLock { $0.pending.removeValue(forKey: key) }
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

    // MARK: - Read budget

    /// Takes `bytes` from the read budget; false once it is spent (and from then on).
    package func charge(_ bytes: Int64) -> Bool {
        while true {
            let left = budget.load(ordering: .acquiring)
            if left < 0 { return true }
            let after = left - min(left, max(0, bytes))
            if bytes > left {
                budget.store(0, ordering: .releasing)
                overspent.store(true, ordering: .releasing)
                return false
            }
            if budget.compareExchange(expected: left, desired: after, ordering: .acquiringAndReleasing).exchanged { return true }
        }
    }

    /// Whether the operation asked for more than its read budget allowed: its result is worthless.
    package var isOverBudget: Bool { overspent.load(ordering: .acquiring) }

    // MARK: - Missing bytes

    /// What reads under this token do when bytes have not arrived yet.
    package var missingBytes: MissingBytes {
        get { MissingBytes(rawValue: policy.load(ordering: .acquiring)) ?? .wait }
        set { policy.store(newValue.rawValue, ordering: .releasing) }
    }

    /// Called by a byte source that gave up on a read under `.giveUp`; the first offset is kept.
    package func noteMissingBytes(at offset: Int64) {
        _ = missed.compareExchange(expected: -1, desired: max(0, offset), ordering: .acquiringAndReleasing)
    }

    /// The first offset a read gave up on since the last `clearMissingBytes()`, or nil: when set, the
    /// operation's result (even a success) was built on a failed read and must be thrown away.
    package var missedOffset: Int64? {
        let value = missed.load(ordering: .acquiring)
        return value < 0 ? nil : value
    }

    package func clearMissingBytes() {
        missed.store(-1, ordering: .releasing)
    }
}
