internal import MediaEngine
import Foundation
internal import Locking
import Synchronization

/// Hands out the pictures of the item it is added to as `CVPixelBuffer`s, for the app to show: BGRA
/// (`kCVPixelFormatType_32BGRA`, the default), 4:2:0 bi-planar (`...420YpCbCr8BiPlanarVideoRange`,
/// `...FullRange`) or 4:2:0 planar (`...420YpCbCr8Planar`, `...PlanarFullRange`: from 4:2:0 sources a
/// copy or a scaling, no colour conversion, in the layout SDL and most YCbCr-to-RGB converters take), as
/// `kCVPixelBufferPixelFormatTypeKey` asks, at the size `kCVPixelBufferWidthKey` and
/// `kCVPixelBufferHeightKey` ask (scaled in the same pass that converts them, fast bilinear as real-time
/// players scale) or else as decoded.
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
    /// The size pictures are scaled to, when the attributes ask for one.
    let pictureSize: (width: Int, height: Int)?
    private let pipeline = Locked<VideoOutputPipeline?>(nil)
    private let delegateState = Locked<(WeakBox<AnyObject>?, DispatchQueue?)>((nil, nil))
    /// Whether the delegate asked to hear when media arrives (kept across pipelines).
    private let wantsMediaNotice = Atomic<Bool>(false)

    /// An output in the pixel format `pixelBufferAttributes` names.
    ///
    /// - Parameter pixelBufferAttributes: Its `kCVPixelBufferPixelFormatTypeKey` names the pixel format:
    ///   32BGRA, 420v, 420f, y420 or f420; BGRA when absent or not one Avocet makes. `kCVPixelBufferWidthKey` and
    ///   `kCVPixelBufferHeightKey` together (positive, at most 16384) scale every picture to that size
    ///   (cheaper than scaling it afterwards: one pass converts and scales). Other keys are ignored.
    public init(pixelBufferAttributes: [String: Any]? = nil) {
        pixelFormat = AVPlayerItemVideoOutput.format(pixelBufferAttributes)
        pictureSize = AVPlayerItemVideoOutput.size(pixelBufferAttributes)
        super.init()
    }

    /// The same as ``init(pixelBufferAttributes:)``, from output settings.
    ///
    /// - Parameter outputSettings: Its `kCVPixelBufferPixelFormatTypeKey`, `kCVPixelBufferWidthKey` and
    ///   `kCVPixelBufferHeightKey` are read as ``init(pixelBufferAttributes:)`` reads them.
    public init(outputSettings: [String: Any]?) {
        pixelFormat = AVPlayerItemVideoOutput.format(outputSettings)
        pictureSize = AVPlayerItemVideoOutput.size(outputSettings)
        super.init()
    }

    private static func size(_ attributes: [String: Any]?) -> (width: Int, height: Int)? {
        func number(_ key: CFString) -> Int? {
            let value = attributes?[key as String]
            return (value as? NSNumber)?.intValue ?? (value as? Int)
        }
        guard let width = number(kCVPixelBufferWidthKey), let height = number(kCVPixelBufferHeightKey),
              (1...16_384).contains(width), (1...16_384).contains(height) else { return nil }
        return (width, height)
    }

    private static func format(_ attributes: [String: Any]?) -> OSType {
        let value = attributes?[kCVPixelBufferPixelFormatTypeKey as String]
        let number = (value as? NSNumber)?.uint32Value ?? (value as? OSType) ?? (value as? Int).map { OSType(truncatingIfNeeded: $0) }
        let known = [kCVPixelFormatType_32BGRA, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
                     kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange]
        return number.flatMap { known.contains($0) ? $0 : nil } ?? kCVPixelFormatType_32BGRA
    }

    override func attach(to item: AVPlayerItem?) {
        super.attach(to: item)
        let made = item.map { VideoOutputPipeline(item: $0, pixelFormat: pixelFormat, size: pictureSize) }
        made?.onFlush { [weak self] in self?.tellDelegate { $0.outputSequenceWasFlushed($1) } }
        pipeline.withLock { $0 = made }
        if wantsMediaNotice.load(ordering: .relaxed) { requestNotificationOfMediaDataChange(withAdvanceInterval: 0) }
    }

    /// The item became ready: decoding may start.
    func itemDidLoad() {
        current?.refill()
    }

    private var current: VideoOutputPipeline? { pipeline.withLock { $0 } }

    /// Decodes towards `time` and calls `handler` once its picture is buffered (at once when it is, or
    /// when the output is on no item). Never blocks.
    func prepare(at time: CMTime, then handler: @escaping @Sendable () -> Void) {
        guard let current else { return handler() }
        current.prepare(at: time, then: handler)
    }

    /// Whether the picture at `time` is buffered (or none will come).
    func holds(_ time: CMTime) -> Bool { current?.holds(time) ?? true }

    /// The pictures buffered, and whether a job is decoding more (for tests).
    var decodedAhead: (pictures: Int, decoding: Bool) { current?.decodedAhead ?? (0, false) }

    override func itemTimeAdvanced(to time: CMTime) {
        current?.advanced(to: time)
    }

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
