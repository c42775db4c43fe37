import Foundation
internal import Locking

/// The engine's own threads, where the blocking FFmpeg work of loads, images, readers, writers and
/// exports runs, never on Swift's cooperative pool. (Two kinds of FFmpeg work run elsewhere: the
/// player's sound on its render thread, `AudioRenderer`'s, and `CGImage`'s PNG and JPEG coding on the
/// caller's thread.)
///
/// Threads start lazily as work arrives, up to `maxThreads`, and then wait for more work; jobs beyond
/// that queue in order. `run` bridges one job to `async`: cancelling the calling task sets the job's
/// `CancellationToken`, which FFmpeg's interrupt callback and byte sources read, so a blocked open or
/// read ends promptly with `MediaEngineError.Code.cancelled`. A job cancelled while still queued never
/// runs, and its caller returns at once without waiting for a thread.
package final class IOExecutor: Sendable {
    /// The process-wide executor. Sixteen threads: enough that slow sources (a remote server, a resource
    /// loader delegate) do not starve local file work, few enough to stay cheap when idle.
    package static let shared = IOExecutor(maxThreads: 16)

    /// Threads for decoding work that only computes (no reads, no waits): as many as the machine has
    /// cores (two at least), apart from `shared`, so that a burst of it never queues a load or a
    /// read behind it. `SegmentedAudioDecoder` decodes its segments here.
    package static let compute = IOExecutor(maxThreads: max(2, ProcessInfo.processInfo.activeProcessorCount), name: "avocet-compute")

    private struct Job {
        let cancellation: CancellationToken?
        let body: @Sendable () -> Void
    }

    private struct State {
        /// Queued jobs from `head` on; a slot is emptied when its job is taken, so a finished job's
        /// closure (and whatever it captured: an asset, its facts) is released at once.
        var jobs: [Job?] = []
        var head = 0
        var threads = 0
        var idle = 0
        var started = 0
        /// Workers blocked in `parking(_:)`: they do not count against `maxThreads` while they wait.
        var parked = 0
        var running = 0
    }

    private let maxThreads: Int
    /// The state, and idle workers' signal that work has arrived: one lock, glibc's mutex inside
    /// `NSCondition`. Not `Locked` (Swift 6.3's `Mutex`, a priority-inheritance futex on Linux, whose
    /// unlock hands the lock to the longest sleeper): with sixteen workers and the cooperative pool
    /// submitting, each hand-over waited for a sleeper to be scheduled on a busy machine, and a burst
    /// of 200 loads held both pool threads asleep in `submit` for hundreds of milliseconds at a time
    /// (swiftlang/swift#88440). glibc's mutex lets a thread take a free lock at once.
    private let guarded = Guarded()

    private final class Guarded: @unchecked Sendable {
        // @unchecked Sendable: `state` is touched only while holding `condition`.
        let condition = NSCondition()
        var state = State()
    }

    /// Runs `body` on the state, holding the lock.
    private func withState<T>(_ body: (inout State) -> T) -> T {
        guarded.condition.lock()
        defer { guarded.condition.unlock() }
        return body(&guarded.state)
    }

    private let name: String

    package init(maxThreads: Int, name: String = "avocet-io") {
        precondition(maxThreads > 0)
        self.maxThreads = maxThreads
        self.name = name
    }

    /// How many jobs have started running (skipped cancelled jobs do not count). For tests.
    package var startedJobs: Int { withState { $0.started } }

    /// How many jobs wait for a thread, cancelled ones included until a thread passes them. For tests.
    package var queuedJobs: Int { withState { $0.jobs.count - $0.head } }

    /// How many jobs are running now, parked ones included. For tests.
    package var runningJobs: Int { withState { $0.running } }

    /// How many running jobs wait in `parking(_:)` now. For tests.
    package var parkedJobs: Int { withState { $0.parked } }

    /// The executor whose worker is the calling thread, if any.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `wait`, a blocking wait for something slow outside the process (a resource loader delegate, a
    /// server), with the calling worker set aside: while it waits it does not count against
    /// `maxThreads`, and another thread starts if jobs are queued, so that local work never waits
    /// behind a silent delegate. On a thread that is not an engine worker it just runs `wait`.
    package static func parking<T>(_ wait: () throws -> T) rethrows -> T {
        guard let raw = pthread_getspecific(currentKey) else { return try wait() }
        let executor = Unmanaged<IOExecutor>.fromOpaque(raw).takeUnretainedValue()
        let startThread = executor.withState { s -> Bool in
            s.parked += 1
            if s.jobs.count - s.head > s.idle && s.threads - s.parked < executor.maxThreads {
                s.threads += 1
                return true
            }
            return false
        }
        if startThread { executor.startThread() }
        defer { executor.withState { $0.parked -= 1 } }
        return try wait()
    }

    /// Runs `body` on an engine thread and returns its result. The token passed in is cancelled when the
    /// calling task is; `body` should hand it to FFmpeg and to byte sources. A task cancelled before its
    /// job starts gets `MediaEngineError.Code.cancelled` at once, and the job never runs.
    package func run<T: Sendable>(_ body: @escaping @Sendable (CancellationToken) throws -> T) async throws -> T {
        let token = CancellationToken()
        let pending = PendingJob<T>()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingHandOffContinuation { (continuation: UnsafeContinuation<T, any Error>) in
                guard pending.attach(continuation) else { return }
                submit(cancellation: token) {
                    guard pending.start() else { return }
                    pending.finish(Result { try body(token) })
                }
            }
        } onCancel: {
            token.cancel()
            pending.abandon()
        }
    }

    /// Queues a job; starts a thread when queued jobs outnumber idle workers and the limit allows. A job
    /// whose `cancellation` is set by the time a thread reaches it is dropped without running.
    package func submit(cancellation: CancellationToken? = nil, _ job: @escaping @Sendable () -> Void) {
        let startThread = withState { s -> Bool in
            s.jobs.append(Job(cancellation: cancellation, body: job))
            // An idle worker wakes for it (signalled under the lock, so none misses it).
            guarded.condition.signal()
            // More queued jobs than idle workers: another thread, so one blocked job never delays the next.
            if s.jobs.count - s.head > s.idle && s.threads - s.parked < maxThreads {
                s.threads += 1
                return true
            }
            return false
        }
        if startThread { self.startThread() }
    }

    /// Runs `body` over bytes that a slow feeder brings, holding an engine thread only while bytes are
    /// here to work on: it first waits (with no thread) for the feeder's first bytes, then runs `body`
    /// with reads that give up at once on bytes not yet arrived; after such an attempt it waits, with no
    /// thread, for those bytes and runs `body` again from the start over the grown cache. An attempt is
    /// cheap (it re-reads memory), so this suits header parses, not long reads. After `maxAttempts` the
    /// last attempt waits for its bytes on its thread (set aside by `parking`), so a working set larger
    /// than the cache still ends; over a feeder that says all its bytes are at hand on demand, the first
    /// attempt already waits that way (its answers come at once, and restarts would only repeat work).
    /// `completion` runs once, on whichever thread ends the work; never when `cancellation` fires before
    /// a thread takes the job (the canceller answers its callers then).
    package func submitRestarting<T: Sendable>(
        over feed: BufferedByteSource, cancellation token: CancellationToken, maxAttempts: Int = 8,
        _ body: @escaping @Sendable (CancellationToken) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        /// Runs `next` once the byte at `offset` is here; ends the work with the feed's failure instead.
        @Sendable func onceReadable(at offset: Int64, _ next: @escaping @Sendable () -> Void) {
            feed.whenReadable(at: offset, cancellation: token) { arrival in
                if case .failure(let error) = arrival { return completion(.failure(error)) }
                next()
            }
        }
        @Sendable func attempt(_ number: Int) {
            token.missingBytes = number < maxAttempts ? .giveUp : .wait
            token.clearMissingBytes()
            submit(cancellation: token) {
                let result = Result { try body(token) }
                guard let missed = token.missedOffset else { return completion(result) }
                // A result built on a read that gave up is never passed on, even a success.
                if token.isCancelled {
                    return completion(.failure(MediaEngineError(.cancelled, source: feed.name, operation: "read",
                                                                reason: "the operation was cancelled")))
                }
                onceReadable(at: missed) { attempt(number + 1) }
            }
        }
        // A new load asks the feeder again, whatever failed before (a timeout, a server error).
        feed.recoverIfFailed()
        onceReadable(at: 0) {
            // A feeder that says everything is at hand (local storage) answers at once: waiting for it
            // on the thread costs less than parsing again after each of its many small answers.
            attempt(feed.contentInfo?.isEntireLengthAvailableOnDemand == true ? maxAttempts : 1)
        }
    }

    private func startThread() {
        let thread = Thread { [self] in
            pthread_setspecific(IOExecutor.currentKey, Unmanaged.passUnretained(self).toOpaque())
            workerLoop()
        }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
    }

    private func nextJob() -> Job? {
        // Jobs cancelled while queued are let go after the lock is released: their closures may hold
        // the last reference to objects whose deinit submits work here (a generator's readers).
        var dropped: [Job] = []
        let job = withState { s -> Job? in
            while s.head < s.jobs.count {
                let taken = s.jobs[s.head]
                s.jobs[s.head] = nil
                s.head += 1
                if s.head == s.jobs.count {
                    s.jobs.removeAll(keepingCapacity: true)
                    s.head = 0
                } else if s.head > 64 && s.head * 2 > s.jobs.count {
                    s.jobs.removeFirst(s.head)
                    s.head = 0
                }
                guard let job = taken else { continue }
                guard job.cancellation?.isCancelled != true else {
                    dropped.append(job)
                    continue
                }
                s.started += 1
                s.running += 1
                return job
            }
            return nil
        }
        dropped.removeAll()
        return job
    }

    private func workerLoop() {
        while true {
            var job = nextJob()
            if job != nil {
                job?.body()
                // Its captures (sources it opened) are let go before the job counts as finished.
                job = nil
                // A parked worker that came back may leave more active threads than allowed: one leaves.
                let surplus = withState { s -> Bool in
                    s.running -= 1
                    guard s.threads - s.parked > maxThreads else { return false }
                    s.threads -= 1
                    return true
                }
                if surplus { return }
                continue
            }
            // Checked under the condition's lock, so a signal sent after nextJob() is not lost.
            guarded.condition.lock()
            guarded.state.idle += 1
            while guarded.state.head >= guarded.state.jobs.count {
                guarded.condition.wait()
            }
            guarded.state.idle -= 1
            guarded.condition.unlock()
        }
    }
}

