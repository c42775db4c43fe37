internal import MediaEngine
import Dispatch
import Foundation
internal import Locking
import Synchronization

/// Makes still images of an asset's video at times of its timeline, independently of playback.
///
/// Images come from the asset's first enabled video track (for a composition, through its segments:
/// the picture of the file and time underneath, never one from beyond a cut), decoded with FFmpeg on the engine's own
/// threads (never on Swift's cooperative pool or the caller's thread, except the synchronous
/// ``copyCGImage(at:actualTime:)``, which waits on its caller's as Apple's does). With the default
/// tolerances an image costs one seek and one decoded picture, the keyframe nearest the time asked;
/// with zero tolerances it is the picture showing at that time exactly, which may cost decoding a
/// group of pictures. ``images(for:)`` and the legacy batch call
/// (``generateCGImagesAsynchronously(forTimes:completionHandler:)``) keep one decoder across their times.
///
/// What Avocet does where Apple does not say: a time past the end of the video, before its start, or
/// not a number fails with ``AVError/Code-swift.enum/noImageAtTime`` unless a picture lies within the
/// tolerances (with the default, unbounded ones, the nearest keyframe always does); an asset without
/// video fails with ``AVError/Code-swift.enum/operationNotSupportedForAsset``. The generator keeps up
/// to four idle picture readers (open files) between requests, until it is deallocated.
open class AVAssetImageGenerator: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the settings sit behind a lock; the rest is immutable or guards itself.
    /// The asset the generator makes images of.
    public let asset: AVAsset
    private let source: PictureSource
    private let settingsState = Locked(ImageSettings())
    /// A video composition to render images through, copied when set. When one is set,
    /// ``appliesPreferredTrackTransform`` is ignored and images are ``AVVideoComposition/renderSize``
    /// (shrunk to fit ``maximumSize``): a pass-through instruction shows its track's picture; an
    /// ``AVVideoCompositionInstruction`` draws its layers (each track's picture showing at the time,
    /// placed by its transform, cropped and faded as its ramps say, over the background colour), and
    /// the actual time is the time asked. A composition Apple's generator would refuse with an exception
    /// (``AVVideoComposition/renderScale`` other than 1, an empty ``AVVideoComposition/renderSize``, a
    /// ``AVVideoComposition/frameDuration`` that is not positive, a negative
    /// ``AVVideoComposition/sourceTrackIDForFrameTiming``), a time no instruction covers, and an app's
    /// own instruction class that passes nothing through (custom compositors) fail the request with
    /// ``AVError/Code-swift.enum/invalidVideoComposition``.
    open var videoComposition: AVVideoComposition? {
        get { setting(\.videoComposition) }
        set { set(\.videoComposition, newValue.flatMap { $0.copy() as? AVVideoComposition }) }
    }

    /// The legacy batches still reporting, which ``cancelAllCGImageGeneration()`` ends.
    private let batches = Locked<[ObjectIdentifier: LegacyBatch]>([:])

    /// A generator for `asset`. Does no I/O; succeeds for assets without video (generation then fails).
    ///
    /// - Parameter asset: A file's asset or a composition; images come from its first enabled video
    ///   track.
    public init(asset: AVAsset) {
        self.asset = asset
        source = PictureSource(asset: asset)
        super.init()
    }

    /// Whether images are turned by the track's preferred transform (quarter turns and mirrors only),
    /// so that a phone's portrait movie comes out upright. Default false.
    open var appliesPreferredTrackTransform: Bool {
        get { setting(\.appliesPreferredTrackTransform) }
        set { set(\.appliesPreferredTrackTransform, newValue) }
    }

    /// The largest image size wanted: images shrink to fit it, keeping their aspect ratio, and are never
    /// enlarged. `.zero` (the default) keeps the video's size; a zero width or height leaves that side free.
    open var maximumSize: CGSize {
        get { setting(\.maximumSize) }
        set { set(\.maximumSize, newValue) }
    }

    /// Which part of the picture, in what shape (see ``ApertureMode``). Default
    /// ``ApertureMode/cleanAperture``; nil counts as the default.
    open var apertureMode: ApertureMode? {
        get { setting(\.apertureMode) }
        set { set(\.apertureMode, newValue) }
    }

    /// How far before the requested time an image's picture may lie. Default `.positiveInfinity`;
    /// `.zero` on both sides asks for the exact picture.
    open var requestedTimeToleranceBefore: CMTime {
        get { setting(\.toleranceBefore) }
        set { set(\.toleranceBefore, newValue) }
    }

    /// How far after the requested time an image's picture may lie. Default `.positiveInfinity`.
    open var requestedTimeToleranceAfter: CMTime {
        get { setting(\.toleranceAfter) }
        set { set(\.toleranceAfter, newValue) }
    }

    private var settings: ImageSettings { settingsState.withLock { $0 } }

    private func setting<T>(_ key: KeyPath<ImageSettings, T>) -> T {
        settings[keyPath: key]
    }

    private func set<T: Sendable>(_ key: WritableKeyPath<ImageSettings, T> & Sendable, _ value: T) {
        settingsState.withLock { $0[keyPath: key] = value }
    }

    // MARK: - Swift concurrency

    /// The image for `time`, and the time of the picture it shows. Loads the asset's header if needed,
    /// then seeks and decodes on the engine's threads. Cancelling the calling task stops the decode.
    ///
    /// - Parameter time: A time of the asset's timeline; which picture answers it depends on
    ///   ``requestedTimeToleranceBefore`` and ``requestedTimeToleranceAfter``.
    /// - Returns: The image, and the time from which its picture shows in the asset (the time asked,
    ///   through a ``videoComposition``).
    /// - Throws: `CancellationError` when the calling task was cancelled; otherwise an ``AVError``:
    ///   ``AVError/Code-swift.enum/noImageAtTime`` when no picture lies within the tolerances,
    ///   ``AVError/Code-swift.enum/operationNotSupportedForAsset`` for an asset without video,
    ///   ``AVError/Code-swift.enum/invalidVideoComposition``, or the header load's or decoder's error.
    open func image(at time: CMTime) async throws -> (image: CGImage, actualTime: CMTime) {
        let (source, settings) = (self.source, self.settings)
        do {
            let tracks = try await source.tracks()
            return try await IOExecutor.shared.run { token in
                var reader: PictureSource.HeldReader?
                defer { source.checkIn(reader) }
                return try source.generate(at: time, settings: settings, tracks: tracks, reader: &reader, cancellation: token)
            }
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw AVError.converting(error)
        }
    }

    /// The images for `times`, as an asynchronous sequence that yields one element per time, in order.
    /// Nothing is generated until the sequence is iterated; see ``Images``.
    ///
    /// - Parameter times: Times of the asset's timeline, in any order; the settings in force now apply
    ///   to every one.
    /// - Returns: A sequence of ``Images/Element`` values, a failure element for a time without an image.
    open func images(for times: [CMTime]) -> Images {
        Images(ImageRun(source: source, times: times, settings: settings))
    }

    // MARK: - Callbacks

    /// Generates an image for each of `requestedTimes` and calls `handler` once per time, in order.
    /// Returns at once; one decoder serves every time, on the engine's threads.
    ///
    /// - Parameters:
    ///   - requestedTimes: `NSValue`s holding `CMTime`s (`NSValue(time:)`).
    ///   - handler: Runs on a serial background queue: with ``Result/succeeded``, the image
    ///     and its actual time; with ``Result/failed`` and the error; or with
    ///     ``Result/cancelled`` after ``cancelAllCGImageGeneration()``.
    open func generateCGImagesAsynchronously(forTimes requestedTimes: [NSValue],
                                               completionHandler handler: @escaping AVAssetImageGeneratorCompletionHandler) {
        start(requestedTimes.map(\.timeValue), handler)
    }

    /// Generates the image for `requestedTime` and calls `handler` once. Returns at once.
    ///
    /// - Parameters:
    ///   - requestedTime: A time of the asset's timeline.
    ///   - handler: Runs on a background queue with the image and its actual time, or with nil,
    ///     `.invalid` and the error (``AVError/Code-swift.enum/operationCancelled`` after
    ///     ``cancelAllCGImageGeneration()``).
    open func generateCGImageAsynchronously(for requestedTime: CMTime,
                                              completionHandler handler: @escaping @Sendable (CGImage?, CMTime, (any Error)?) -> Void) {
        start([requestedTime]) { _, image, actualTime, result, error in
            switch result {
            case .succeeded: handler(image, actualTime, nil)
            case .failed: handler(nil, .invalid, error)
            case .cancelled:
                handler(nil, .invalid, AVError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "Image generation was cancelled."]))
            }
        }
    }

    /// Ends every pending request of the two callback methods: each time not yet reported is reported
    /// ``Result/cancelled``, exactly once, and the decode in progress stops. Requests made
    /// later run normally.
    open func cancelAllCGImageGeneration() {
        let pending = batches.withLock { b -> [LegacyBatch] in
            defer { b.removeAll() }
            return Array(b.values)
        }
        for batch in pending { batch.cancel() }
    }

    /// Returns the image for `requestedTime`, waiting on the calling thread while the engine loads the
    /// header and decodes (Apple's synchronous method; do not call it on Swift's cooperative pool).
    ///
    /// - Parameters:
    ///   - requestedTime: A time of the asset's timeline.
    ///   - actualTime: When given, receives the time from which the image's picture shows; left
    ///     unchanged when the call throws.
    /// - Returns: The image.
    /// - Throws: An ``AVError``, as ``image(at:)`` throws it.
    open func copyCGImage(at requestedTime: CMTime, actualTime: UnsafeMutablePointer<CMTime>?) throws -> CGImage {
        let (source, settings) = (self.source, self.settings)
        let tracks = try source.blockingTracks()
        let outcome = Locked<Swift.Result<(image: CGImage, actualTime: CMTime), any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        IOExecutor.shared.submit {
            var reader: PictureSource.HeldReader?
            defer { source.checkIn(reader) }
            let result = Swift.Result {
                try source.generate(at: requestedTime, settings: settings, tracks: tracks, reader: &reader, cancellation: CancellationToken())
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw AVError(.unknown) }
        let generated = try result.mapError { AVError.converting($0) }.get()
        actualTime?.pointee = generated.actualTime
        return generated.image
    }

    private func start(_ times: [CMTime], _ handler: @escaping AVAssetImageGeneratorCompletionHandler) {
        let run = ImageRun(source: source, times: times, settings: settings)
        let batch = LegacyBatch(times: times, handler: handler)
        let key = ObjectIdentifier(batch)
        batches.withLock { $0[key] = batch }
        let task = Task { [weak self] in
            var index = 0
            while let element = await run.next() {
                batch.report(index, element)
                index += 1
            }
            // The run ended early only when cancelled: whatever is left is reported so.
            batch.cancel()
            _ = self?.batches.withLock { $0.removeValue(forKey: key) }
        }
        batch.attach(task)
    }
}

