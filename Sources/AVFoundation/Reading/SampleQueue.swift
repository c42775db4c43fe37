internal import MediaEngine
import Foundation
internal import Locking

/// The sample buffers of one reader output, made ahead of their reader on the engine's threads and
/// held in a short queue: `take()` blocks its caller until the next is made (Apple's
/// `copyNextSampleBuffer()`), `next()` awaits it without holding a thread. A stored packet waits as
/// the packet its engine thread read, and becomes a buffer on the thread that takes it (`StoredPacket`).
///
/// Work is demand-driven: a job runs on an engine thread only while the queue has room and a reader
/// wants more, making buffers until the queue is full, so an output nobody reads holds no thread.
/// Once full, the next job starts when the reader has taken the queue down to half its capacity (or
/// finds it empty), so each job makes a batch of buffers rather than one: a job costs a thread wake,
/// which for small stored samples costs more than the sample; likewise a reader blocked on an empty
/// queue is woken for a batch. A queue may also hold at most a budget of sample bytes (stored samples:
/// many small ones, or a few large ones), and then restarts once under half of it. One job at a time, so the producer is never entered twice. `cancel()`
/// reaches the engine at once (its token stops FFmpeg's reads) and wakes every waiter.
final class SampleQueue: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only under `condition`; the producer only
    // inside the one job that runs at a time.

    /// Makes the next sample on an engine thread; nil at the end.
    typealias Producer = (CancellationToken) throws -> ProducedSample?

    /// How the queue ended.
    enum End {
        case finished
        case failed(any Error)
        case cancelled

        var isCancellation: Bool {
            if case .cancelled = self { return true }
            return false
        }
    }

    private let condition = NSCondition()
    /// The samples made, from `head` on; a slot is emptied as its sample is taken, so the last release
    /// of a buffer (freeing its sample, block and picture) happens at its reader, never under the lock.
    private var buffers: [ProducedSample?] = []
    private var head = 0
    private var producing = false
    private var end: End?
    /// The producer's failure while its owner is being told of it, before `end` records it.
    private var failing: (any Error)?
    private var waiters: [(id: UUID, continuation: Waiter)] = []
    private typealias Waiter = CheckedContinuation<UncheckedBox<ProducedSample?>, Never>
    private let capacity: Int
    /// The most sample bytes queued (`Int.max`: no limit); at least one buffer is always let in.
    private let byteBudget: Int
    /// The sample bytes of the buffers queued (counted only under a budget).
    private var queuedBytes = 0
    /// Taking a buffer starts a job when this many or fewer are left (half the capacity, rounded up:
    /// a queue of three pictures starts one as soon as one is taken).
    private let lowWater: Int
    /// A `take()` blocked on an empty queue is woken once this many buffers are in (half the capacity),
    /// or when the job stops or the queue ends, or for the queue's first buffer.
    private let wakeBatch: Int
    /// Threads blocked in `take()`.
    private var sleepers = 0
    /// Whether a buffer was taken yet.
    private var tookAny = false
    /// Whether `take()` may make the next sample itself, on its caller's thread, when the queue is empty
    /// and no job runs: for a producer whose samples cost less than a thread's wake and never wait on
    /// a network or a delegate (stored samples of a local file read through its sample table). Engine
    /// jobs then start only for the first buffers (`prime()`) and for `next()`, which never makes
    /// samples on its caller's thread. Asked under the lock; the producer's answer may come in its
    /// first job.
    private let takesInline: @Sendable () -> Bool
    private let token = CancellationToken()
    private let producer: Producer
    /// What `take()` calls where it makes a sample itself (`takesInline`): the producer, or a form of
    /// it that makes the sample for the taking thread (a finished buffer rather than a lent packet).
    private let inlineProducer: Producer
    /// Told once when the queue ends by itself, on the thread that ended it: a failure before any caller
    /// sees the end, the last buffer made after.
    private let onEnd: @Sendable (End) -> Void

    init(capacity: Int, byteBudget: Int? = nil, takesInline: @escaping @Sendable () -> Bool = { false }, producer: @escaping Producer,
         inlineProducer: Producer? = nil, onEnd: @escaping @Sendable (End) -> Void) {
        self.takesInline = takesInline
        self.inlineProducer = inlineProducer ?? producer
        self.capacity = max(1, capacity)
        self.byteBudget = max(1, byteBudget ?? .max)
        lowWater = self.capacity - self.capacity / 2
        wakeBatch = max(1, self.capacity / 2)
        self.producer = producer
        self.onEnd = onEnd
    }

    /// Whether no job is making buffers (the queue is full, ended, or waits for a reader).
    var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !producing
    }

    /// How the queue ended, once it has.
    var ending: End? {
        condition.lock()
        defer { condition.unlock() }
        return end
    }

    /// The next buffer, blocking the calling thread while it is made (on an engine thread, or on the
    /// calling thread itself where `takesInline`); nil once the queue has ended and every buffer made
    /// before was taken.
    func take() -> CMSampleBuffer? {
        condition.lock()
        var taken: ProducedSample?
        while true {
            if let sample = popLocked() { taken = sample; break }
            if end != nil { break }
            if !producing && takesInline() {
                taken = makeInlineLocked()
                if taken != nil || end != nil { break }
                continue
            }
            startLocked()
            sleepers += 1
            condition.wait()
            sleepers -= 1
        }
        condition.unlock()
        return taken.flatMap(finish)
    }

    /// Makes the next sample on the calling thread, as the one job running (called and returning
    /// with the lock held, which it lets go meanwhile); nil when the queue ended (the producer's end,
    /// its failure, or a cancellation meanwhile).
    private func makeInlineLocked() -> ProducedSample? {
        producing = true
        condition.unlock()
        let made: Result<ProducedSample?, any Error> = token.isCancelled ? .success(nil) : Result { try inlineProducer(token) }
        if case .failure(let error) = made, !token.isCancelled {
            fail(AVError.converting(error), endsJob: true)
            condition.lock()
            return nil
        }
        condition.lock()
        producing = false
        if end != nil {
            if case .success(let sample?) = made { sample.discard() }
            return nil
        }
        if case .success(let sample?) = made {
            tookAny = true
            return sample
        }
        let ending: End = token.isCancelled ? .cancelled : .finished
        let woken = finishLocked(ending)
        condition.unlock()
        for waiter in woken { waiter.resume(returning: UncheckedBox(nil)) }
        if case .finished = ending { onEnd(.finished) }
        condition.lock()
        return nil
    }

    /// The next buffer, awaited without holding a thread; nil at the end. A cancelled task gets nil
    /// at once (the queue goes on for other callers).
    func next() async -> CMSampleBuffer? {
        let id = UUID()
        let box: UncheckedBox<ProducedSample?> = await withTaskCancellationHandler {
            await withHandOffContinuation { continuation in
                condition.lock()
                if let sample = popLocked() {
                    condition.unlock()
                    continuation.resume(returning: UncheckedBox(sample))
                } else if end != nil || Task.isCancelled {
                    condition.unlock()
                    continuation.resume(returning: UncheckedBox(nil))
                } else {
                    waiters.append((id, continuation))
                    startLocked()
                    condition.unlock()
                }
            }
        } onCancel: {
            condition.lock()
            let index = waiters.firstIndex { $0.id == id }
            let waiter = index.map { waiters.remove(at: $0).continuation }
            condition.unlock()
            waiter?.resume(returning: UncheckedBox(nil))
        }
        return box.value.flatMap(finish)
    }

    /// A taken sample's buffer, made on the taking thread; a failure to make it (out of memory) fails
    /// the queue.
    private func finish(_ sample: ProducedSample) -> CMSampleBuffer? {
        do {
            return try sample.sampleBuffer()
        } catch {
            fail(AVError.converting(error), endsJob: false)
            return nil
        }
    }

    /// Starts making buffers before anyone asks (a reader that starts reads ahead).
    func prime() {
        condition.lock()
        startLocked()
        condition.unlock()
    }

    /// Stops making buffers (the engine's read in flight ends promptly) and ends the queue; buffers
    /// not yet taken are dropped. Does not call `onEnd`.
    func cancel() {
        token.cancel()
        condition.lock()
        // A failure being reported (its owner stops the queue while it hears of it) stays a failure.
        let woken = finishLocked(failing.map { .failed($0) } ?? .cancelled)
        let dropped = buffers
        buffers = []
        head = 0
        queuedBytes = 0
        condition.unlock()
        for sample in dropped { sample?.discard() }
        for waiter in woken { waiter.resume(returning: UncheckedBox(nil)) }
    }

    deinit {
        for sample in buffers { sample?.discard() }
    }

    private func popLocked() -> ProducedSample? {
        guard head < buffers.count, let sample = buffers[head].take() else { return nil }
        head += 1
        queuedBytes -= bytes(of: sample)
        tookAny = true
        if head == buffers.count {
            buffers.removeAll(keepingCapacity: true)
            head = 0
        }
        if buffers.count - head <= lowWater && queuedBytes <= byteBudget / 2 && !takesInline() { startLocked() }
        return sample
    }

    /// The sample bytes a sample counts for against the budget (none without one).
    private func bytes(of sample: ProducedSample) -> Int {
        byteBudget == .max ? 0 : sample.byteCount
    }

    /// Whether another buffer fits: under the capacity and the byte budget.
    private var hasRoomLocked: Bool { buffers.count - head < capacity && queuedBytes < byteBudget }

    /// Starts a job when there is room and none runs.
    private func startLocked() {
        guard !producing, end == nil, hasRoomLocked else { return }
        producing = true
        IOExecutor.shared.submit { [self] in produce() }
    }

    /// The job: makes buffers until the queue is full or ends.
    private func produce() {
        while true {
            let made: Result<ProducedSample?, any Error>
            if token.isCancelled {
                made = .success(nil)
            } else {
                made = Result { try producer(token) }
            }
            if case .failure(let error) = made, !token.isCancelled {
                return fail(AVError.converting(error), endsJob: true)
            }
            condition.lock()
            if end != nil {
                producing = false
                condition.unlock()
                if case .success(let sample?) = made { sample.discard() }
                return
            }
            var woken: [Waiter] = []
            var given: (Waiter, ProducedSample)?
            var ended: End?
            switch made {
            case .success(let sample?):
                if !waiters.isEmpty {
                    given = (waiters.removeFirst().continuation, sample)
                } else {
                    buffers.append(sample)
                    queuedBytes += bytes(of: sample)
                }
            case .success(nil):
                ended = token.isCancelled ? .cancelled : .finished
            case .failure:
                ended = .cancelled
            }
            if let ended { woken = finishLocked(ended) }
            let goesOn = ended == nil && hasRoomLocked
            if !goesOn { producing = false }
            // Woken after the unlock, so that the reader does not wake only to wait for the lock.
            let wakes = sleepers > 0 && (buffers.count - head >= wakeBatch || !goesOn || !tookAny)
            condition.unlock()
            if wakes { condition.broadcast() }
            given.map { $0.0.resume(returning: UncheckedBox($0.1)) }
            for waiter in woken { waiter.resume(returning: UncheckedBox(nil)) }
            if case .finished? = ended { onEnd(.finished) }
            if !goesOn { return }
        }
    }

    /// Making a sample failed: in the producer's job (`endsJob`: the job stops here), or on the taking
    /// thread (its buffer could not be made; a job making samples meanwhile stops at its next one). The
    /// owner hears it first (a reader then reads `.failed`), and only then do callers see the end, so
    /// whoever gets nil finds the failure already recorded. The first failure counts.
    private func fail(_ error: any Error, endsJob: Bool) {
        condition.lock()
        if failing == nil { failing = error }
        condition.unlock()
        onEnd(.failed(error))
        condition.lock()
        let woken = finishLocked(.failed(error))
        if endsJob { producing = false }
        condition.unlock()
        for waiter in woken { waiter.resume(returning: UncheckedBox(nil)) }
    }

    /// Records the end (the first one counts) and hands back the waiters to wake with nil.
    private func finishLocked(_ ending: End) -> [Waiter] {
        if end == nil { end = ending }
        let woken = waiters.map(\.continuation)
        waiters = []
        condition.broadcast()
        return woken
    }
}
