import Foundation
internal import Locking

/// Reads the media data of an asset's tracks as sample buffers, through the outputs added to it.
///
/// Configure it (add outputs with ``add(_:)``, set ``timeRange``), call ``startReading()``, then drain
/// each output with ``AVAssetReaderOutput/copyNextSampleBuffer()`` (on a thread or dispatch queue of your
/// own: it blocks) or, Avocet's addition, `for try await buffer in output.sampleBuffers`
/// (``AVAssetReaderOutput/sampleBuffers``, never blocks the cooperative pool), and look at ``status``
/// when an output gives nil. Each output opens the asset's bytes for itself when
/// reading starts and reads ahead a few buffers on the engine's threads; a reader is used once.
///
/// Misuse that Apple answers with an exception (adding an output or setting the time range after
/// reading started, starting twice, reading before starting) never traps here: the call does nothing
/// (or returns false), and the reader moves to ``Status-swift.enum/failed`` with an
/// ``AVError/Code-swift.enum/operationNotAllowed`` error that says what was wrong. A read or decode
/// failure moves it to ``Status-swift.enum/failed`` with the engine's ``AVError``; every output then
/// gives nil.
open class AVAssetReader: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `state`.

    /// The asset read.
    public let asset: AVAsset

    private struct State {
        var status = Status.unknown
        var error: (any Error)?
        var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
        var outputs: [AVAssetReaderOutput] = []
    }

    private let state = Locked(State())

    /// A reader of `asset`. Opens nothing: each output opens the asset's bytes when reading starts.
    ///
    /// - Parameter asset: The asset whose tracks the outputs read; outputs may only read its tracks.
    /// - Throws: Nothing on Linux (Apple's throws for protected content, which FFmpeg does not read).
    public init(asset: AVAsset) throws {
        self.asset = asset
        super.init()
    }

    /// Where the reader stands. Safe from any thread.
    open var status: Status { state.withLock { $0.status } }

    /// Why the reader failed; nil unless ``status`` is ``Status-swift.enum/failed``. Safe from any
    /// thread.
    open var error: (any Error)? { state.withLock { $0.error } }

    /// The outputs added.
    open var outputs: [AVAssetReaderOutput] { state.withLock { $0.outputs } }

    /// The part of the asset read; default from zero with no end. Set it before ``startReading()``:
    /// set afterwards it is ignored and the reader fails.
    open var timeRange: CMTimeRange {
        get { state.withLock { $0.timeRange } }
        set {
            let started = state.withLock { s -> Bool in
                guard s.status == .unknown else { return true }
                s.timeRange = newValue
                return false
            }
            if started { fail(misuse: "timeRange cannot be set after reading has started") }
        }
    }

    /// Whether `output` can be added: reading has not started, the output belongs to no reader, it reads
    /// tracks of this reader's asset, and its settings can be produced.
    ///
    /// - Parameter output: The output to check; nothing is opened.
    /// - Returns: True when ``add(_:)`` would add it; false when it would fail the reader instead.
    open func canAdd(_ output: AVAssetReaderOutput) -> Bool {
        addProblem(output) == nil
    }

    /// Adds `output`. One that ``canAdd(_:)`` refuses is not added, and the reader fails with the
    /// reason (``AVError/Code-swift.enum/operationNotAllowed`` for misuse, or the output's settings
    /// error such as ``AVError/Code-swift.enum/unsupportedOutputSettings``).
    ///
    /// - Parameter output: An output of this reader's asset's tracks that belongs to no reader yet.
    open func add(_ output: AVAssetReaderOutput) {
        if let problem = addProblem(output) {
            fail(problem)
            return
        }
        output.state.withLock { $0.reader = self }
        state.withLock { $0.outputs.append(output) }
    }

    private func addProblem(_ output: AVAssetReaderOutput) -> AVError? {
        if status != .unknown { return AVAssetReader.misuse("outputs cannot be added after reading has started") }
        if output.state.withLock({ $0.reader != nil }) { return AVAssetReader.misuse("the output was already added to a reader") }
        return output.configurationProblem(for: self)
    }

    /// Starts reading: checks every output (its settings, its tracks) and starts each reading ahead on
    /// the engine's threads. Returns at once: the outputs open the asset's bytes on those threads.
    ///
    /// - Returns: True when reading started. False, with ``status`` ``Status-swift.enum/failed`` and
    ///   ``error`` set, when an output cannot be read, no output was added, or ``timeRange`` is not
    ///   numeric. False when reading had already started or ended (a second call while reading also
    ///   fails the reader).
    @discardableResult
    open func startReading() -> Bool {
        let (status, outputs, range) = state.withLock { ($0.status, $0.outputs, $0.timeRange) }
        guard status == .unknown else {
            if status == .reading { fail(misuse: "startReading() cannot be called again after reading has already started") }
            return false
        }
        guard !outputs.isEmpty else {
            fail(AVAssetReader.misuse("startReading() needs at least one output"))
            return false
        }
        if let problem = outputs.lazy.compactMap({ $0.configurationProblem(for: self) }).first {
            fail(problem)
            return false
        }
        guard range.start.isNumeric, range.start >= .zero, range.duration.isNumeric || range.duration.isPositiveInfinity,
              range.duration >= .zero else {
            fail(AVAssetReader.misuse("timeRange must start at a numeric time at or after zero and have a duration"))
            return false
        }
        let began = state.withLock { s -> Bool in
            guard s.status == .unknown else { return false }
            s.status = .reading
            return true
        }
        guard began else { return false }
        for output in outputs { output.begin([range]) }
        return true
    }

    /// Stops reading: every output's engine work ends promptly, waiting callers get nil, and ``status``
    /// becomes ``Status-swift.enum/cancelled`` (unless reading had already completed or failed).
    open func cancelReading() {
        let outputs = state.withLock { s -> [AVAssetReaderOutput] in
            if s.status == .unknown || s.status == .reading { s.status = .cancelled }
            return s.outputs
        }
        for output in outputs { output.stop() }
    }

    // MARK: Reports from the outputs

    /// An output handed out its last buffer (or will take no more passes): the reader completes when
    /// every output has.
    func outputDelivered() {
        let outputs = state.withLock { $0.outputs }
        guard outputs.allSatisfy(\.isDone) else { return }
        state.withLock { s in
            if s.status == .reading { s.status = .completed }
        }
    }

    /// Reading failed: the first error counts; every output stops.
    func fail(_ error: any Error) {
        let outputs = state.withLock { s -> [AVAssetReaderOutput]? in
            guard s.status == .unknown || s.status == .reading else { return nil }
            (s.status, s.error) = (.failed, error)
            return s.outputs
        }
        for output in outputs ?? [] { output.stop() }
    }

    /// Misuse Apple answers with an exception: the reader fails with `words`.
    func fail(misuse words: String) {
        fail(AVAssetReader.misuse(words))
    }

    private static func misuse(_ words: String) -> AVError {
        AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "AVAssetReader: \(words).",
                                                 NSLocalizedFailureReasonErrorKey: words])
    }
}
