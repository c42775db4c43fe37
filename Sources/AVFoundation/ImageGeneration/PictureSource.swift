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

    /// The track images come from: the first enabled video track, else the first video track. Loads
    /// the asset's header (once per asset).
    func track() async throws -> AVAssetTrack {
        try PictureSource.videoTrack(in: await asset.facts())
    }

    /// The same, waiting on the calling thread (for `copyCGImage(at:actualTime:)`).
    func blockingTrack() throws -> AVAssetTrack {
        try PictureSource.videoTrack(in: asset.blockingFacts().get())
    }

    private static func videoTrack(in facts: AssetFacts) throws -> AVAssetTrack {
        let videos = facts.tracks.filter { $0.mediaType == .video }
        guard let track = videos.first(where: \.facts.isEnabled) ?? videos.first else {
            throw AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "The asset has no video track to make images from.",
            ])
        }
        return track
    }

    func checkOut() -> VideoFrameReader? {
        idle.withLock { $0.popLast() }
    }

    func checkIn(_ reader: VideoFrameReader?) {
        guard let reader else { return }
        idle.withLock { if $0.count < PictureSource.maxIdle { $0.append(reader) } }
    }

    /// The image at `time` of `track`, as `settings` say. Blocking: opens a reader when `reader` is nil,
    /// then seeks and decodes, all on the calling engine thread. Throws AVErrors.
    func generate(at time: CMTime, settings: ImageSettings, track: AVAssetTrack, reader: inout VideoFrameReader?,
                  cancellation: CancellationToken) throws -> (image: CGImage, actualTime: CMTime) {
        let request = try PictureSource.request(at: time, settings: settings)
        let format = PictureSource.format(of: track, settings: settings)
        return try AVError.converting {
            if reader == nil {
                reader = try track.source.openFrameReader(streamIndex: track.stream.index, cancellation: cancellation)
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
        var scale = 1.0
        let maxWidth = Double(settings.maximumSize.width), maxHeight = Double(settings.maximumSize.height)
        if maxWidth > 0, maxWidth.isFinite { scale = min(scale, maxWidth / shown.0) }
        if maxHeight > 0, maxHeight.isFinite { scale = min(scale, maxHeight / shown.1) }
        let limit = Double(PictureFormat.maximumPixels)
        if shown.0 * shown.1 * scale * scale > limit { scale = (limit / (shown.0 * shown.1)).squareRoot() }
        let width = max(1, Int((shown.0 * scale).rounded())), height = max(1, Int((shown.1 * scale).rounded()))
        return orientation.transposes
            ? PictureFormat(width: height, height: width, orientation: orientation)
            : PictureFormat(width: width, height: height, orientation: orientation)
    }
}
