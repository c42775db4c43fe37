internal import MediaEngine
import Foundation
internal import Locking
import Synchronization

/// Hands out the pictures of the item it is added to as `CVPixelBuffer`s, for the app to show: BGRA
/// (`kCVPixelFormatType_32BGRA`, the default) or 4:2:0 bi-planar (`...420YpCbCr8BiPlanarVideoRange`,
/// `...FullRange`), as `kCVPixelBufferPixelFormatTypeKey` asks.
///
/// A pipeline decodes ahead of the item's time on the engine's threads (never on Swift's cooperative
/// pool or the caller's), keeping at most six pictures; taking pictures makes room and decoding goes
/// on. Asking for a time outside what is buffered (a seek) drops the buffer and decodes from there; the
/// pull delegate hears ``AVPlayerItemOutputPullDelegate/outputSequenceWasFlushed(_:)``. Pictures are
/// the item's video as stored (apply the track's preferred transform to show it upright), or its video
/// composition's output.
open class AVPlayerItemVideoOutput: AVPlayerItemOutput, @unchecked Sendable {
    // @unchecked Sendable: the pipeline and delegate sit behind locks.
    let pixelFormat: OSType
    private let pipeline = Locked<VideoOutputPipeline?>(nil)
    private let delegateState = Locked<(WeakBox<AnyObject>?, DispatchQueue?)>((nil, nil))
    /// Whether the delegate asked to hear when media arrives (kept across pipelines).
    private let wantsMediaNotice = Atomic<Bool>(false)

    /// An output in the pixel format `pixelBufferAttributes` names.
    ///
    /// - Parameter pixelBufferAttributes: Its `kCVPixelBufferPixelFormatTypeKey` names the pixel format:
    ///   32BGRA, 420v or 420f; BGRA when absent or not one Avocet makes. Other keys are ignored.
    public init(pixelBufferAttributes: [String: Any]? = nil) {
        pixelFormat = AVPlayerItemVideoOutput.format(pixelBufferAttributes)
        super.init()
    }

    /// The same as ``init(pixelBufferAttributes:)``, from output settings.
    ///
    /// - Parameter outputSettings: Its `kCVPixelBufferPixelFormatTypeKey` is read as
    ///   ``init(pixelBufferAttributes:)`` reads it.
    public init(outputSettings: [String: Any]?) {
        pixelFormat = AVPlayerItemVideoOutput.format(outputSettings)
        super.init()
    }

    private static func format(_ attributes: [String: Any]?) -> OSType {
        let value = attributes?[kCVPixelBufferPixelFormatTypeKey as String]
        let number = (value as? NSNumber)?.uint32Value ?? (value as? OSType) ?? (value as? Int).map { OSType(truncatingIfNeeded: $0) }
        let known = [kCVPixelFormatType_32BGRA, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange]
        return number.flatMap { known.contains($0) ? $0 : nil } ?? kCVPixelFormatType_32BGRA
    }

    override func attach(to item: AVPlayerItem?) {
        super.attach(to: item)
        let made = item.map { VideoOutputPipeline(item: $0, pixelFormat: pixelFormat) }
        made?.onFlush { [weak self] in self?.tellDelegate { $0.outputSequenceWasFlushed($1) } }
        pipeline.withLock { $0 = made }
        if wantsMediaNotice.load(ordering: .relaxed) { requestNotificationOfMediaDataChange(withAdvanceInterval: 0) }
    }

    /// The item became ready: decoding may start.
    func itemDidLoad() {
        current?.refill()
    }

    private var current: VideoOutputPipeline? { pipeline.withLock { $0 } }

    /// Whether a picture other than the last one handed out shows at `itemTime`. Starts decoding there
    /// when nothing is buffered for it. Never blocks.
    ///
    /// - Parameter itemTime: A time on the item's timeline, such as
    ///   ``AVPlayerItemOutput/itemTime(forHostTime:)`` gives for the next display refresh.
    /// - Returns: True when ``copyPixelBuffer(forItemTime:itemTimeForDisplay:)`` would give a new
    ///   picture; false when it is the one handed out last, not decoded yet, or the output is on no item.
    open func hasNewPixelBuffer(forItemTime itemTime: CMTime) -> Bool {
        current?.hasNew(at: itemTime) ?? false
    }

