#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ThreadSanitizer's annotation entry points, present only when its runtime is linked in (a
/// `-sanitize=thread` build); otherwise nil, and each annotation costs one load of a nil pointer.
@usableFromInline
enum ThreadSanitizer {
    @usableFromInline typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    @usableFromInline static let acquire: Annotation? = lookUp("__tsan_acquire")
    @usableFromInline static let release: Annotation? = lookUp("__tsan_release")

    /// Acquires on the running task's address, where the concurrency runtime releases when a
    /// continuation resumes the task (see `withHandOffContinuation`).
    static func acquireCurrentTask() {
        guard let acquire else { return }
        withUnsafeCurrentTask { task in
            guard let task else { return }
            // UnsafeCurrentTask is the task's pointer and nothing else.
            acquire(unsafeBitCast(task, to: UnsafeMutableRawPointer.self))
        }
    }

    private static func lookUp(_ name: String) -> Annotation? {
        // RTLD_DEFAULT is the null handle: search the process's global symbols.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: Annotation.self)
    }
}
