import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock: `Synchronization.Mutex`, with each hand-over told to ThreadSanitizer.
///
/// On Linux, `Mutex` waits through the kernel's futex, which ThreadSanitizer cannot see, so every
/// access made under it looks like a race to a `-sanitize=thread` build. `Locked` takes the same
/// mutex and, when the process runs with ThreadSanitizer's runtime, announces an acquire when it
/// has the lock and a release before it lets go (`__tsan_acquire` / `__tsan_release`, looked up once;
/// without the runtime they are absent and cost one load of a nil pointer). Use it wherever the
/// package would use `Mutex`; the signature of `withLock` is `Mutex`'s.
///
/// Costs one heap allocation per lock (the address is what ThreadSanitizer keys on); uncontended,
/// a lock and an unlock are two atomic operations, as with `Mutex`.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: the value is reached only through the Mutex.
    private let mutex: Mutex<Value>

    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, holding the lock; `body` must not take this lock again.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let token = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizer.acquire?(token)
            defer { ThreadSanitizer.release?(token) }
            return try body(&value)
        }
    }
}