    /// The picture showing at `itemTime`. Never blocks: buffered pictures before it are dropped.
    ///
    /// - Parameters:
    ///   - itemTime: A time on the item's timeline.
    ///   - outItemTimeForDisplay: When given, receives the time from which the picture shows.
    /// - Returns: The picture, in the output's pixel format; nil when it is not decoded yet (decoding
    ///   starts there) or the item has no picture then.
    open func copyPixelBuffer(forItemTime itemTime: CMTime, itemTimeForDisplay outItemTimeForDisplay: UnsafeMutablePointer<CMTime>?) -> CVPixelBuffer? {
        guard let (buffer, time) = current?.take(at: itemTime) else { return nil }
        outItemTimeForDisplay?.pointee = time
        return buffer
    }

    /// Sets the pull delegate and the queue it is called on.
    ///
    /// - Parameters:
    ///   - delegate: The delegate, held weakly; nil for none.
    ///   - delegateQueue: Where the delegate is called; nil for the main queue.
    open func setDelegate(_ delegate: (any AVPlayerItemOutputPullDelegate)?, queue delegateQueue: DispatchQueue?) {
        delegateState.withLock { $0 = (delegate.map { WeakBox($0 as AnyObject) }, delegateQueue) }
    }

    /// Asks the delegate to be told once pictures are buffered
    /// (``AVPlayerItemOutputPullDelegate/outputMediaDataWillChange(_:)``), even when asked before the
    /// output is added to an item or the item is ready.
    ///
    /// - Parameter interval: Ignored: the delegate is told as soon as a picture is buffered.
    open func requestNotificationOfMediaDataChange(withAdvanceInterval interval: TimeInterval) {
        wantsMediaNotice.store(true, ordering: .relaxed)
        current?.whenBuffered { [weak self] in
            self?.wantsMediaNotice.store(false, ordering: .relaxed)
            self?.tellDelegate { $0.outputMediaDataWillChange($1) }
        }
    }

    private func tellDelegate(_ call: @escaping @Sendable (any AVPlayerItemOutputPullDelegate, AVPlayerItemOutput) -> Void) {
        let (box, queue) = delegateState.withLock { $0 }
        guard let delegate = box?.value as? any AVPlayerItemOutputPullDelegate else { return }
        let target = UncheckedBox(delegate)
        (queue ?? .main).async { [weak self] in
            guard let self else { return }
            call(target.value, self)
        }
    }
}

/// The pictures of one item decoded ahead for a video output, at most `capacity` at a time, by jobs on
/// the engine's threads that each fill the buffer and end (no thread waits for room).
final class VideoOutputPipeline: Sendable {
    struct Frame {
        let time: CMTime
        let end: CMTime
        let buffer: CVPixelBuffer
    }

    private struct State {
        var frames: [Frame] = []
        /// Where decoding goes on from.
        var next = CMTime.zero
        var running = false
        var ended = false
        var generation = 0
        var lastHanded: CMTime?
        var onFlush: (@Sendable () -> Void)?
        var onBuffered: (@Sendable () -> Void)?
    }

    static let capacity = 6
    private let item: WeakBox<AVPlayerItem>
    private let pixelFormat: OSType
    private let reader: PictureSource.KeptReader
    private let state = LockedState(State())
    private let converter = Locked(UncheckedBox(PixelConverter()))

    init(item: AVPlayerItem, pixelFormat: OSType) {
        self.item = WeakBox(item)
        self.pixelFormat = pixelFormat
        reader = PictureSource.KeptReader(PictureSource(asset: item.asset))
    }

    deinit {
        reader.release()
    }

    @discardableResult
    private func change<T>(_ body: (inout State) -> T) -> T {
        state.change(body)
    }

    func onFlush(_ handler: @escaping @Sendable () -> Void) { change { $0.onFlush = handler } }

    func whenBuffered(_ handler: @escaping @Sendable () -> Void) {
        let now = change { s -> Bool in
            if !s.frames.isEmpty { return true }
            s.onBuffered = handler
            return false
        }
        if now { handler() }
        refill()
    }

