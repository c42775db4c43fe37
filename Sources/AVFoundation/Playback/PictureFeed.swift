internal import MediaEngine
import Foundation

/// Where a video output's pictures come from: started at a time, then one picture after another in
/// presentation order, each already in the output's pixel format. Blocking: both calls run on an engine
/// thread, one caller at a time (the output's fill job).
protocol PictureFeed: AnyObject {
    /// Decoding goes on from `time` (item time): the next picture is the one showing then.
    func start(at time: CMTime, _ token: CancellationToken) throws
    /// The next picture and when it shows; nil after the last one.
    func next(_ token: CancellationToken) throws -> VideoOutputPipeline.Frame?
}

/// A file's video track decoded in order by the reading layer's `StreamReader`, each picture converted
/// once from the decoder's frame straight into a pixel buffer of the output's format (32BGRA, or 4:2:0
/// bi-planar or planar without a colour conversion from 4:2:0 sources), decoded on one thread where one
/// core keeps up (`StreamReader.decodesAtPace`), at the picture's decoded size or the one asked for (scaled in the
/// same pass, fast bilinear, as real-time players scale), from a pool whose buffers come back once the
/// app lets them go. The packets are the item's own read-ahead's (its `ItemDemuxer`, shared by every
/// output of the item and its sound: the file is not opened again, and a start inside what is kept costs
/// no seek); an item whose read-ahead has not begun, or a track it does not read, opens the file for a
/// reader of its own.
final class FilePictureFeed: PictureFeed {
    private let file: AVAssetTrack.FileTrack
    private let demuxer: @Sendable () -> ItemDemuxer?
    private var reader: StreamReader?
    private let buffers: PixelBufferSupply
    private let size: (width: Int, height: Int)?

    init(file: AVAssetTrack.FileTrack, demuxer: @escaping @Sendable () -> ItemDemuxer?, pixelFormat: OSType,
         size: (width: Int, height: Int)?) {
        self.file = file
        self.demuxer = demuxer
        self.size = size
        buffers = PixelBufferSupply(pixelFormat: pixelFormat)
    }

    /// The file track an item shows: its first enabled video track, when it has a file stream of its
    /// own (a composition's tracks do not).
    static func track(of item: AVPlayerItem, in tracks: [AVAssetTrack]) -> AVAssetTrack.FileTrack? {
        let shown = item.snapshot.tracks.filter(\.isEnabled).compactMap(\.assetTrack).first { $0.mediaType == .video }
        let videos = tracks.filter { $0.mediaType == .video }
        let track = shown ?? videos.first { $0.facts.isEnabled } ?? videos.first
        return track?.file
    }

    func start(at time: CMTime, _ token: CancellationToken) throws {
        let reader = try self.reader ?? openReader(token)
        // Scaled as players scale in real time (the output's size asked for: a window's), and decoded on
        // one thread where one core keeps up: pictures are taken at the pace they show.
        reader.scalesForSpeed = true
        reader.decodesAtPace = true
        self.reader = reader
        try AVError.converting { try reader.start(at: MediaTimestamp(time), token) }
    }

    /// A reader of the item's demuxer, or of the file opened again.
    private func openReader(_ token: CancellationToken) throws -> StreamReader {
        if let demuxer = demuxer(),
           let shared = try AVError.converting({ try StreamReader(demuxer: demuxer, streamIndex: file.stream.index, cancellation: token) }) {
            return shared
        }
        return try file.source.openStreamReader(streamIndex: file.stream.index, cancellation: token)
    }

    func next(_ token: CancellationToken) throws -> VideoOutputPipeline.Frame? {
        guard let reader, let (buffer, timing) = try buffers.nextPicture(from: reader, width: size?.width, height: size?.height, token) else {
            return nil
        }
        let start = CMTime(ticks: timing.presentationTime, timeBase: reader.timeBase)
        return VideoOutputPipeline.Frame(time: start, end: start + CMTime(ticks: timing.duration, timeBase: reader.timeBase), buffer: buffer)
    }
}

/// Pictures rendered one at a time through the reading layer's `PictureSource` (a video composition's
/// output, or a composition's segments), each the picture showing at the time after the one before,
/// converted from its RGBA rendering into the output's pixel format.
final class RenderedPictureFeed: PictureFeed {
    private let reader: PictureSource.KeptReader
    private let tracks: [AVAssetTrack]
    private let settings: ImageSettings
    /// How long each picture shows, when the pictures do not say: the video composition's frame
    /// duration, else the item's.
    private let step: CMTime
    private let buffers: PixelBufferSupply
    private let size: (width: Int, height: Int)?
    private let converter = PixelConverter()
    private var cursor = CMTime.zero

    init(reader: PictureSource.KeptReader, item: AVPlayerItem, tracks: [AVAssetTrack], pixelFormat: OSType,
         size: (width: Int, height: Int)?) {
        self.reader = reader
        self.size = size
        self.tracks = tracks
        var settings = ImageSettings()
        (settings.toleranceBefore, settings.toleranceAfter) = (.zero, .zero)
        settings.videoComposition = item.videoComposition
        self.settings = settings
        let composed = item.videoComposition?.frameDuration
        step = composed?.isNumeric == true ? (composed ?? item.snapshot.frameDuration) : item.snapshot.frameDuration
        buffers = PixelBufferSupply(pixelFormat: pixelFormat)
    }

    func start(at time: CMTime, _ token: CancellationToken) throws {
        cursor = time
    }

    func next(_ token: CancellationToken) throws -> VideoOutputPipeline.Frame? {
        let time = cursor
        var outcome = Result { try reader.generate(at: time, settings: settings, tracks: tracks, cancellation: token) }
        if case .failure = outcome {
            // No picture shows at that time (before the first, or a gap): the next one, if any.
            var later = settings
            later.toleranceAfter = .positiveInfinity
            outcome = Result { try reader.generate(at: time, settings: later, tracks: tracks, cancellation: token) }
        }
        guard case .success(let (image, actual)) = outcome, let rgba = image.dataProvider?.data else { return nil }
        let buffer = try buffers.buffer(width: size?.width ?? image.width, height: size?.height ?? image.height)
        guard let target = buffer.pixelMemory else { return nil }
        try AVError.converting { try converter.convert(rgba: rgba, width: image.width, height: image.height, into: target) }
        let start = settings.videoComposition == nil ? actual : time
        // The next picture starts a frame after this one; decoding goes on at least a tick later.
        let end = max(start + step, time + CMTime(value: 1, timescale: 90_000))
        cursor = end
        return VideoOutputPipeline.Frame(time: start, end: end, buffer: buffer)
    }
}
