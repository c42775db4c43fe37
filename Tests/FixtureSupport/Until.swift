import Foundation
import Testing

/// Waits until `condition` holds, for at most `timeout` seconds times `TestTiming.scale`, and returns
/// whether it did. When the deadline passes first it records an issue naming `what` was waited for, so
/// a test that waits needs no `#expect` of its own (it may still `guard` on the answer to stop early).
///
/// The deadline is a limit for a hang, not a pace: the wait ends as soon as the condition holds (see
/// `poll`). A cancelled task stops waiting at once (false, and no issue: the cancellation is the story).
@discardableResult
package func until(_ what: @autoclosure () -> String, timeout: Double = 10,
                   sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: () throws -> Bool) async rethrows -> Bool {
    try await until(what(), timeout: timeout, sourceLocation: sourceLocation) { () async throws -> Bool in try condition() }
}

/// `until` for a condition that must itself wait (an actor's state, a `load`).
@discardableResult
package func until(_ what: @autoclosure () -> String, timeout: Double = 10,
                   sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: () async throws -> Bool) async rethrows -> Bool {
    if try await poll(timeout: timeout, condition) { return true }
    if !Task.isCancelled {
        Issue.record("waited \(TestTiming.seconds(timeout)) for \(what())", sourceLocation: sourceLocation)
    }
    return false
}

/// `until` without the issue, for the test tools that run outside a test (avocet-stress): true once
/// `condition` holds, false when `timeout` seconds times `TestTiming.scale` pass first or the task is
/// cancelled. It looks every couple of milliseconds and sleeps in between without holding a thread of
/// Swift's cooperative pool; a last look after the deadline covers a task that waited for a thread.
package func poll(timeout: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    try await poll(timeout: timeout) { () async throws -> Bool in try condition() }
}

/// `poll` for a condition that must itself wait.
package func poll(timeout: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + TestTiming.seconds(timeout)
    while true {
        if try await condition() { return true }
        if Task.isCancelled { return false }
        if ContinuousClock.now >= deadline { return try await condition() }
        try? await Task.sleep(for: .milliseconds(2))
    }
}
