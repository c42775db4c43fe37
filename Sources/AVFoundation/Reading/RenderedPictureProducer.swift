internal import MediaEngine
import Foundation

/// Pictures of video tracks rendered at a fixed rate (a video composition's frame duration, else the
/// first track's nominal rate) by the image pipeline: through a video composition's instructions and
/// layers, or one composition track's segments; each frame composed as RGBA at the render size, then
/// converted once (and scaled, when the settings ask another size) into a pooled pixel buffer. Black
/// where nothing plays. Before the first frame it loads a composition's URL-only segment files.
final class RenderedPictureProducer: SampleProducer {
    private let asset: AVAsset
    private let tracks: [AVAssetTrack]
    private let settings: ImageSettings
    private let pixelFormat: OSType
    private let outputSize: (width: Int, height: Int)
    private let renderSize: (width: Int, height: Int)
    private let rate: Rational
    private let pictures: PictureSource
    private var frames: RenderedFrames?
    private var index = 0
    private var count = 0
    private var start = CMTime.zero
    private let converter = PixelConverter()
    private let buffers: PixelBufferSupply
    private var formatDescription: CMVideoFormatDescription?

    init(asset: AVAsset, tracks: [AVAssetTrack], videoComposition: AVVideoComposition?, settings: ReaderOutputFormat.PictureSettings) throws {
        (self.asset, self.tracks, pixelFormat) = (asset, tracks, settings.pixelFormat)
        buffers = PixelBufferSupply(pixelFormat: settings.pixelFormat)
        let track = tracks.first { $0.facts.isEnabled } ?? tracks.first
        let natural = videoComposition?.renderSize ?? track?.facts.naturalSize ?? .zero
        guard natural.width >= 1, natural.height >= 1, natural.width <= 16384, natural.height <= 16384 else {
            throw AVError(.invalidVideoComposition, userInfo: [NSLocalizedDescriptionKey: "The video has no picture size to render."])
        }
        renderSize = (Int(natural.width.rounded()), Int(natural.height.rounded()))
        outputSize = (settings.width ?? renderSize.width, settings.height ?? renderSize.height)
        rate = try RenderedFrames.frameRate(videoComposition?.frameDuration, track?.facts.nominalFrameRate)
        var image = ImageSettings()
        image.toleranceBefore = .zero
        image.toleranceAfter = .zero
        image.videoComposition = videoComposition
        image.outputSize = renderSize
        self.settings = image
        let pictures = PictureSource(asset: asset)
        // Loads the files of a composition's URL-only segments (the engine thread set aside meanwhile).
        _ = try IOExecutor.parking { try pictures.blockingTracks() }
        self.pictures = pictures
    }

    func start(_ range: CMTimeRange, _ token: CancellationToken) throws {
        var window = range
        let duration = try IOExecutor.parking { try AVAsyncProperty<AVAsset, CMTime>.duration.blockingLoader(asset).get() }
        if duration.isNumeric { window = window.intersection(CMTimeRange(start: .zero, duration: duration)) }
        guard window.duration.isNumeric else {
            throw AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "The asset's duration is unknown: give the reader a time range."])
        }
        frames?.close()
        frames = RenderedFrames(pictures: pictures, settings: settings, tracks: tracks, start: window.start, rate: rate)
        let exact = window.duration.seconds * Double(rate.numerator) / Double(rate.denominator)
        count = exact.isFinite ? max(0, Int(min((exact - 1e-6).rounded(.up), 1e9))) : 0
        (index, start) = (0, window.start)
    }

    deinit { frames?.close() }

    func next(_ token: CancellationToken) throws -> ProducedSample? {
        guard let frames, index < count else { return nil }
        let rgba = try frames.render(index, token)
        let buffer = try buffers.buffer(width: outputSize.width, height: outputSize.height)
        guard let target = buffer.pixelMemory else {
            throw AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The pixel format cannot be rendered into."])
        }
        try AVError.converting { try converter.convert(rgba: rgba, width: renderSize.width, height: renderSize.height, into: target) }
        let frame = CMTime(value: Int64(rate.denominator), timescale: rate.numerator)
        let timing = CMSampleTimingInfo(duration: frame, presentationTimeStamp: start + CMTimeMultiply(frame, multiplier: Int32(clamping: index)),
                                        decodeTimeStamp: .invalid)
        index += 1
        if formatDescription == nil {
            formatDescription = try CMFormatDescription(imageBuffer: buffer)
        }
        guard let formatDescription else { return nil }
        return .buffer(try SampleMemory.pictureBuffer(buffer, formatDescription: formatDescription, timing: timing))
    }
}
