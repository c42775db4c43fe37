internal import MediaEngine
import Foundation
internal import Locking

/// A generator's settings as they stood when a request was made.
struct ImageSettings: Sendable {
    var appliesPreferredTrackTransform = false
    var maximumSize = CGSize.zero
    var apertureMode: AVAssetImageGenerator.ApertureMode? = .cleanAperture
    var toleranceBefore = CMTime.positiveInfinity
    var toleranceAfter = CMTime.positiveInfinity
    var videoComposition: AVVideoComposition?
    /// The exact size of the pictures, when set (an export's encoder size), instead of fitting
    /// `maximumSize`.
    var outputSize: (width: Int, height: Int)?
}

/// Where an image generator's pictures come from: the asset's first enabled video track (through its
/// segments, for a composition), or the layers a video composition names; picture readers come from
/// its `ReaderPool` and go back to it between requests.
final class PictureSource: Sendable {
    let asset: AVAsset
    typealias HeldReader = ReaderPool.HeldReader

    /// Idle readers kept between requests (four at most, open until this source is gone).
    private let pool = ReaderPool()
    /// The file tracks behind a composition's segments.
    private let sources: SegmentSources

    init(asset: AVAsset) {
        self.asset = asset
        sources = SegmentSources(for: asset)
    }

    /// The asset's tracks, with the sources of a composition's segments given by URL loaded. Loads the
    /// asset's header (once per asset).
    func tracks() async throws -> [AVAssetTrack] {
        let tracks = try await asset.facts().tracks
        await sources.prepare(tracks)
        return tracks
    }

    /// The same, waiting on the calling thread (for `copyCGImage(at:actualTime:)`).
    func blockingTracks() throws -> [AVAssetTrack] {
        let tracks = try asset.blockingFacts().get().tracks
        sources.blockingPrepare(tracks)
        return tracks
    }