/// One `run` call's continuation and whether its job has started, so that exactly one of the worker
/// (which runs the job) and the cancellation handler (which abandons a job still queued) resumes it.
private final class PendingJob<T: Sendable>: Sendable {
    private enum Phase {
        case waiting
        case queued(UnsafeContinuation<T, any Error>)
        case running(UnsafeContinuation<T, any Error>)
        case abandoned
        case done
    }

    private let phase = Locked(Phase.waiting)

    private static var cancelled: MediaEngineError {
        MediaEngineError(.cancelled, source: "", operation: "run", reason: "the operation was cancelled")
    }

    /// Records the continuation; false (after resuming it with a cancellation) when the caller was
    /// cancelled before the job was even queued.
    func attach(_ continuation: UnsafeContinuation<T, any Error>) -> Bool {
        let queued = phase.withLock { p -> Bool in
            guard case .waiting = p else { return false }
            p = .queued(continuation)
            return true
        }
        if !queued { continuation.resume(throwing: PendingJob.cancelled) }
        return queued
    }

    /// Called by the worker before running the job: false when the job was abandoned meanwhile.
    func start() -> Bool {
        phase.withLock { p in
            guard case .queued(let continuation) = p else { return false }
            p = .running(continuation)
            return true
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let continuation = phase.withLock { p -> UnsafeContinuation<T, any Error>? in
            guard case .running(let continuation) = p else { return nil }
            p = .done
            return continuation
        }
        continuation?.resume(with: result)
    }

    /// The caller was cancelled: a job not yet started is dropped and its caller resumed now; a running
    /// job ends by itself once it sees the token.
    func abandon() {
        let continuation = phase.withLock { p -> UnsafeContinuation<T, any Error>? in
            switch p {
            case .waiting:
                p = .abandoned
                return nil
            case .queued(let continuation):
                p = .abandoned
                return continuation
            case .running, .abandoned, .done:
                return nil
            }
        }
        continuation?.resume(throwing: PendingJob.cancelled)
    }
}
