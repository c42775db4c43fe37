import Foundation
internal import Locking

/// Appends pixel buffers to a video input with their presentation times, and hands out a pool of
/// buffers to draw them in.
///
/// ``pixelBufferPool`` exists once writing has started: buffers of the input's encoded size in the
/// pixel format of ``sourcePixelBufferAttributes`` (32BGRA when none is given), reused as they are let
/// go. Each appended buffer is encoded straight from its memory (converted and scaled once by
/// libswscale) on the engine's threads; keep it unchanged until the input is ready again.
open class AVAssetWriterInputPixelBufferAdaptor: NSObject, @unchecked Sendable {
    /// The input pictures go to.
    public let assetWriterInput: AVAssetWriterInput
    /// The attributes of the buffers the pool makes.
    public let sourcePixelBufferAttributes: [String: Any]?
    private let pool = Locked<CVPixelBufferPool?>(nil)

    /// An adaptor for `input` (a video input). A second adaptor on one input, an input that is not
    /// video, or one made after writing started, fails the writer the input was added to with
    /// ``AVError/Code-swift.enum/operationNotAllowed`` (Apple's raises an exception).
    ///
    /// - Parameters:
    ///   - input: A video input with output settings, made before ``AVAssetWriter/startWriting()``.
    ///   - sourcePixelBufferAttributes: Attributes of the pool's buffers
    ///     (`kCVPixelBufferPixelFormatTypeKey`, width, height); missing keys default to 32BGRA at the
    ///     input's encoded size.
    public init(assetWriterInput input: AVAssetWriterInput, sourcePixelBufferAttributes: [String: Any]? = nil) {
        assetWriterInput = input
        self.sourcePixelBufferAttributes = sourcePixelBufferAttributes
        super.init()
        let (writer, already) = input.state.withLock { s -> (AVAssetWriter?, Bool) in
            defer { s.hasAdaptor = true }
            return (s.writer, s.hasAdaptor)
        }
        if already { writer?.fail(misuse: "an input takes one pixel buffer adaptor") }
        if input.mediaType != .video { writer?.fail(misuse: "a pixel buffer adaptor needs a video input") }
        if let writer, writer.status != .unknown { writer.fail(misuse: "a pixel buffer adaptor must be made before writing starts") }
    }

    /// A pool of buffers to draw pictures in; nil until the writer has started writing
    /// (``AVAssetWriter/startWriting()``), and nil for an input without video output settings.
    open var pixelBufferPool: CVPixelBufferPool? {
        if let made = pool.withLock({ $0 }) { return made }
        guard let writer = assetWriterInput.state.withLock({ $0.writer }), writer.status == .writing,
              case .video(let video)? = assetWriterInput.state.withLock({ $0.writing }) else { return nil }
        var attributes = sourcePixelBufferAttributes ?? [:]
        if attributes[kCVPixelBufferPixelFormatTypeKey as String] == nil {
            attributes[kCVPixelBufferPixelFormatTypeKey as String] = NSNumber(value: kCVPixelFormatType_32BGRA)
        }
        if attributes[kCVPixelBufferWidthKey as String] == nil { attributes[kCVPixelBufferWidthKey as String] = NSNumber(value: video.width) }
        if attributes[kCVPixelBufferHeightKey as String] == nil { attributes[kCVPixelBufferHeightKey as String] = NSNumber(value: video.height) }
        var made: CVPixelBufferPool?
        guard CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made) == kCVReturnSuccess, let made else { return nil }
        return pool.withLock { current in
            if let current { return current }
            current = made
            return made
        }
    }

    /// Appends `pixelBuffer`, shown at `presentationTime`. Returns at once: the picture is converted
    /// and encoded on the engine's threads, from the buffer's memory (keep it unchanged until the input
    /// is ready again).
    ///
    /// - Parameters:
    ///   - pixelBuffer: The picture, such as one from ``pixelBufferPool``.
    ///   - presentationTime: When it is shown, in source time as sample buffers' times are; later than
    ///     the picture appended before.
    /// - Returns: True when the picture was queued, or dropped because it lies outside the session.
    ///   False when the input cannot take it now (see ``AVAssetWriterInput/append(_:)``), or the
    ///   picture cannot be encoded: the writer then fails, saying why (a pixel format it does not
    ///   read, ``AVError/Code-swift.enum/operationNotAllowed`` for a time out of order).
    @discardableResult
    open func append(_ pixelBuffer: CVPixelBuffer, withPresentationTime presentationTime: CMTime) -> Bool {
        guard let (writer, index, format) = assetWriterInput.appendable() else { return false }
        guard case .video = format, let session = writer.liveSession,
              let start = writer.sessionStartTime else { return false }
        return writer.appendPicture(pixelBuffer, at: presentationTime, input: assetWriterInput, index: index, session: session,
                                    start: start, end: writer.sessionEndTime)
    }
}
