internal import MediaEngine
import Foundation
import Synchronization
internal import Locking

/// Reads one kind of media from an asset reader's asset: the abstract base of the track, audio-mix and
/// video-composition outputs.
///
/// Once its reader starts, an output makes its sample buffers ahead of the caller on the engine's
/// threads (a few at a time: three pictures, eight sound buffers, 256 stored samples or 4 MiB of them) and hands
/// them out in order. ``copyNextSampleBuffer()`` blocks its caller's thread while the next is made, as
/// Apple's does; ``sampleBuffers`` (Avocet's addition) awaits them without holding a thread.
open class AVAssetReaderOutput: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `state`; the producer is entered only by its
    // queue's one job.

    /// The kind of media the output reads.
    open var mediaType: AVMediaType { storedMediaType }
    private let storedMediaType: AVMediaType

    struct State {
        weak var reader: AVAssetReader?
        var alwaysCopiesSampleData = true
        /// `alwaysCopiesSampleData` as it was when reading started: what the output's producer uses.
        var copiesSampleData: Bool?
        var supportsRandomAccess = false
        var markedFinal = false
        /// The pass being read, once reading has started.
        var queue: SampleQueue?
        /// Whether the current pass's last buffer was handed out.
        var delivered = false
    }

    let state = Locked(State())
    /// The producer, made on the first pass's engine thread and kept for the passes that follow.
    private let producerBox = Locked<UncheckedBox<(any SampleProducer)?>>(UncheckedBox(nil))

    init(mediaType: AVMediaType) {
        storedMediaType = mediaType
        super.init()
    }

    /// Whether each buffer holds its own copy of the data; default true. Set it false before reading
    /// starts and a track output's stored samples (`outputSettings: nil`) of 4 KiB or more refer to
    /// the packets the demuxer read instead of copies, as Apple's may: do not change their bytes.
    /// Each such packet goes back to be read into again when its buffer is released, and keeps its
    /// bytes until it is: while any buffer is held, the output's store of packets stays too, as many
    /// as were ever out at once (held, and read ahead: 256 packets or 4 MiB at most), even after its
    /// reader is gone. Smaller samples, decoded pictures and sound are made for the caller
    /// either way. Set after reading starts, it changes nothing for this output: the value at
    /// ``AVAssetReader/startReading()`` holds (Apple's documentation does not say).
    open var alwaysCopiesSampleData: Bool {
        get { state.withLock { $0.alwaysCopiesSampleData } }
        set { state.withLock { $0.alwaysCopiesSampleData = newValue } }
    }

    /// Whether ``reset(forReadingTimeRanges:)`` may be used; default false. Set it before reading
    /// starts: set afterwards it is ignored and the reader fails, where Apple's raises an exception.
    /// An output that supports random access keeps its reader from completing until
    /// ``markConfigurationAsFinal()``.
    open var supportsRandomAccess: Bool {
        get { state.withLock { $0.supportsRandomAccess } }
        set {
            let started = state.withLock { s -> Bool in
                if s.queue != nil { return true }
                s.supportsRandomAccess = newValue
                return false
            }
            if started { misuse("supportsRandomAccess cannot be set after reading has started") }
        }
    }

    /// The next sample buffer, blocking the calling thread while it is made (at most one engine read
    /// or decode away when the output is being drained). Call it from a thread of your own or a
    /// dispatch queue, never from Swift's cooperative pool: async code uses ``sampleBuffers``.
    /// Called before ``AVAssetReader/startReading()`` it returns nil and fails the reader (Apple's
    /// raises an exception).
    ///
    /// - Returns: The next buffer; nil at the end of the time range (or of the last range given to
    ///   ``reset(forReadingTimeRanges:)``), or when the reader failed or was cancelled: check the
    ///   reader's ``AVAssetReader/status``.
    open func copyNextSampleBuffer() -> CMSampleBuffer? {
        guard let queue = activeQueue() else { return nil }
        let buffer = queue.take()
        if buffer == nil { passEnded(queue) }
        return buffer
    }

    /// The queue of the pass being read; nil (failing the reader for misuse) before reading starts.
    func activeQueue() -> SampleQueue? {
        // The reader (a weak reference, dearer to load than the queue) only when there is no queue.
        let queue = state.withLock { $0.queue }
        if queue == nil, let reader = state.withLock({ $0.reader }), reader.status == .unknown {
            reader.fail(misuse: "copyNextSampleBuffer() cannot be called before startReading()")
        }
        return queue
    }

    /// The caller saw the end of a pass: its reader may be complete.
    func passEnded(_ queue: SampleQueue) {
        guard case .finished? = queue.ending else { return }
        let reader = state.withLock { s -> AVAssetReader? in
            guard s.queue === queue else { return nil }
            s.delivered = true
            return s.reader
        }
        reader?.outputDelivered()
    }

    /// Restarts reading at `timeRanges` once the previous pass has been read to its end; the buffers of
    /// each range follow in turn, then nil. Needs ``supportsRandomAccess`` and a started reader; misuse
    /// (ranges out of order, a pass not yet drained, after ``markConfigurationAsFinal()``) fails the
    /// reader with ``AVError/Code-swift.enum/operationNotAllowed``, where Apple's raises. Before reading
    /// started, and after the reader failed or was cancelled, it does nothing. Opens nothing again: the
    /// next read seeks the output's container.
    ///
    /// - Parameter timeRanges: One or more time ranges, each as `NSValue(timeRange:)`, with numeric
    ///   starts strictly increasing and not overlapping (a duration may be positive infinity).
    open func reset(forReadingTimeRanges timeRanges: [NSValue]) {
        let ranges = timeRanges.map(\.timeRangeValue)
        let problem: String? = state.withLock { s in
            guard let reader = s.reader, reader.status == .reading || reader.status == .completed else { return "" }
            if !s.supportsRandomAccess { return "reset(forReadingTimeRanges:) needs supportsRandomAccess" }
            if s.markedFinal { return "reset(forReadingTimeRanges:) cannot be called after markConfigurationAsFinal()" }
            if !s.delivered { return "reset(forReadingTimeRanges:) needs the previous pass read to its end" }
            if ranges.isEmpty { return "reset(forReadingTimeRanges:) needs at least one time range" }
            for (i, range) in ranges.enumerated() {
                guard range.start.isNumeric, range.duration.isNumeric || range.duration.isPositiveInfinity, range.duration >= .zero else {
                    return "time range \(i) is not numeric"
                }
                if i > 0, range.start < ranges[i - 1].end { return "time ranges must have increasing starts and not overlap" }
            }
            return nil
        }
        switch problem {
        case nil: begin(ranges)
        case ""?: return
        case let words?: misuse(words)
        }
    }

    /// Says no more ``reset(forReadingTimeRanges:)`` will come: the reader may complete once this pass
    /// is read.
    open func markConfigurationAsFinal() {
        let reader = state.withLock { s -> AVAssetReader? in
            s.markedFinal = true
            return s.reader
        }
        reader?.outputDelivered()
    }

    /// Whether this output lets its reader complete: its last pass delivered, and no more passes to come.
    var isDone: Bool {
        state.withLock { $0.delivered && (!$0.supportsRandomAccess || $0.markedFinal) }
    }

    private func misuse(_ words: String) {
        state.withLock { $0.reader }?.fail(misuse: words)
    }

    // MARK: What subclasses give

    /// Why the output cannot be read (its settings, its tracks); nil when it can. Checked by `canAdd`
    /// and `startReading()`.
    func configurationProblem(for reader: AVAssetReader) -> AVError? { nil }

    /// Makes the output's producer, on an engine thread.
    func makeProducer(_ token: CancellationToken) throws -> any SampleProducer {
        throw AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "This output cannot read."])
    }

    /// How many buffers the output makes ahead of its caller.
    var readAhead: Int { 8 }
    /// The most sample bytes it holds ahead (nil: only `readAhead` counts).
    var readAheadBytes: Int? { nil }

    // MARK: Reading

    /// Starts a pass over `ranges`, replacing the queue (the reader calls it from `startReading()`), and
    /// starts making its first buffers.
    func begin(_ ranges: [CMTimeRange]) {
        let pass = Pass(ranges)
        // The next sample of the pass: opens the producer in the first job, starts each range, and
        // moves to the next range at one's end.
        let make = { [weak self] (token: CancellationToken, onTakingThread: Bool) throws -> ProducedSample? in
            while let range = pass.ranges.first {
                if pass.producer == nil {
                    pass.producer = try self?.producer(token)
                    if pass.producer?.makesSamplesWithoutWaiting == true { pass.makesSamplesWithoutWaiting.store(true, ordering: .releasing) }
                }
                guard let producer = pass.producer else { return nil }
                if !pass.started {
                    try producer.start(range, token)
                    pass.started = true
                }
                if let sample = try onTakingThread ? producer.nextOnTakingThread(token) : producer.next(token) { return sample }
                pass.ranges.removeFirst()
                pass.started = false
            }
            return nil
        }
        let queue = SampleQueue(capacity: readAhead, byteBudget: readAheadBytes, takesInline: { pass.makesSamplesWithoutWaiting.load(ordering: .acquiring) },
                                producer: { try make($0, false) }, inlineProducer: { try make($0, true) }, onEnd: { [weak self] ending in
            guard let self, case .failed(let error) = ending else { return }
            self.state.withLock { $0.reader }?.fail(error)
        })
        let old = state.withLock { s -> SampleQueue? in
            defer { (s.queue, s.delivered) = (queue, false) }
            if s.copiesSampleData == nil { s.copiesSampleData = s.alwaysCopiesSampleData }
            return s.queue
        }
        old?.cancel()
        queue.prime()
    }

    /// Stops reading: the pass's engine work ends promptly and waiters get nil.
    func stop() {
        state.withLock { $0.queue }?.cancel()
    }

    /// The output's producer, made on the first pass's engine thread and kept for those that follow.
    private func producer(_ token: CancellationToken) throws -> any SampleProducer {
        if let made = producerBox.withLock({ $0.value }) { return made }
        let made = try makeProducer(token)
        producerBox.withLock { $0 = UncheckedBox(made) }
        return made
    }

    /// The ranges of one pass, touched only by its queue's job (one at a time).
    private final class Pass: @unchecked Sendable {
        var ranges: [CMTimeRange]
        var started = false
        /// The output's producer, once the pass has it. Kept here, and so by the queue, whose producer
        /// closure holds the pass: what a producer lends to the samples in the queue (a `StoredPacket`'s
        /// shelf and format description) lives as long as the queue.
        var producer: (any SampleProducer)?
        /// Whether its producer's samples may be made on the taking thread (`SampleQueue.takesInline`).
        let makesSamplesWithoutWaiting = Atomic<Bool>(false)
        init(_ ranges: [CMTimeRange]) { self.ranges = ranges }
    }
}
