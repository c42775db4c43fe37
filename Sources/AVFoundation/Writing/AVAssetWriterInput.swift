internal import MediaEngine
import Foundation
internal import Locking

/// One track of an asset writer's file: samples appended to it are encoded as its output settings say
/// (H.264, HEVC, JPEG or ProRes video; AAC, FLAC, Opus, ALAC or linear PCM audio), or written as they
/// come (`outputSettings: nil`, with a ``sourceFormatHint``).
///
/// ``append(_:)`` returns at once: the sample is encoded and written in order on the engine's threads.
/// ``isReadyForMoreMediaData`` stays true while fewer than a few samples wait (two pictures, sixteen
/// sound buffers, sixty-four stored samples), so memory stays bounded whatever the caller's pace;
/// ``requestMediaDataWhenReady(on:using:)`` calls its block on the given queue whenever the input is
/// ready again.
///
/// Misuse that Apple answers with an exception (appending before
/// ``AVAssetWriter/startSession(atSourceTime:)`` or after ``markAsFinished()``, settings a writer cannot
/// use, setting a property after writing started) never traps: the call returns false or does nothing,
/// and the writer moves to ``AVAssetWriter/Status-swift.enum/failed`` with an ``AVError`` that says what
/// was wrong.
open class AVAssetWriterInput: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `state`.

    /// The kind of media the input writes.
    public let mediaType: AVMediaType
    /// The settings given; nil writes samples as they come.
    public let outputSettings: [String: Any]?
    /// The format of the samples to come, when given.
    public let sourceFormatHint: CMFormatDescription?

    struct State {
        weak var writer: AVAssetWriter?
        var index = 0
        var metadata: [AVMetadataItem] = []
        var expectsMediaDataInRealTime = false
        var languageCode: String?
        var extendedLanguageTag: String?
        var naturalSize = CGSize.zero
        var transform = CGAffineTransform.identity
        var preferredVolume: Float
        var marksOutputTrackAsEnabled = true
        var mediaTimeScale: CMTimeScale = 0
        var finished = false
        var request: (queue: DispatchQueue, block: @Sendable () -> Void)?
        var requestRunning = false
        var appended = 0
        var hasAdaptor = false
        /// Where the last picture started, to refuse pictures out of order.
        var lastPresentationTime: CMTime?
        /// The last stored sample's decode time (else its presentation time), to refuse samples out of order.
        var lastDecodeTime: CMTime?
        /// The track's format as `startWriting()` read it from the settings, once for every append.
        var writing: WriterInputFormat?
    }

    let state: Locked<State>

    /// An input writing `mediaType` as `outputSettings` say (nil: samples as they come). Parses the
    /// settings only.
    ///
    /// - Parameters:
    ///   - mediaType: ``AVMediaType/video`` or ``AVMediaType/audio``.
    ///   - outputSettings: Video settings (``AVVideoCodecKey``, width, height, compression properties) or
    ///     audio settings (`AVFormatIDKey`, sample rate, channels, bit rate); nil to write compressed
    ///     samples as they come, which needs ``init(mediaType:outputSettings:sourceFormatHint:)``.
    public convenience init(mediaType: AVMediaType, outputSettings: [String: Any]?) {
        self.init(mediaType: mediaType, outputSettings: outputSettings, sourceFormatHint: nil)
    }

    /// An input writing `mediaType` as `outputSettings` say, for samples described by `sourceFormatHint`.
    /// Parses the settings only: settings it cannot use do not trap (Apple's raises an exception), and
    /// ``AVAssetWriter/canAdd(_:)`` refuses the input.
    ///
    /// - Parameters:
    ///   - mediaType: ``AVMediaType/video`` or ``AVMediaType/audio``.
    ///   - outputSettings: The settings to encode with; nil to write the samples as they come.
    ///   - sourceFormatHint: The format of the samples to come; needed when `outputSettings` is nil.
    public init(mediaType: AVMediaType, outputSettings: [String: Any]?, sourceFormatHint: CMFormatDescription?) {
        self.mediaType = mediaType
        self.outputSettings = outputSettings
        self.sourceFormatHint = sourceFormatHint
        state = Locked(State(preferredVolume: mediaType == .audio ? 1 : 0))
        super.init()
    }

    /// The track's format as the settings and hint give it, or why they cannot be used.
    func format() -> Result<WriterInputFormat, AVError> {
        WriterInputFormat.parse(outputSettings, mediaType: mediaType, hint: sourceFormatHint, timeScale: state.withLock { $0.mediaTimeScale })
    }

    // MARK: Properties set before writing

    private func configure(_ name: String, _ change: (inout State) -> Void) {
        let writer = state.withLock { $0.writer }
        if let writer, writer.status != .unknown {
            writer.fail(misuse: "\(name) cannot be set after writing has started")
            return
        }
        state.withLock { change(&$0) }
    }

    /// Track-level metadata (its title and the like). Set it before writing starts.
    open var metadata: [AVMetadataItem] {
        get { state.withLock { $0.metadata } }
        set { configure("metadata") { $0.metadata = newValue } }
    }

    /// Whether samples come from a live source; stored (Avocet's back-pressure is the same either way).
    open var expectsMediaDataInRealTime: Bool {
        get { state.withLock { $0.expectsMediaDataInRealTime } }
        set { configure("expectsMediaDataInRealTime") { $0.expectsMediaDataInRealTime = newValue } }
    }

    /// The track's language, ISO 639-2/T ("eng", "fra"), written in the file.
    open var languageCode: String? {
        get { state.withLock { $0.languageCode } }
        set { configure("languageCode") { $0.languageCode = newValue } }
    }

    /// The track's BCP 47 language tag; stored (the file records `languageCode`).
    open var extendedLanguageTag: String? {
        get { state.withLock { $0.extendedLanguageTag } }
        set { configure("extendedLanguageTag") { $0.extendedLanguageTag = newValue } }
    }

    /// The display size; stored (`.zero`: from the pictures). The file records the encoded size.
    open var naturalSize: CGSize {
        get { state.withLock { $0.naturalSize } }
        set { configure("naturalSize") { $0.naturalSize = newValue } }
    }

    /// How pictures are turned for display, written as the track's matrix (MP4 and QuickTime).
    open var transform: CGAffineTransform {
        get { state.withLock { $0.transform } }
        set { configure("transform") { $0.transform = newValue } }
    }

    /// The track's volume; stored. Default 1 for audio, 0 otherwise.
    open var preferredVolume: Float {
        get { state.withLock { $0.preferredVolume } }
        set { configure("preferredVolume") { $0.preferredVolume = newValue } }
    }

    /// Whether the track is marked enabled; stored (every written track is enabled).
    open var marksOutputTrackAsEnabled: Bool {
        get { state.withLock { $0.marksOutputTrackAsEnabled } }
        set { configure("marksOutputTrackAsEnabled") { $0.marksOutputTrackAsEnabled = newValue } }
    }

    /// Ticks a second of the track's times (0: Avocet chooses 90,000 for video, the sample rate for
    /// audio). Apple refuses a non-zero value for audio; here it is ignored for encoded audio.
    open var mediaTimeScale: CMTimeScale {
        get { state.withLock { $0.mediaTimeScale } }
        set { configure("mediaTimeScale") { $0.mediaTimeScale = newValue } }
    }

    // MARK: Appending

    /// Whether the input takes more samples now: writing, a session started, not finished, and few
    /// enough samples waiting. Safe from any thread.
    open var isReadyForMoreMediaData: Bool {
        let (writer, index, finished) = state.withLock { ($0.writer, $0.index, $0.finished) }
        guard let writer, !finished, let session = writer.liveSession, writer.sessionStarted else { return false }
        return session.isReady(index)
    }

    /// Calls `block` on `queue` whenever the input is ready for more: the block appends while
    /// ``isReadyForMoreMediaData`` is true, then returns; it runs again once the input is ready again,
    /// until ``markAsFinished()``. One block at a time, never after the input is finished.
    ///
    /// - Parameters:
    ///   - queue: The dispatch queue the block runs on.
    ///   - block: Appends samples until the input is not ready or the source is done (then it calls
    ///     ``markAsFinished()``). Replaces a block given before.
    open func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        state.withLock { $0.request = (queue, block) }
        pump()
    }

    /// Runs the request block when the input is ready and the block is not running.
    func pump() {
        guard isReadyForMoreMediaData else { return }
        let request = state.withLock { s -> (queue: DispatchQueue, block: @Sendable () -> Void, appended: Int)? in
            guard let request = s.request, !s.requestRunning, !s.finished else { return nil }
            s.requestRunning = true
            return (request.queue, request.block, s.appended)
        }
        guard let request else { return }
        request.queue.async { [self] in
            if !state.withLock({ $0.finished }) { request.block() }
            let appendedMeanwhile = state.withLock { s -> Bool in
                s.requestRunning = false
                return s.appended != request.appended
            }
            // Still ready after appending: run again; otherwise the next finished sample calls `pump`.
            if appendedMeanwhile { pump() }
        }
    }

    /// Appends a sample buffer: pictures (its image buffer) or linear PCM sound to encode, or a
    /// compressed sample to write as it is. Sound at another sample rate or channel count than the
    /// output settings' is converted into theirs on the engine's thread (mono is copied to both
    /// channels of stereo, stereo becomes mono as the mean of the two). The sample is not copied (do
    /// not change it afterwards). Returns at once; the work runs on the engine's threads.
    ///
    /// - Parameter sampleBuffer: A picture (with an image buffer) or linear PCM sound for an input with
    ///   output settings, pictures in presentation order; a compressed sample with its data and timing
    ///   for an input without, in decode order.
    /// - Returns: True when the sample was queued, or dropped because it lies outside the session.
    ///   False when the input belongs to no writer, the writer is not writing, no session started, the
    ///   input is finished, or the sample cannot be taken; the writer then fails, saying why (unless
    ///   it had already ended).
    @discardableResult
    open func append(_ sampleBuffer: CMSampleBuffer) -> Bool {
        guard let (writer, index, format) = appendable() else { return false }
        return writer.appendSample(sampleBuffer, input: self, index: index, format: format)
    }

    /// The writer, track and format an append goes to; nil (failing the writer for misuse) otherwise.
    func appendable() -> (AVAssetWriter, Int, WriterInputFormat)? {
        let (writer, index, finished, writing) = state.withLock { ($0.writer, $0.index, $0.finished, $0.writing) }
        guard let writer else { return nil }
        if finished {
            writer.fail(misuse: "samples cannot be appended after markAsFinished()")
            return nil
        }
        guard writer.status == .writing else {
            if writer.status == .unknown { writer.fail(misuse: "samples cannot be appended before startWriting()") }
            return nil
        }
        guard writer.sessionStarted else {
            writer.fail(misuse: "Must start a session (using startSession(atSourceTime:)) first")
            return nil
        }
        guard let format = writing else { return nil }
        state.withLock { $0.appended += 1 }
        return (writer, index, format)
    }

    /// The writer ended without this input being marked finished (cancelled or failed): the request
    /// block is never called again, so it is let go with whatever it holds.
    func writerEnded() {
        state.withLock { $0.request = nil }
    }

    /// Says no more samples will come: the track's encoder is drained after the samples waiting.
    open func markAsFinished() {
        let (writer, index, already) = state.withLock { s -> (AVAssetWriter?, Int, Bool) in
            defer {
                s.finished = true
                // The block is never called again: let it go, and whatever it holds (an exporter
                // object that holds this writer, in the common pattern) with it.
                s.request = nil
            }
            return (s.writer, s.index, s.finished)
        }
        guard !already, let writer else { return }
        if writer.status == .unknown {
            writer.fail(misuse: "markAsFinished() cannot be called before startWriting()")
            return
        }
        writer.finishTrack(index)
    }
}