/// One legacy batch: its handler, reported exactly once per time, in order, on a serial queue; and the
/// task generating its images, which cancellation stops.
private final class LegacyBatch: Sendable {
    private struct State {
        var reported = 0
        var task: Task<Void, Never>?
        var cancelled = false
    }

    private let times: [CMTime]
    private let handler: AVAssetImageGeneratorCompletionHandler
    private let queue = DispatchQueue(label: "avocet.image-generator.callbacks")
    private let state = Locked(State())

    init(times: [CMTime], handler: @escaping AVAssetImageGeneratorCompletionHandler) {
        self.times = times
        self.handler = handler
    }

    func attach(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { s -> Bool in
            s.task = task
            return s.cancelled
        }
        if cancelNow { task.cancel() }
    }

    /// Reports time `index`'s outcome, unless that time was already reported (cancelled).
    func report(_ index: Int, _ element: AVAssetImageGenerator.Images.Element) {
        state.withLock { s in
            guard index == s.reported else { return }
            s.reported += 1
            let handler = self.handler
            switch element {
            case .success(let time, let image, let actual):
                queue.async { handler(time, image, actual, .succeeded, nil) }
            case .failure(let time, let error):
                queue.async { handler(time, nil, .invalid, .failed, error) }
            }
        }
    }

    /// Reports every time not yet reported as cancelled and stops the generating task.
    func cancel() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.cancelled = true
            let handler = self.handler
            while s.reported < times.count {
                let time = times[s.reported]
                s.reported += 1
                queue.async { handler(time, nil, .invalid, .cancelled, nil) }
            }
            return s.task
        }
        task?.cancel()
    }
}