    /// The buffered frame showing at `time`, dropping older ones; restarts decoding at `time` when
    /// it lies outside what is buffered or being decoded.
    private func frame(at time: CMTime) -> Frame? {
        guard time.isNumeric else { return nil }
        let (found, flushed) = change { s -> (Frame?, (@Sendable () -> Void)?) in
            s.frames.removeAll { $0.end <= time }
            if let first = s.frames.first, first.time <= time { return (first, nil) }
            // Before the buffer (a step back), or far from where decoding stands (a jump): start over there.
            let before = s.frames.first.map { time < $0.time } ?? false
            let away = s.frames.isEmpty && (time < s.next - CMTime(value: 1, timescale: 10) || time > s.next + CMTime(value: 1, timescale: 1))
            if before || away || s.ended && time < s.next {
                s.frames = []
                s.next = time
                s.ended = false
                s.generation += 1
                s.lastHanded = nil
                return (nil, s.onFlush)
            }
            return (nil, nil)
        }
        flushed?()
        refill()
        return found
    }

    func hasNew(at time: CMTime) -> Bool {
        guard let frame = frame(at: time) else { return false }
        return change { $0.lastHanded != frame.time }
    }

    func take(at time: CMTime) -> (CVPixelBuffer, CMTime)? {
        guard let frame = frame(at: time) else { return nil }
        change { $0.lastHanded = frame.time }
        refill()
        return (frame.buffer, frame.time)
    }

    /// Starts a job filling the buffer, unless one runs or the buffer is full.
    func refill() {
        let start = change { s -> Bool in
            guard !s.running, !s.ended, s.frames.count < VideoOutputPipeline.capacity, item.value?.status == .readyToPlay else { return false }
            s.running = true
            return true
        }
        guard start else { return }
        IOExecutor.shared.submit { [self] in fill() }
    }

    /// Decodes pictures from where decoding stands until the buffer is full, on an engine thread.
    private func fill() {
        defer {
            change { $0.running = false }
            let more = change { s in s.frames.count < VideoOutputPipeline.capacity && !s.ended }
            if more { refill() }
        }
        guard let item = item.value, let tracks = try? item.asset.blockingFacts().get().tracks else { return }
        var settings = ImageSettings()
        settings.toleranceBefore = .zero
        settings.toleranceAfter = .zero
        settings.videoComposition = item.videoComposition
        let step = item.videoComposition?.frameDuration.isNumeric == true ? (item.videoComposition?.frameDuration ?? item.snapshot.frameDuration)
            : item.snapshot.frameDuration
        while true {
            let (time, generation, full) = change { s in (s.next, s.generation, s.frames.count >= VideoOutputPipeline.capacity) }
            if full { return }
            var outcome = Result { try reader.generate(at: time, settings: settings, tracks: tracks, cancellation: CancellationToken()) }
            if case .failure = outcome {
                // No picture shows at that time (before the first: an HLS stream's shows a little after
                // its start; or a gap): the next one, if any.
                var later = settings
                later.toleranceAfter = .positiveInfinity
                outcome = Result { try reader.generate(at: time, settings: later, tracks: tracks, cancellation: CancellationToken()) }
            }
            guard case .success(let (image, actual)) = outcome, let buffer = makeBuffer(image) else {
                change { s in if s.generation == generation { s.ended = true } }
                return
            }
            let start = settings.videoComposition == nil ? actual : time
            // The next picture starts a frame after this one; decoding goes on at least a tick later.
            let end = max(start + step, time + CMTime(value: 1, timescale: 90_000))
            let notify = change { s -> (@Sendable () -> Void)? in
                guard s.generation == generation else { return nil }
                s.frames.append(Frame(time: start, end: end, buffer: buffer))
                s.next = end
                defer { s.onBuffered = nil }
                return s.onBuffered
            }
            notify?()
        }
    }

    private func makeBuffer(_ image: CGImage) -> CVPixelBuffer? {
        guard let rgba = image.dataProvider?.data, let buffer = CVPixelBuffer(width: image.width, height: image.height, pixelFormat: pixelFormat),
              let target = buffer.pixelMemory else { return nil }
        do {
            try converter.withLock { box in try box.value.convert(rgba: rgba, width: image.width, height: image.height, into: target) }
        } catch {
            return nil
        }
        return buffer
    }
}
