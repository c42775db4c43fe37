import Foundation
import Synchronization

/// The engine's own threads: every blocking FFmpeg call runs here, never on Swift's cooperative pool.
///
/// Threads start lazily as work arrives, up to `maxThreads`, and then wait for more work; jobs beyond
/// that queue in order. `run` bridges one job to `async`: cancelling the calling task sets the job's
/// `CancellationToken`, which FFmpeg's interrupt callback and byte sources read, so a blocked open or
/// read ends promptly with `MediaEngineError.Code.cancelled`.
package final class IOExecutor: Sendable {
    /// The process-wide executor. Sixteen threads: enough that slow sources (a remote server, a resource
    /// loader delegate) do not starve local file work, few enough to stay cheap when idle.
    package static let shared = IOExecutor(maxThreads: 16)

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var threads = 0
        var idle = 0
    }

    private let maxThreads: Int
    private let state = Mutex(State())
    /// Signals idle workers that work has arrived.
    private let wakeup = NSCondition()

    package init(maxThreads: Int) {
        precondition(maxThreads > 0)
        self.maxThreads = maxThreads
    }

    /// Runs `body` on an engine thread and returns its result. The token passed in is cancelled when the
    /// calling task is; `body` should hand it to FFmpeg and to byte sources. If the task is already
    /// cancelled the job still runs, sees the token set and should end at once.
    package func run<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> T) async throws -> T {
        let token = CancellationToken()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
                if Task.isCancelled { token.cancel() }
                submit {
                    continuation.resume(with: Result { try body(token) })
                }
            }
        } onCancel: {
            token.cancel()
        }
    }

    /// Queues a job; starts a thread when queued jobs outnumber idle workers and the limit allows.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        let startThread = state.withLock { s -> Bool in
            s.jobs.append(job)
            // More queued jobs than idle workers: another thread, so one blocked job never delays the next.
            if s.jobs.count - s.head > s.idle && s.threads < maxThreads {
                s.threads += 1
                return true
            }
            return false
        }
        if startThread {
            let thread = Thread { [self] in workerLoop() }
            thread.name = "avocet-io"
            thread.stackSize = 4 << 20
            thread.start()
        }
        wakeup.lock()
        wakeup.signal()
        wakeup.unlock()
    }

    private func nextJob() -> (@Sendable () -> Void)? {
        state.withLock { s in
            guard s.head < s.jobs.count else { return nil }
            let job = s.jobs[s.head]
            s.head += 1
            if s.head > 64 && s.head * 2 > s.jobs.count {
                s.jobs.removeFirst(s.head)
                s.head = 0
            }
            return job
        }
    }

    private func workerLoop() {
        while true {
            if let job = nextJob() {
                job()
                continue
            }
            wakeup.lock()
            state.withLock { $0.idle += 1 }
            // Re-check under the condition's lock so a signal sent after nextJob() is not lost.
            while state.withLock({ $0.head >= $0.jobs.count }) {
                wakeup.wait()
            }
            state.withLock { $0.idle -= 1 }
            wakeup.unlock()
        }
    }
}
