import Foundation

/// Runs `body`, cancelling it after `seconds`; its result, or `CancellationError` once cancelled.
///
/// The work runs in a child task; a sleeping sibling cancels it at the deadline. Avocet stops its
/// FFmpeg work when its task is cancelled, so the answer comes within the deadline plus the time
/// FFmpeg takes to notice.
func withDeadline<T: Sendable>(seconds: TimeInterval, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: DeadlineBox<T>?.self) { group in
        group.addTask { DeadlineBox(try await body()) }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            return nil
        }
        defer { group.cancelAll() }
        while let next = try await group.next() {
            if let box = next { return box.value }
            throw CancellationError()
        }
        throw CancellationError()
    }
}

/// A result carried out of `withDeadline`'s child task. A class rather than `T` itself as the group's
/// element: Swift 6.3's optimised builds mishandle some large child results (see avtool's
/// `Inspect.Outcome`); a reference sidesteps that.
final class DeadlineBox<T: Sendable>: Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