    /// The track images come from without a video composition: the first enabled video track, else
    /// the first video track.
    private static func videoTrack(in tracks: [AVAssetTrack]) throws -> AVAssetTrack {
        let videos = tracks.filter { $0.mediaType == .video }
        guard let track = videos.first(where: { $0.facts.isEnabled }) ?? videos.first else {
            throw AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "The asset has no video track to make images from.",
            ])
        }
        return track
    }

    /// Gives `held` back to the pool (which keeps or closes it).
    func checkIn(_ held: HeldReader?) {
        pool.checkIn(held)
    }

    /// A reader kept across the requests of one caller that makes pictures in sequence (an export
    /// through a video composition, a player's video output): taken for each request, put back after,
    /// and returned to the source at the end.
    final class KeptReader: Sendable {
        private let source: PictureSource
        private let held = Locked<HeldReader?>(nil)

        init(_ source: PictureSource) {
            self.source = source
        }

        /// `source.generate` with the kept reader. Blocking: call on an engine thread.
        func generate(at time: CMTime, settings: ImageSettings, tracks: [AVAssetTrack],
                      cancellation: CancellationToken) throws -> (image: CGImage, actualTime: CMTime) {
            var reader = held.withLock { r -> HeldReader? in defer { r = nil }; return r }
            defer { held.withLock { $0 = reader } }
            return try source.generate(at: time, settings: settings, tracks: tracks, reader: &reader, cancellation: cancellation)
        }

        /// Gives the reader back to the source (which keeps or closes it).
        func release() {
            source.checkIn(held.withLock { r -> HeldReader? in defer { r = nil }; return r })
        }
    }

    /// What a request draws: one track's pictures (at the render size of a video composition's
    /// pass-through instruction, or shaped by the settings), or a layer instruction's layers.
    enum Drawing {
        case track(AVAssetTrack, renderSize: CGSize?)
        case layers(AVVideoCompositionInstruction, renderSize: CGSize)
    }

    /// The image at `time`, as `settings` say. Blocking: takes or opens readers of the right file
    /// tracks, then seeks and decodes, all on the calling engine thread; `reader` is kept across the
    /// requests of a batch. Throws AVErrors.
    func generate(at time: CMTime, settings: ImageSettings, tracks: [AVAssetTrack], reader: inout HeldReader?,
                  cancellation: CancellationToken) throws -> (image: CGImage, actualTime: CMTime) {
        _ = try PictureSource.request(at: time, settings: settings)
        switch try PictureSource.plan(at: time, settings: settings, tracks: tracks) {
        case .track(let track, let renderSize):
            guard let point = try sources.locate(track, at: time) else { throw PictureSource.nothingPlays(at: time) }
            let request = try PictureSource.request(at: point, settings: settings)
            let format = settings.outputSize.map { PictureFormat(width: $0.width, height: $0.height) } ?? renderSize.map { size in
                let fitted = PictureSource.fit(width: Double(size.width), height: Double(size.height), into: settings.maximumSize)
                return PictureFormat(width: fitted.width, height: fitted.height)
            } ?? PictureSource.format(of: point.track, transform: track.facts.preferredTransform, settings: settings)
            let picture = try decode(point.track, request, format, held: &reader, cancellation)
            let pts = picture.presentationTime
            return (try PictureSource.image(picture), point.trackTime(ofSource: CMTime(ticks: pts.value, timeBase: pts.timeBase)))
        case .layers(let instruction, let renderSize):
            return (try composite(instruction, at: time, renderSize: renderSize, settings: settings, tracks: tracks, cancellation), time)
        }
    }

    /// Decodes `request` from `track`'s file with the held reader when it reads that stream, else an
    /// idle or a new one (the held one goes back to the idle ones).
    private func decode(_ track: AVAssetTrack, _ request: PictureRequest, _ format: PictureFormat, held: inout HeldReader?,
                        _ cancellation: CancellationToken) throws -> DecodedPicture {
        guard let file = track.file else { throw AVError(.noSourceTrack, userInfo: [NSLocalizedDescriptionKey: "The track has no media of its own."]) }
        return try AVError.converting {
            if let current = held, current.source !== file.source || current.reader.decodedStreamIndex != file.stream.index {
                checkIn(current)
                held = nil
            }
            let open = try held ?? pool.checkOut(file)
                ?? HeldReader(source: file.source, reader: file.source.openFrameReader(streamIndex: file.stream.index, cancellation: cancellation))
            held = open
            return try open.reader.picture(request, format: format, cancellation: cancellation)
        }
    }

    private static func image(_ picture: DecodedPicture) throws -> CGImage {
        guard let image = CGImage(rgbaPixels: picture.pixels, width: picture.width, height: picture.height) else {
            throw AVError(.decodeFailed, userInfo: [NSLocalizedDescriptionKey: "The decoded picture has no pixels."])
        }
        return image
    }

    private static func nothingPlays(at time: CMTime) -> AVError {
        AVError(.noImageAtTime, userInfo: [NSLocalizedDescriptionKey: "No video plays at \(time.seconds) s of the composition."])
    }

    /// A layer instruction's picture at `time`: each layer's track decoded at the picture showing then
    /// (exactly, within its segment), placed by the layer's transform, cropped and faded as its ramps
    /// say at `time`, over the background colour; scaled to fit `maximumSize`. A layer whose track has
    /// nothing at `time` (an empty segment, past its end) draws nothing.
    private func composite(_ instruction: AVVideoCompositionInstruction, at time: CMTime, renderSize: CGSize, settings: ImageSettings,
                           tracks: [AVAssetTrack], _ cancellation: CancellationToken) throws -> CGImage {
        let fitted = settings.outputSize ?? PictureSource.fit(width: Double(renderSize.width), height: Double(renderSize.height),
                                                              into: settings.maximumSize)
        let scale = CGAffineTransform(scaleX: CGFloat(fitted.width) / renderSize.width, y: CGFloat(fitted.height) / renderSize.height)
        var layers: [LayerCompositor.Layer] = []
        var exact = settings
        (exact.toleranceBefore, exact.toleranceAfter) = (.zero, .zero)
        for layerInstruction in instruction.layerInstructions {
            let values = layerInstruction.values.withLock { $0 }
            guard let track = tracks.first(where: { $0.trackID == values.trackID && $0.mediaType == .video }),
                  let point = try sources.locate(track, at: time) else { continue }
            let size = point.track.facts.naturalSize
            guard size.width >= 1, size.height >= 1, Double(size.width) * Double(size.height) <= Double(PictureFormat.maximumPixels) else { continue }
            let width = Int(size.width.rounded()), height = Int(size.height.rounded())
            var held: HeldReader?
            defer { checkIn(held) }
            let picture = try decode(point.track, try PictureSource.request(at: point, settings: exact),
                                     PictureFormat(width: width, height: height), held: &held, cancellation)
            let transform = values.transforms.value(at: time) { a, b, f in
                let f = CGFloat(f)
                return CGAffineTransform(a: a.a + (b.a - a.a) * f, b: a.b + (b.b - a.b) * f, c: a.c + (b.c - a.c) * f,
                                         d: a.d + (b.d - a.d) * f, tx: a.tx + (b.tx - a.tx) * f, ty: a.ty + (b.ty - a.ty) * f)
            }
            let opacity = values.opacities.value(at: time) { a, b, f in a + (b - a) * Float(f) }
            let crop = values.crops.value(at: time) { a, b, f in
                guard !a.isNull, !b.isNull else { return f < 1 ? a : b }
                let f = CGFloat(f)
                return CGRect(x: a.minX + (b.minX - a.minX) * f, y: a.minY + (b.minY - a.minY) * f,
                              width: a.width + (b.width - a.width) * f, height: a.height + (b.height - a.height) * f)
            }
            layers.append(LayerCompositor.Layer(pixels: picture.pixels, width: picture.width, height: picture.height,
                                                transform: transform.concatenating(scale), opacity: opacity, crop: crop))
        }
        let background = instruction.backgroundColor?.rgba8 ?? (0, 0, 0, 255)
        let pixels = LayerCompositor.render(layers, background: background, width: fitted.width, height: fitted.height)
        guard let image = CGImage(rgbaPixels: pixels, width: fitted.width, height: fitted.height) else {
            throw AVError(.videoCompositorFailed, userInfo: [NSLocalizedDescriptionKey: "The composed picture has no pixels."])
        }
        return image
    }

    /// The engine's request: the time and the window its tolerances allow. A tolerance that is positive
    /// infinity leaves its side unbounded; a negative, invalid or indefinite one counts as zero (Apple
    /// does not say; zero is the strictest reading).
    static func request(at time: CMTime, settings: ImageSettings) throws -> PictureRequest {
        guard time.isNumeric, time.timescale > 0 else {
            throw AVError(.noImageAtTime, userInfo: [
                NSLocalizedDescriptionKey: "No image can be made at a time that is not a number (\(time)).",
            ])
        }
        func edge(_ tolerance: CMTime, _ sign: Int64) -> CMTime? {
            if tolerance.isPositiveInfinity { return nil }
            let width = tolerance.isNumeric && tolerance.value > 0 && tolerance.timescale > 0 ? tolerance : .zero
            let edge = sign < 0 ? time - width : time + width
            // An edge beyond what a CMTime holds is as good as unbounded.
            return edge.isNumeric && edge.timescale > 0 ? edge : nil
        }
        return PictureSource.request(time, earliest: edge(settings.toleranceBefore, -1), latest: edge(settings.toleranceAfter, 1))
    }

    /// The request for `point`: the window of the tolerances (in track time) mapped onto the file track
    /// and kept inside the segment's span of it, so a picture from beyond a cut is never shown.
    static func request(at point: SourcePoint, settings: ImageSettings) throws -> PictureRequest {
        let trackRequest = try request(at: point.time, settings: settings)
        guard let segment = point.segment, let source = segment.source else { return trackRequest }
        func mapped(_ tolerance: CMTime, _ sign: Int64) -> CMTime? {
            guard !tolerance.isPositiveInfinity else { return nil }
            let width = tolerance.isNumeric && tolerance.value > 0 ? CMTimeMapDurationFromRangeToRange(tolerance, fromRange: segment.target, toRange: source.range) : .zero
            guard width.isNumeric else { return nil }
            return sign < 0 ? point.time - width : point.time + width
        }
        // The segment's last instant: a picture starting at its end belongs to what follows.
        let last = source.range.end - CMTime(value: 1, timescale: max(source.range.end.timescale, 90_000))
        let earliest = max(mapped(settings.toleranceBefore, -1) ?? source.range.start, source.range.start)
        let latest = min(mapped(settings.toleranceAfter, 1) ?? last, last)
        return PictureSource.request(point.time, earliest: earliest, latest: max(latest, earliest))
    }

    private static func request(_ time: CMTime, earliest: CMTime?, latest: CMTime?) -> PictureRequest {
        PictureRequest(time: MediaTimestamp(time), earliest: earliest.map(MediaTimestamp.init), latest: latest.map(MediaTimestamp.init))
    }

    /// What to draw at `time`: the first video track, or what the video composition's instruction at
    /// `time` says (its pass-through track, or its layers).
    static func plan(at time: CMTime, settings: ImageSettings, tracks: [AVAssetTrack]) throws -> Drawing {
        guard let composition = settings.videoComposition else {
            return .track(try videoTrack(in: tracks), renderSize: nil)
        }
        func invalid(_ reason: String) -> AVError {
            AVError(.invalidVideoComposition, userInfo: [NSLocalizedDescriptionKey: "The video composition cannot be rendered: \(reason)."])
        }
        // Where Apple's generator raises an exception, Avocet's fails the request.
        let size = composition.renderSize, duration = composition.frameDuration
        guard composition.renderScale == 1 else { throw invalid("its renderScale is not 1") }
        guard size.width >= 1, size.height >= 1, size.width.isFinite, size.height.isFinite else { throw invalid("its renderSize is empty") }
        guard duration.isNumeric, duration.value > 0, duration.timescale > 0 else { throw invalid("its frameDuration is not a positive time") }
        guard composition.sourceTrackIDForFrameTiming >= 0 else { throw invalid("its sourceTrackIDForFrameTiming is negative") }
        guard let instruction = composition.instructions.first(where: { $0.timeRange.containsTime(time) }) else {
            throw invalid("no instruction covers \(time.seconds) s")
        }
        let passthrough = instruction.passthroughTrackID
        if passthrough != kCMPersistentTrackID_Invalid {
            guard let track = tracks.first(where: { $0.trackID == passthrough && $0.mediaType == .video }) else {
                throw invalid("its pass-through track \(passthrough) is not a video track of the asset")
            }
            // The source picture fills the render size; the preferred transform is the composition's to apply.
            return .track(track, renderSize: size)
        }
        guard let layered = instruction as? AVVideoCompositionInstruction else {
            throw invalid("the instruction at \(time.seconds) s is neither Avocet's nor a pass-through one (custom compositors are not supported)")
        }
        return .layers(layered, renderSize: size)
    }

    /// `width` x `height` shrunk to fit `maximum` keeping the aspect ratio (never enlarged; a zero side
    /// is free), and held under `PictureFormat.maximumPixels` and `PictureFormat.maximumSide`.
    static func fit(width: Double, height: Double, into maximum: CGSize) -> (width: Int, height: Int) {
        PictureFormat.fit(width: width, height: height, maximumWidth: Double(maximum.width), maximumHeight: Double(maximum.height))
    }

    /// The output's shape: the track's display size (aperture mode), turned by `transform` (the
    /// preferred transform of the track shown: a composition track's own) when asked (quarter turns and mirrors only, as Apple's), then shrunk to fit `maximumSize`
    /// keeping the aspect ratio (never enlarged; a zero side leaves that side free).
    static func format(of track: AVAssetTrack, transform: CGAffineTransform, settings: ImageSettings) -> PictureFormat {
        let coded = (Double(track.file?.stream.width ?? 0), Double(track.file?.stream.height ?? 0))
        var size = coded
        let natural = track.facts.naturalSize
        if settings.apertureMode != .encodedPixels, natural.width >= 1, natural.height >= 1, natural.width.isFinite, natural.height.isFinite {
            size = (Double(natural.width), Double(natural.height))
        }
        var orientation = PictureOrientation.up
        if settings.appliesPreferredTrackTransform {
            let t = transform
            orientation = PictureOrientation(a: Double(t.a), b: Double(t.b), c: Double(t.c), d: Double(t.d)) ?? .up
        }
        let (maximumWidth, maximumHeight) = (Double(settings.maximumSize.width), Double(settings.maximumSize.height))
        guard size.0 >= 1, size.1 >= 1 else {
            // No size in the header: the decoded one, still fitted to `maximumSize` once turned.
            return PictureFormat(width: 0, height: 0, orientation: orientation, maximumWidth: maximumWidth, maximumHeight: maximumHeight)
        }
        let (width, height) = PictureFormat.fit(width: size.0, height: size.1, turned: orientation,
                                                maximumWidth: maximumWidth, maximumHeight: maximumHeight)
        return PictureFormat(width: width, height: height, orientation: orientation)
    }
}
