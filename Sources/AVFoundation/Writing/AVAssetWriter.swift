internal import MediaEngine
import Foundation
internal import Locking
import UniformTypeIdentifiers

/// Writes a media file (MP4, MOV, M4V, M4A, and, Avocet's additions, Matroska and WebM) from sample
/// buffers appended to its inputs: pictures and sound encoded by FFmpeg's encoders, or compressed
/// samples written as they are.
///
/// Configure it (add inputs with ``add(_:)``, set ``metadata``, ``shouldOptimizeForNetworkUse``,
/// ``movieFragmentInterval``), call ``startWriting()`` and ``startSession(atSourceTime:)``, append, then
/// finish (``finishWriting(completionHandler:)`` or `await finishWriting()`). ``startWriting()``
/// creates the file and opens the encoders on the calling thread (milliseconds); appends return at once
/// and are encoded and written in order on the engine's threads.
///
/// Misuse that Apple answers with an exception (adding an input or setting a property after writing
/// started, starting twice, appending before a session, settings an input cannot use) never traps
/// here: the call does nothing or returns false, and the writer moves to ``Status-swift.enum/failed``
/// with an ``AVError`` that says what was wrong. A write that fails (a full disk, an encoder's error)
/// or a cancellation closes the file and removes it: no half-written file is left at ``outputURL``.
open class AVAssetWriter: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `state`.

    /// Where the file is written.
    public let outputURL: URL
    /// The file's type.
    public let outputFileType: AVFileType
    let container: OutputContainer
    /// Segments for a delegate instead of a file (`init(contentType:)`); the problem with the content
    /// type, when it is not one Avocet segments.
    private let segmentsOnly: Bool
    private let contentTypeProblem: AVError?

    private struct State {
        var status = Status.unknown
        var error: (any Error)?
        var inputs: [AVAssetWriterInput] = []
        var metadata: [AVMetadataItem] = []
        var shouldOptimizeForNetworkUse = false
        var directoryForTemporaryFiles: URL?
        var movieFragmentInterval = CMTime.invalid
        var overallDurationHint = CMTime.invalid
        var movieTimeScale: CMTimeScale = 0
        var initialMovieFragmentSequenceNumber = 1
        var session: WriterSession?
        var sessionStart: CMTime?
        var sessionEnd: CMTime?
        var outputFileTypeProfile: AVFileTypeProfile?
        var preferredOutputSegmentInterval = CMTime.invalid
        var initialSegmentStartTime = CMTime.invalid
    }

    /// The delegate, held weakly, behind a lock of its own.
    private struct WeakDelegate: @unchecked Sendable {
        // @unchecked Sendable: the delegate is only called, as Apple's writer calls it, from the writer's thread.
        weak var value: (any AVAssetWriterDelegate)?
    }

    private let delegateBox = Locked(WeakDelegate())

    private let state = Locked(State())

    /// A writer of a file of `outputFileType` at `outputURL`. Creates nothing yet: ``startWriting()``
    /// creates the file.
    ///
    /// - Parameters:
    ///   - outputURL: A file URL where no file exists yet (``startWriting()`` fails otherwise).
    ///   - outputFileType: ``AVFileType/mp4``, ``AVFileType/mov``, ``AVFileType/m4v``,
    ///     ``AVFileType/m4a``, and, Avocet's additions, ``AVFileType/mkv`` and ``AVFileType/webm``.
    /// - Throws: ``AVError/Code-swift.enum/invalidOutputURLPathExtension`` for a URL that is not a file
    ///   URL, and ``AVError/Code-swift.enum/formatUnsupported`` for a file type Avocet does not write
    ///   (Apple's raises an exception).
    public init(outputURL: URL, fileType outputFileType: AVFileType) throws {
        guard outputURL.isFileURL else {
            throw AVError(.invalidOutputURLPathExtension, userInfo: [NSLocalizedDescriptionKey: "An asset writer writes to a file URL, not \(outputURL)."])
        }
        guard let container = OutputFiles.container(for: outputFileType) else {
            throw AVError(.formatUnsupported, userInfo: [
                NSLocalizedDescriptionKey: "Avocet's writer does not write \(outputFileType.rawValue) files: it writes MP4, MOV, M4V, M4A, Matroska and WebM.",
            ])
        }
        self.outputURL = outputURL
        self.outputFileType = outputFileType
        self.container = container
        segmentsOnly = false
        contentTypeProblem = nil
        super.init()
    }

    /// A writer of segments (fragmented MPEG-4) handed to ``delegate`` rather than a file: for HLS and
    /// CMAF packaging. Set ``delegate``, then ``outputFileTypeProfile``,
    /// ``preferredOutputSegmentInterval`` and ``initialSegmentStartTime``.
    ///
    /// - Parameter outputContentType: MPEG-4 (`UTType(AVFileType.mp4.rawValue)`, or a type that
    ///   conforms to `.mpeg4Movie`); another type makes ``startWriting()`` fail with
    ///   ``AVError/Code-swift.enum/formatUnsupported`` (Apple's raises an exception).
    public init(contentType outputContentType: UTType) {
        outputURL = URL(fileURLWithPath: "/dev/null")
        outputFileType = .mp4
        container = .mp4
        segmentsOnly = true
        contentTypeProblem = outputContentType.conforms(to: .mpeg4Movie) || outputContentType.identifier == AVFileType.mp4.rawValue ? nil
            : AVError(.formatUnsupported, userInfo: [NSLocalizedDescriptionKey: "Avocet writes segments as MPEG-4 only, not \(outputContentType.identifier)."])
        super.init()
    }

    /// The same as ``init(outputURL:fileType:)``.
    ///
    /// - Parameters:
    ///   - outputURL: A file URL where no file exists yet.
    ///   - outputFileType: The type of file to write.
    /// - Throws: As ``init(outputURL:fileType:)`` does.
    public convenience init(url outputURL: URL, fileType outputFileType: AVFileType) throws {
        try self.init(outputURL: outputURL, fileType: outputFileType)
    }

    /// Where the writer stands. Safe from any thread.
    open var status: Status { state.withLock { $0.status } }
    /// Why writing failed; nil unless ``status`` is ``Status-swift.enum/failed``. Safe from any thread.
    open var error: (any Error)? { state.withLock { $0.error } }
    /// The inputs added.
    open var inputs: [AVAssetWriterInput] { state.withLock { $0.inputs } }

    /// The media types the file type takes: audio alone for M4A, video and audio otherwise.
    open var availableMediaTypes: [AVMediaType] { container == .m4a ? [.audio] : [.video, .audio] }

    private func configure(_ name: String, _ change: (inout State) -> Void) {
        let started = state.withLock { s -> Bool in
            guard s.status == .unknown else { return true }
            change(&s)
            return false
        }
        if started { fail(misuse: "\(name) cannot be set after writing has started") }
    }

    /// File-level metadata (title, artist, ...), written as the container's tags. Set it before writing.
    open var metadata: [AVMetadataItem] {
        get { state.withLock { $0.metadata } }
        set { configure("metadata") { $0.metadata = newValue } }
    }

    /// Puts an MP4 or QuickTime file's index first, so a player can start before the whole file has
    /// arrived; costs a second pass over the file when it is finished.
    open var shouldOptimizeForNetworkUse: Bool {
        get { state.withLock { $0.shouldOptimizeForNetworkUse } }
        set { configure("shouldOptimizeForNetworkUse") { $0.shouldOptimizeForNetworkUse = newValue } }
    }

    /// Stored; Avocet writes straight to ``outputURL`` (the faststart pass uses the file itself).
    open var directoryForTemporaryFiles: URL? {
        get { state.withLock { $0.directoryForTemporaryFiles } }
        set { configure("directoryForTemporaryFiles") { $0.directoryForTemporaryFiles = newValue } }
    }

    /// Writes MP4 and QuickTime as fragments about this long (an empty index first, then fragments
    /// cut at keyframes), so that a file cut short still plays up to its last fragment. `.invalid`
    /// (the default): one index at the end.
    open var movieFragmentInterval: CMTime {
        get { state.withLock { $0.movieFragmentInterval } }
        set { configure("movieFragmentInterval") { $0.movieFragmentInterval = newValue } }
    }

    /// Stored: a hint of the final duration for fragmented files.
    open var overallDurationHint: CMTime {
        get { state.withLock { $0.overallDurationHint } }
        set { configure("overallDurationHint") { $0.overallDurationHint = newValue } }
    }

    /// Stored: the movie's time scale (0: the writer chooses).
    open var movieTimeScale: CMTimeScale {
        get { state.withLock { $0.movieTimeScale } }
        set { configure("movieTimeScale") { $0.movieTimeScale = newValue } }
    }

    /// Stored: the first fragment's sequence number (at least 1).
    open var initialMovieFragmentSequenceNumber: Int {
        get { state.withLock { $0.initialMovieFragmentSequenceNumber } }
        set { configure("initialMovieFragmentSequenceNumber") { $0.initialMovieFragmentSequenceNumber = max(1, newValue) } }
    }

    // MARK: Segments

    /// The segment format: ``AVFileTypeProfile/mpeg4AppleHLS`` or
    /// ``AVFileTypeProfile/mpeg4CMAFCompliant`` (the CMAF brand).
    open var outputFileTypeProfile: AVFileTypeProfile? {
        get { state.withLock { $0.outputFileTypeProfile } }
        set { configure("outputFileTypeProfile") { $0.outputFileTypeProfile = newValue } }
    }

    /// How long segments are: a positive time cuts one at the first keyframe at or after each
    /// ``initialSegmentStartTime`` `+ n * interval` (encoded pictures there are made keyframes);
    /// `.indefinite` cuts only at ``flushSegment()``; `.invalid` (the default) lets the writer choose six
    /// seconds.
    open var preferredOutputSegmentInterval: CMTime {
        get { state.withLock { $0.preferredOutputSegmentInterval } }
        set { configure("preferredOutputSegmentInterval") { $0.preferredOutputSegmentInterval = newValue } }
    }

    /// Where the first segment starts (source time); needed with a positive interval.
    open var initialSegmentStartTime: CMTime {
        get { state.withLock { $0.initialSegmentStartTime } }
        set { configure("initialSegmentStartTime") { $0.initialSegmentStartTime = newValue } }
    }

    /// Receives the segments (held weakly), on the engine's thread.
    open var delegate: (any AVAssetWriterDelegate)? {
        get { delegateBox.withLock { $0.value } }
        set {
            let box = WeakDelegate(value: newValue)
            delegateBox.withLock { $0 = box }
        }
    }

    /// Ends the segment being written and hands it to the ``delegate`` now. Only for a writer made with
    /// ``init(contentType:)`` and an `.indefinite` ``preferredOutputSegmentInterval``; otherwise the
    /// writer fails with ``AVError/Code-swift.enum/operationNotAllowed`` (Apple's raises an exception).
    open func flushSegment() {
        guard segmentsOnly, preferredOutputSegmentInterval.isIndefinite else {
            fail(misuse: "flushSegment() needs segment output with an indefinite preferredOutputSegmentInterval")
            return
        }
        liveSession?.enqueue(nil) { engine, _ in try engine.flushSegment() }
    }

    /// Hands `segment` to the delegate with its report (times on the source's timeline).
    private func deliver(_ segment: SampleWriter.Segment, mediaTypes: [AVMediaType]) {
        let start = state.withLock { $0.sessionStart ?? .zero }
        let delegate = self.delegate
        let type: AVAssetSegmentType = segment.isInitialization ? .initialization : .separable
        let tracks = segment.tracks.map { track -> AVAssetSegmentTrackReport in
            let earliest = track.earliestPresentationTime.map { CMTime(ticks: $0.value, timeBase: $0.timeBase) + start } ?? .invalid
            let duration = track.duration.map { CMTime(ticks: $0.value, timeBase: $0.timeBase) } ?? .invalid
            let first = track.firstSample.map {
                AVAssetSegmentReportSampleInformation(presentationTimeStamp: CMTime(ticks: $0.presentationTime.value, timeBase: $0.presentationTime.timeBase) + start,
                                                      offset: $0.offset, length: $0.length, isSyncSample: $0.isSync)
            }
            return AVAssetSegmentTrackReport(trackID: CMPersistentTrackID(track.track + 1),
                                             mediaType: mediaTypes.indices.contains(track.track) ? mediaTypes[track.track] : .video,
                                             earliestPresentationTimeStamp: earliest, duration: duration, firstVideoSampleInformation: first)
        }
        delegate?.assetWriter(self, didOutputSegmentData: segment.data, segmentType: type,
                              segmentReport: AVAssetSegmentReport(segmentType: type, trackReports: tracks))
    }

    // MARK: Inputs

    /// Whether inputs with `outputSettings` for `mediaType` can be added: the settings parse, the
    /// encoder exists, and the file type takes the codec. Parses only; opens no encoder.
    ///
    /// - Parameters:
    ///   - outputSettings: The settings an ``AVAssetWriterInput`` would be made with.
    ///   - mediaType: ``AVMediaType/video`` or ``AVMediaType/audio``.
    /// - Returns: True when an input with these settings can be added. False for a media type the file
    ///   type does not take, and for nil settings (passthrough, which needs the source format hint
    ///   that ``canAdd(_:)`` sees).
    open func canApply(outputSettings: [String: Any]?, forMediaType mediaType: AVMediaType) -> Bool {
        guard availableMediaTypes.contains(mediaType), outputSettings != nil else { return false }
        guard case .success(let format) = WriterInputFormat.parse(outputSettings, mediaType: mediaType, hint: nil, timeScale: 0) else { return false }
        return containerProblem(format) == nil
    }

    /// Whether `input` can be added: writing has not started, the input belongs to no writer, the file
    /// type takes its media and its settings.
    ///
    /// - Parameter input: The input to check; nothing is opened.
    /// - Returns: True when ``add(_:)`` would add it; false when it would fail the writer instead.
    open func canAdd(_ input: AVAssetWriterInput) -> Bool {
        addProblem(input) == nil
    }

    /// Adds `input`. One ``canAdd(_:)`` refuses is not added, and the writer fails with the reason
    /// (``AVError/Code-swift.enum/operationNotAllowed`` for misuse, or
    /// ``AVError/Code-swift.enum/unsupportedOutputSettings`` for settings it cannot use).
    ///
    /// - Parameter input: An input that belongs to no writer yet, added before ``startWriting()``.
    open func add(_ input: AVAssetWriterInput) {
        if let problem = addProblem(input) {
            fail(problem)
            return
        }
        let index = state.withLock { s -> Int in
            s.inputs.append(input)
            return s.inputs.count - 1
        }
        input.state.withLock { s in
            s.writer = self
            s.index = index
        }
    }

    private func addProblem(_ input: AVAssetWriterInput) -> AVError? {
        if status != .unknown { return AVAssetWriter.misuse("inputs cannot be added after writing has started") }
        if input.state.withLock({ $0.writer != nil }) { return AVAssetWriter.misuse("the input was already added to a writer") }
        guard availableMediaTypes.contains(input.mediaType) else {
            return AVAssetWriter.misuse("\(outputFileType.rawValue) files do not take \(input.mediaType.rawValue) tracks")
        }
        switch input.format() {
        case .failure(let error): return error
        case .success(let format): return containerProblem(format)
        }
    }

    /// Why the file type cannot hold `format`'s codec; nil when it can.
    private func containerProblem(_ format: WriterInputFormat) -> AVError? {
        let allowed: Bool
        switch (container, format) {
        case (.webm, .video): allowed = false
        case (.webm, .audio(let a)): allowed = a.codec == .opus
        case (.webm, _): allowed = true
        case (_, .audio(let a)) where a.codec == .flac: allowed = container == .matroska
        case (.m4a, .audio(let a)): allowed = a.codec == .aac || a.codec == .alac
        case (.mp4, .video(let v)), (.m4v, .video(let v)):
            allowed = ![.proResProxy, .proResLT, .proRes422, .proResHQ, .proRes4444].contains(v.codec)
        case (.mp4, .audio(let a)), (.m4v, .audio(let a)):
            if case .linearPCM = a.codec { allowed = false } else { allowed = true }
        default: allowed = true
        }
        return allowed ? nil : WriterInputFormat.invalid("\(outputFileType.rawValue) files cannot hold that codec")
    }

    // MARK: Writing

    /// Creates the file, opens every input's encoder and writes the header, on the calling thread
    /// (milliseconds).
    ///
    /// - Returns: True when writing started. False, with ``status`` ``Status-swift.enum/failed`` and
    ///   ``error`` set, when a file already exists at ``outputURL``
    ///   (``AVError/Code-swift.enum/fileAlreadyExists``), an input cannot be written, no input was
    ///   added, or a segment writer lacks its ``delegate``. False when writing had already started or
    ///   ended (a second call while writing also fails the writer).
    @discardableResult
    open func startWriting() -> Bool {
        let (status, inputs, settings) = state.withLock { ($0.status, $0.inputs, $0) }
        guard status == .unknown else {
            if status == .writing { fail(misuse: "startWriting() cannot be called again: the status is \(status.rawValue)") }
            return false
        }
        guard !inputs.isEmpty else {
            fail(AVAssetWriter.misuse("startWriting() needs at least one input"))
            return false
        }
        if let contentTypeProblem {
            fail(contentTypeProblem)
            return false
        }
        if segmentsOnly {
            if delegate == nil {
                fail(AVAssetWriter.misuse("segment output needs a delegate to receive the segments"))
                return false
            }
            let interval = settings.preferredOutputSegmentInterval
            if interval.isNumeric, interval > .zero, !settings.initialSegmentStartTime.isNumeric {
                fail(AVAssetWriter.misuse("a positive preferredOutputSegmentInterval needs a numeric initialSegmentStartTime"))
                return false
            }
        }
        let path = outputURL.path
        if !segmentsOnly, FileManager.default.fileExists(atPath: path) {
            fail(AVError(.fileAlreadyExists, userInfo: [NSLocalizedDescriptionKey: "\(path): a file already exists there.", NSFilePathErrorKey: path]))
            return false
        }
        var formats: [WriterInputFormat] = []
        for input in inputs {
            switch input.format() {
            case .failure(let error):
                fail(error)
                return false
            case .success(let format): formats.append(format)
            }
        }
        do {
            let mediaTypes = inputs.map(\.mediaType)
            let segmentsOnly = self.segmentsOnly
            let interval = settings.preferredOutputSegmentInterval
            let cmaf = settings.outputFileTypeProfile == .mpeg4CMAFCompliant
            let engine = try AVError.converting { () throws -> SampleWriter in
                let engine = segmentsOnly
                    ? try SampleWriter(segmentsWithInterval: interval.isIndefinite ? nil : interval.isNumeric && interval > .zero ? interval.seconds : 6,
                                       start: 0, cmaf: cmaf) { [weak self] segment in self?.deliver(segment, mediaTypes: mediaTypes) }
                    : try SampleWriter(path: path, container: container)
                for (input, format) in zip(inputs, formats) {
                    let track: WriterTrackSettings
                    switch format {
                    case .video(let v): track = .video(v)
                    case .audio(let a): track = .audio(a)
                    case .passthrough(let c): track = .copy(c)
                    }
                    let (language, transform) = input.state.withLock { ($0.languageCode, $0.transform) }
                    let matrix = input.mediaType == .video ? OutputFiles.displayMatrix(transform, scale: 1) : nil
                    _ = try engine.addTrack(track, language: language, displayMatrix: matrix)
                }
                for (key, value) in OutputFiles.metadataTags(settings.metadata, filter: nil, container: container) { engine.setMetadata(key, value) }
                let fragment = settings.movieFragmentInterval.isNumeric && settings.movieFragmentInterval > .zero
                    ? settings.movieFragmentInterval.seconds : nil
                try engine.start(fastStart: settings.shouldOptimizeForNetworkUse, fragmentSeconds: fragment)
                return engine
            }
            let limits = formats.map { format -> Int in
                switch format {
                case .video: return 2
                case .audio: return 16
                case .passthrough: return 64
                }
            }
            let session = WriterSession(path: segmentsOnly ? nil : path, engine: engine, limits: limits, onReady: { [weak self] index in
                self?.inputs[safe: index]?.pump()
            }, onFailure: { [weak self] error in
                self?.fail(error)
            })
            for (input, format) in zip(inputs, formats) { input.state.withLock { $0.writing = format } }
            let began = state.withLock { s -> Bool in
                guard s.status == .unknown else { return false }
                (s.status, s.session) = (.writing, session)
                return true
            }
            if !began { session.cancel() }
            return began
        } catch {
            if !segmentsOnly { LeftoverOutput.remove(atPath: path) }
            fail(error)
            return false
        }
    }

    /// The session being written, while the writer is writing.
    var liveSession: WriterSession? {
        state.withLock { $0.status == .writing ? $0.session : nil }
    }

    /// Whether `startSession(atSourceTime:)` was called.
    var sessionStarted: Bool { state.withLock { $0.sessionStart != nil } }
    /// The session's start and end, once set.
    var sessionStartTime: CMTime? { state.withLock { $0.sessionStart } }
    var sessionEndTime: CMTime? { state.withLock { $0.sessionEnd } }

    /// Starts the session: sample times are written from `startTime` on (a sample at `startTime` is at
    /// zero in the file). Pictures that start earlier are dropped and earlier sound is cut off, where
    /// Apple's keeps them in the file but edits them out. One session per writer.
    ///
    /// - Parameter startTime: A numeric source time. Called before ``startWriting()``, a second time,
    ///   or with a time that is not numeric, it fails the writer with
    ///   ``AVError/Code-swift.enum/operationNotAllowed``.
    open func startSession(atSourceTime startTime: CMTime) {
        let problem = state.withLock { s -> String? in
            guard s.status == .writing else { return "startSession(atSourceTime:) needs startWriting() first: the status is \(s.status.rawValue)" }
            guard s.sessionStart == nil else { return "only one session is supported" }
            guard startTime.isNumeric else { return "the session must start at a numeric time" }
            s.sessionStart = startTime
            return nil
        }
        if let problem {
            fail(misuse: problem)
            return
        }
        if segmentsOnly {
            let first = initialSegmentStartTime.isNumeric ? (initialSegmentStartTime - startTime).seconds : 0
            liveSession?.enqueue(nil) { engine, _ in engine.setSegmentStart(first) }
        }
        for input in inputs { input.pump() }
    }

    /// Ends the session at `endTime`: pictures from `endTime` on are dropped, sound cut there.
    /// Optional: without it the file ends with the last sample.
    ///
    /// - Parameter endTime: A numeric source time at or after the session's start. Called without a
    ///   session, or with a time that is not numeric or comes before the start, it fails the writer
    ///   with ``AVError/Code-swift.enum/operationNotAllowed``.
    open func endSession(atSourceTime endTime: CMTime) {
        let problem = state.withLock { s -> String? in
            guard let start = s.sessionStart else { return "endSession(atSourceTime:) needs a session started" }
            guard endTime.isNumeric, endTime >= start else { return "the session must end at a numeric time after its start" }
            s.sessionEnd = endTime
            return nil
        }
        if let problem { fail(misuse: problem) }
    }

    /// Marks every input finished and finishes the file after the samples waiting.
    ///
    /// - Parameter handler: Runs on a global dispatch queue when the file is complete, or writing
    ///   failed or was cancelled: check ``status``. When the writer is not writing it runs without
    ///   waiting (and, called before ``startWriting()``, the writer fails).
    open func finishWriting(completionHandler handler: @escaping @Sendable () -> Void) {
        let (session, inputs) = state.withLock { ($0.session, $0.inputs) }
        guard let session, status == .writing else {
            if status == .unknown { fail(misuse: "finishWriting cannot be called before startWriting()") }
            DispatchQueue.global().async { handler() }
            return
        }
        for input in inputs { input.markAsFinished() }
        session.finish { [weak self] ending in
            if let self {
                self.state.withLock { s in
                    switch ending {
                    case .completed: if s.status == .writing { s.status = .completed }
                    case .failed(let error): if s.status == .writing { (s.status, s.error) = (.failed, error) }
                    case .cancelled: if s.status == .writing { s.status = .cancelled }
                    }
                }
            }
            DispatchQueue.global().async { handler() }
        }
    }

    /// Finishes the file (see ``finishWriting(completionHandler:)``), awaiting it without holding a
    /// thread. Check ``status`` when it returns.
    open func finishWriting() async {
        await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
            finishWriting { continuation.resume() }
        }
    }

    /// Finishes the file, blocking the calling thread until it is done.
    ///
    /// - Returns: True when ``status`` is ``Status-swift.enum/completed``; false when writing failed or
    ///   was cancelled (see ``error``).
    @available(*, deprecated, message: "Use finishWriting(completionHandler:) or await finishWriting()")
    open func finishWriting() -> Bool {
        let done = DispatchSemaphore(value: 0)
        finishWriting { done.signal() }
        done.wait()
        return status == .completed
    }

    /// Stops writing at once: work waiting is dropped, the file closed and removed, and ``status``
    /// becomes ``Status-swift.enum/cancelled`` (unless writing had completed or failed).
    open func cancelWriting() {
        let (session, inputs) = state.withLock { s -> (WriterSession?, [AVAssetWriterInput]) in
            guard s.status == .unknown || s.status == .writing else { return (nil, []) }
            s.status = .cancelled
            return (s.session, s.inputs)
        }
        session?.cancel()
        for input in inputs { input.writerEnded() }
    }

    // MARK: Appends and failures

    /// Queues `sample` for input `index`; false (failing the writer) when it cannot be written.
    func appendSample(_ sample: CMSampleBuffer, input: AVAssetWriterInput, index: Int, format: WriterInputFormat) -> Bool {
        guard let session = liveSession, let start = state.withLock({ $0.sessionStart }) else { return false }
        let end = state.withLock { $0.sessionEnd }
        switch format {
        case .video:
            guard let image = sample.imageBuffer else {
                fail(WriterInputFormat.invalid("a video input with output settings takes pictures (sample buffers with an image buffer)"))
                return false
            }
            return appendPicture(image, at: sample.presentationTimeStamp, input: input, index: index, session: session, start: start, end: end)
        case .audio:
            guard let (samples, channels) = LinearPCM.floats(of: sample) else {
                fail(WriterInputFormat.invalid("an audio input with output settings takes linear PCM sample buffers"))
                return false
            }
            // Sound of another rate or channel count is converted into the input's, as Apple's writer does.
            let rate = sample.formatDescription?.audioStreamBasicDescription?.mSampleRate ?? 0
            guard rate >= 1, rate <= 768_000, rate == rate.rounded(), (1...64).contains(channels) else {
                fail(WriterInputFormat.invalid("the sound has \(channels) channels at \(rate) Hz; Avocet converts 1 to 64 channels at a whole number of Hz up to 768,000"))
                return false
            }
            return appendSound(samples, channels: channels, at: sample.presentationTimeStamp, rate: Int32(rate), index: index,
                               session: session, start: start, end: end)
        case .passthrough:
            return appendStored(sample, input: input, index: index, session: session, start: start, end: end)
        }
    }

    /// Whether `time` comes after the input's last time at `last` (then recorded in its place); when
    /// not, the writer fails with `operationNotAllowed` and `message` (Apple's raises an exception).
    private func inOrder(_ time: CMTime, after last: WritableKeyPath<AVAssetWriterInput.State, CMTime?>, of input: AVAssetWriterInput,
                         _ message: @autoclosure () -> String) -> Bool {
        let ordered = input.state.withLock { s -> Bool in
            if let previous = s[keyPath: last], time <= previous { return false }
            s[keyPath: last] = time
            return true
        }
        if !ordered { fail(AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: message()])) }
        return ordered
    }

    /// Queues a picture at `time` (source time) for encoding.
    func appendPicture(_ image: CVPixelBuffer, at time: CMTime, input: AVAssetWriterInput, index: Int, session: WriterSession,
                       start: CMTime, end: CMTime?) -> Bool {
        guard time.isNumeric else {
            fail(WriterInputFormat.invalid("a picture needs a numeric presentation time"))
            return false
        }
        guard inOrder(time, after: \.lastPresentationTime, of: input,
                      "Pictures must be appended in presentation order: \(time.seconds) s came after a later one.") else { return false }
        guard image.pixelMemory != nil else {
            fail(WriterInputFormat.invalid("the picture's pixel format \(image.pixelFormat.fourCharString) cannot be encoded"))
            return false
        }
        if time < start || (end.map { time >= $0 } ?? false) { return true }
        let stamp = MediaTimestamp(time - start)
        return session.enqueue(index) { engine, _ in
            guard let pixels = image.pixelMemory else { return }
            try withExtendedLifetime(image) { try engine.append(pixels: pixels, pts: stamp, track: index) }
        }
    }

    private func appendSound(_ samples: [Float], channels: Int, at time: CMTime, rate: Int32, index: Int, session: WriterSession,
                             start: CMTime, end: CMTime?) -> Bool {
        guard time.isNumeric else {
            fail(WriterInputFormat.invalid("sound needs a numeric presentation time"))
            return false
        }
        var first = (time - start).convertScale(rate, method: .roundHalfAwayFromZero).value
        var kept = samples[...]
        if first < 0 {
            kept = kept.dropFirst(Int(min(Int64(kept.count / channels), -first)) * channels)
            first = 0
        }
        if let end {
            let last = (end - start).convertScale(rate, method: .roundHalfAwayFromZero).value
            let room = max(0, last - first)
            kept = kept.prefix(Int(min(Int64(kept.count / channels), room)) * channels)
        }
        guard !kept.isEmpty else { return true }
        let chunk = Array(kept), pts = MediaTimestamp(value: first, timeBase: Rational(1, rate)), count = Int32(channels)
        return session.enqueue(index) { engine, _ in try engine.append(sound: chunk, rate: rate, channels: count, pts: pts, track: index) }
    }

    private func appendStored(_ sample: CMSampleBuffer, input: AVAssetWriterInput, index: Int, session: WriterSession, start: CMTime,
                              end: CMTime?) -> Bool {
        guard let data = sample.dataBuffer, let bytes = try? data.dataBytes(), let timings = try? sample.sampleTimingInfos() else {
            fail(WriterInputFormat.invalid("a stored sample needs its data and timing"))
            return false
        }
        let count = sample.numSamples
        let sizes = (0..<count).map { sample.sampleSize(at: $0) }
        var packets: [(range: Range<Int>, pts: MediaTimestamp?, dts: MediaTimestamp?, duration: MediaTimestamp?, key: Bool)] = []
        var offset = 0
        for i in 0..<count {
            let size = count == 1 && sizes[0] == 0 ? bytes.count : sizes[i]
            guard size >= 0, offset + size <= bytes.count else {
                fail(WriterInputFormat.invalid("a stored sample's sizes exceed its data"))
                return false
            }
            let timing = timings.count == 1 ? timings[0] : timings[i]
            // One timing entry for several samples: each later by the duration.
            let step = timings.count == 1 ? CMTimeMultiply(timing.duration, multiplier: Int32(clamping: i)) : .zero
            let pts = timing.presentationTimeStamp.isNumeric ? timing.presentationTimeStamp + step : nil
            let dts = timing.decodeTimeStamp.isNumeric ? timing.decodeTimeStamp + step : nil
            // Stored samples come in decode order (their decode times, else their presentation times,
            // increase), as a muxer needs them: one out of order fails the writer rather than being
            // written with made-up times.
            if let order = dts ?? pts, !inOrder(order, after: \.lastDecodeTime, of: input,
                                                "Stored samples must be appended in decode order: one decoded at \(order.seconds) s came after a later one.") {
                return false
            }
            if let pts, (end.map { pts >= $0 } ?? false) { offset += size; continue }
            let notSync = sample.isNotSync(i)
            packets.append((offset ..< offset + size, pts.map { MediaTimestamp($0 - start) }, dts.map { MediaTimestamp($0 - start) },
                            timing.duration.isNumeric ? MediaTimestamp(timing.duration) : nil, !notSync))
            offset += size
        }
        let written = packets
        return session.enqueue(index) { engine, _ in
            try bytes.withUnsafeBytes { raw in
                for p in written {
                    try engine.append(packet: UnsafeRawBufferPointer(rebasing: raw[p.range]), pts: p.pts, dts: p.dts, duration: p.duration,
                                      isKeyframe: p.key, track: index)
                }
            }
        }
    }

    /// Input `index` is finished: its encoder drains after the samples waiting.
    func finishTrack(_ index: Int) {
        liveSession?.enqueue(nil) { engine, _ in try engine.finish(track: index) }
    }

    /// Writing failed: the first error counts; the file is closed and removed.
    func fail(_ error: any Error) {
        let (session, inputs) = state.withLock { s -> (WriterSession??, [AVAssetWriterInput]) in
            guard s.status == .unknown || s.status == .writing else { return (nil, []) }
            (s.status, s.error) = (.failed, error)
            return (.some(s.session), s.inputs)
        }
        if case .some(let live?) = session { live.cancel() }
        // The inputs' request blocks are never called again: let them go, with what they hold.
        for input in inputs { input.writerEnded() }
    }

    /// Misuse Apple answers with an exception: the writer fails with `words`.
    func fail(misuse words: String) {
        fail(AVAssetWriter.misuse(words))
    }

    private static func misuse(_ words: String) -> AVError {
        AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "AVAssetWriter: \(words).", NSLocalizedFailureReasonErrorKey: words])
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
