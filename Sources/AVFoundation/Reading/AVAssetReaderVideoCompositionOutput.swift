internal import MediaEngine
import Foundation
internal import Locking

/// Reads video tracks composed through an ``AVVideoComposition`` (its instructions, layer transforms,
/// opacity and crop ramps, background colour), or a single track's pictures (a composition track's
/// segments in turn), rendered at a fixed rate: the composition's ``AVVideoComposition/frameDuration``,
/// else the first track's nominal frame rate. Each frame is composed as RGBA at the render size by the
/// image pipeline (the one thumbnails and exports use), then converted once into a pooled pixel buffer
/// of the asked format and size; black where nothing plays. Frames run over the reader's time range,
/// ended at the asset's duration.
///
/// `videoSettings` takes the pixel-buffer keys of ``AVAssetReaderTrackOutput``; nil gives "a convenient
/// uncompressed format" as Apple's does: here 32BGRA at the render size. Tracks that are not video
/// tracks of the reader's asset, several tracks without a video composition, or settings it cannot
/// produce make ``AVAssetReader/canAdd(_:)`` false and ``AVAssetReader/startReading()`` fail, where
/// Apple's raises an exception. Custom compositors are not supported: the output has no
/// `customVideoCompositor` property.
open class AVAssetReaderVideoCompositionOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The tracks composed.
    public let videoTracks: [AVAssetTrack]
    /// The settings given, or nil for the convenient format.
    public let videoSettings: [String: Any]?
    private let format: Result<ReaderOutputFormat, AVError>
    private let composition = Locked<AVVideoComposition?>(nil)

    /// An output composing `videoTracks` as `videoSettings` say. Parses the settings only.
    ///
    /// - Parameters:
    ///   - videoTracks: One or more video tracks of the reader's asset; more than one needs a
    ///     ``videoComposition``.
    ///   - videoSettings: Pixel-buffer settings (pixel format, width, height); nil for 32BGRA at the
    ///     render size.
    public init(videoTracks: [AVAssetTrack], videoSettings: [String: Any]?) {
        self.videoTracks = videoTracks
        self.videoSettings = videoSettings
        if let videoSettings {
            format = ReaderOutputFormat.parse(videoSettings, mediaType: .video)
        } else {
            format = .success(.pictures(ReaderOutputFormat.PictureSettings(pixelFormat: kCVPixelFormatType_32BGRA, width: nil, height: nil)))
        }
        super.init(mediaType: .video)
    }

    /// The composition to render through (a copy is kept); needed to compose more than one track. Set
    /// it before reading starts: set afterwards it is ignored and the reader fails.
    open var videoComposition: AVVideoComposition? {
        get { composition.withLock { $0 } }
        set {
            let copy = newValue.map { $0.copy() as? AVVideoComposition ?? $0 }
            if state.withLock({ $0.queue != nil }) {
                state.withLock { $0.reader }?.fail(misuse: "videoComposition cannot be set after reading has started")
                return
            }
            composition.withLock { $0 = copy }
        }
    }

    override var readAhead: Int { 3 }

    override func configurationProblem(for reader: AVAssetReader) -> AVError? {
        if case .failure(let error) = format { return error }
        if videoTracks.isEmpty || videoTracks.contains(where: { $0.mediaType != .video }) {
            return AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "A video composition output composes one or more video tracks."])
        }
        if videoTracks.contains(where: { $0.asset !== reader.asset }) {
            return AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "An output may only read tracks of its reader's asset."])
        }
        if videoTracks.count > 1 && videoComposition == nil {
            return AVError(.invalidVideoComposition, userInfo: [NSLocalizedDescriptionKey: "Composing several video tracks needs a video composition."])
        }
        return nil
    }

    override func makeProducer(_ token: CancellationToken) throws -> any SampleProducer {
        guard case .success(.pictures(let settings)) = format, let asset = videoTracks.first?.asset else {
            throw AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The video composition output cannot read."])
        }
        return try RenderedPictureProducer(asset: asset, tracks: videoTracks, videoComposition: videoComposition, settings: settings)
    }
}
