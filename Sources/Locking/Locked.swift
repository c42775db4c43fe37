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
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: the value is reached only through the Mutex.
    // Reachable from inlinable code so that `withLock` is specialised and inlined where it is called:
    // unspecialised, each call looks its generic types up at run time, which costs more than the lock.
    // (The type is public, not `package`, for the same reason: Swift 6.3 does not inline a `package`
    // function into another module, `@inlinable` or not. The Locking module is no product of its own.)
    @usableFromInline let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value, holding the lock; `body` must not take this lock again.
    @inlinable
    public func withLock<Result: ~Copyable, E: Error>(
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

extension Locked where Value == Void {
    /// A lock that guards its owner's fields rather than a value of its own (the owner is
    /// `@unchecked Sendable` and touches those fields only inside `withLock`).
    public convenience init() {
        self.init(())
    }

    /// Runs `body` holding the lock, and returns what it returns or throws what it throws. Unlike the
    /// value form, the result need not be `sending`: it is made under the lock from the owner's fields.
    /// `body` must not take this lock again.
    @inlinable
    public func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        var outcome: Swift.Result<Result, E>?
        withLock { (_: inout Void) -> Void in
            outcome = Swift.Result { () throws(E) -> Result in try body() }
        }
        // The closure above always runs before `withLock` returns; nothing outside reaches this.
        guard let outcome else { fatalError("Locked.withLock: the body did not run") }
        return try outcome.get()
    }
}
