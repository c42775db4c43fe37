internal import MediaEngine
import Foundation
import Synchronization

/// A generator's settings as they stood when a request was made.
struct ImageSettings: Sendable {
    var appliesPreferredTrackTransform = false
    var maximumSize = CGSize.zero
    var apertureMode: AVAssetImageGenerator.ApertureMode? = .cleanAperture
    var toleranceBefore = CMTime.positiveInfinity
    var toleranceAfter = CMTime.positiveInfinity
    var videoComposition: AVVideoComposition?
}

/// Where an image generator's pictures come from: the asset's first enabled video track, and picture
/// readers (an open container and decoder each) kept between requests.
///
/// At most two readers wait idle, holding their byte sources (file descriptors for files) open until
/// the generator is gone; requests running at the same time each use a reader of their own.
final class PictureSource: Sendable {
    let asset: AVAsset
    private let idle = Mutex<[VideoFrameReader]>([])
    private static let maxIdle = 2

    init(asset: AVAsset) {
        self.asset = asset
    }

    /// The asset's tracks. Loads the asset's header (once per asset).
    func tracks() async throws -> [AVAssetTrack] {
        try await asset.facts().tracks
    }

    /// The same, waiting on the calling thread (for `copyCGImage(at:actualTime:)`).
    func blockingTracks() throws -> [AVAssetTrack] {
        try asset.blockingFacts().get().tracks
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

    /// An idle reader of the stream at `streamIndex`, if one waits.
    func checkOut(streamIndex: Int) -> VideoFrameReader? {
        idle.withLock { readers in
            readers.firstIndex { $0.decodedStreamIndex == streamIndex }.map { readers.remove(at: $0) }
        }
    }

    /// Keeps `reader` for a later request, or closes it (on an engine thread: closing joins the
    /// decoder's threads) when enough wait already.
    func checkIn(_ reader: VideoFrameReader?) {
        guard let reader else { return }
        let kept = idle.withLock { readers -> Bool in
            guard readers.count < PictureSource.maxIdle else { return false }
            readers.append(reader)
            return true
        }
        if !kept { PictureSource.close([reader]) }
    }

    deinit {
        PictureSource.close(idle.withLock { $0 })
    }

    /// Drops `readers` on an engine thread.
    static func close(_ readers: [VideoFrameReader]) {
        guard !readers.isEmpty else { return }
        IOExecutor.shared.submit { withExtendedLifetime(readers) {} }
    }

    /// The image at `time` from `tracks`, as `settings` say. Blocking: takes or opens a reader of the
    /// right track when `reader` is not one, then seeks and decodes, all on the calling engine thread.
    /// Throws AVErrors.
    func generate(at time: CMTime, settings: ImageSettings, tracks: [AVAssetTrack], reader: inout VideoFrameReader?,
                  cancellation: CancellationToken) throws -> (image: CGImage, actualTime: CMTime) {
        let request = try PictureSource.request(at: time, settings: settings)
        let (track, format) = try PictureSource.plan(at: time, settings: settings, tracks: tracks)
        return try AVError.converting {
            let index = track.stream.index
            if let held = reader, held.decodedStreamIndex != index {
                checkIn(held)
                reader = nil
            }
            if reader == nil {
                reader = try checkOut(streamIndex: index) ?? track.source.openFrameReader(streamIndex: index, cancellation: cancellation)
            }
            guard let open = reader else { throw AVError(.unknown) }
            let picture = try open.picture(request, format: format, cancellation: cancellation)
            guard let image = CGImage(rgbaPixels: picture.pixels, width: picture.width, height: picture.height) else {
                throw AVError(.decodeFailed, userInfo: [NSLocalizedDescriptionKey: "The decoded picture has no pixels."])
            }
            let pts = picture.presentationTime
            return (image, TrackFacts.time(pts.value, pts.timeBase))
        }
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
        func bound(_ tolerance: CMTime, _ sign: Int64) -> MediaTimestamp? {
            if tolerance.isPositiveInfinity { return nil }
            let width = tolerance.isNumeric && tolerance.value > 0 && tolerance.timescale > 0 ? tolerance : .zero
            let edge = sign < 0 ? time - width : time + width
            // An edge beyond what a CMTime holds is as good as unbounded.
            guard edge.isNumeric, edge.timescale > 0 else { return nil }
            return MediaTimestamp(value: edge.value, timeBase: Rational(1, edge.timescale))
        }
        return PictureRequest(time: MediaTimestamp(value: time.value, timeBase: Rational(1, time.timescale)),
                              earliest: bound(settings.toleranceBefore, -1), latest: bound(settings.toleranceAfter, 1))
    }

    /// Which track a picture comes from and the output's shape: the first video track, or what the video
    /// composition's instruction at `time` names.
    static func plan(at time: CMTime, settings: ImageSettings, tracks: [AVAssetTrack]) throws -> (AVAssetTrack, PictureFormat) {
        guard let composition = settings.videoComposition else {
            let track = try videoTrack(in: tracks)
            return (track, format(of: track, settings: settings))
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
        guard passthrough != kCMPersistentTrackID_Invalid else {
            throw invalid("the instruction at \(time.seconds) s is not a pass-through one (Avocet renders layer instructions from compositions on)")
        }
        guard let track = tracks.first(where: { $0.trackID == passthrough && $0.mediaType == .video }) else {
            throw invalid("its pass-through track \(passthrough) is not a video track of the asset")
        }
        // The source picture fills the render size; the preferred transform is the composition's to apply.
        let fitted = fit(width: Double(size.width), height: Double(size.height), into: settings.maximumSize)
        return (track, PictureFormat(width: fitted.width, height: fitted.height))
    }

    /// `width` x `height` shrunk to fit `maximum` keeping the aspect ratio (never enlarged; a zero side
    /// is free), and held under `PictureFormat.maximumPixels`.
    static func fit(width: Double, height: Double, into maximum: CGSize) -> (width: Int, height: Int) {
        var scale = 1.0
        let maxWidth = Double(maximum.width), maxHeight = Double(maximum.height)
        if maxWidth > 0, maxWidth.isFinite { scale = min(scale, maxWidth / width) }
        if maxHeight > 0, maxHeight.isFinite { scale = min(scale, maxHeight / height) }
        let limit = Double(PictureFormat.maximumPixels)
        if width * height * scale * scale > limit {
            // Rounded down, so the rounded sides stay under the limit too.
            scale = (limit / (width * height)).squareRoot()
            return (max(1, Int((width * scale).rounded(.down))), max(1, Int((height * scale).rounded(.down))))
        }
        return (max(1, Int((width * scale).rounded())), max(1, Int((height * scale).rounded())))
    }

    /// The output's shape: the track's display size (aperture mode), turned by the preferred transform
    /// when asked (quarter turns and mirrors only, as Apple's), then shrunk to fit `maximumSize`
    /// keeping the aspect ratio (never enlarged; a zero side leaves that side free).
    static func format(of track: AVAssetTrack, settings: ImageSettings) -> PictureFormat {
        let coded = (Double(track.stream.width ?? 0), Double(track.stream.height ?? 0))
        var size = coded
        let natural = track.facts.naturalSize
        if settings.apertureMode != .encodedPixels, natural.width > 0, natural.height > 0, natural.width.isFinite, natural.height.isFinite {
            size = (Double(natural.width), Double(natural.height))
        }
        guard size.0 >= 1, size.1 >= 1 else { return PictureFormat(width: 0, height: 0) }
        var orientation = PictureOrientation.up
        if settings.appliesPreferredTrackTransform {
            let t = track.facts.preferredTransform
            orientation = PictureOrientation(a: Double(t.a), b: Double(t.b), c: Double(t.c), d: Double(t.d)) ?? .up
        }
        let shown = orientation.transposes ? (size.1, size.0) : size
        let (width, height) = fit(width: shown.0, height: shown.1, into: settings.maximumSize)
        return orientation.transposes
            ? PictureFormat(width: height, height: width, orientation: orientation)
            : PictureFormat(width: width, height: height, orientation: orientation)
    }
}
