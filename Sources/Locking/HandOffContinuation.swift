// Continuations that ThreadSanitizer can follow.
//
// With Swift 6.3 on Linux, the concurrency runtime tells ThreadSanitizer of a release on the task when
// a continuation resumes it, but of no acquire when the task goes on, so whatever the resuming thread
// wrote before `resume` looks to ThreadSanitizer like a race with what the task reads after the
// `await` (scripts/tsan-continuation-repro.sh shows it without Avocet; acquiring on the task's address
// after the await, as these do, silences it). Each of these is the standard function of the same
// shape followed by that acquire; without ThreadSanitizer's runtime the acquire is a nil check. The
// package uses them for every continuation.

/// `withCheckedContinuation`, and what the resuming thread did is seen by ThreadSanitizer as done
/// before the code after it.
package func withHandOffContinuation<T>(
    isolation: isolated (any Actor)? = #isolation, function: String = #function,
    _ body: (CheckedContinuation<T, Never>) -> Void
) async -> sending T {
    let value = await withCheckedContinuation(isolation: isolation, function: function, body)
    ThreadSanitizer.acquireCurrentTask()
    return value
}

/// `withCheckedThrowingContinuation`, followed by the acquire of `withHandOffContinuation`.
package func withThrowingHandOffContinuation<T>(
    isolation: isolated (any Actor)? = #isolation, function: String = #function,
    _ body: (CheckedContinuation<T, any Error>) -> Void
) async throws -> sending T {
    defer { ThreadSanitizer.acquireCurrentTask() }
    return try await withCheckedThrowingContinuation(isolation: isolation, function: function, body)
}

/// `withUnsafeThrowingContinuation`, followed by the acquire of `withHandOffContinuation`.
package func withUnsafeThrowingHandOffContinuation<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (UnsafeContinuation<T, any Error>) -> Void
) async throws -> sending T {
    defer { ThreadSanitizer.acquireCurrentTask() }
    return try await withUnsafeThrowingContinuation(isolation: isolation, body)
}
