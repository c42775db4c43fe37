import Foundation

/// A layer instruction an app builds: the track, and transforms, opacities and crop rectangles fixed
/// from a time on or ramped across a time range (see `AVVideoCompositionLayerInstruction`). Setting a
/// value or ramp at a start time that already has one replaces it.
public class AVMutableVideoCompositionLayerInstruction: AVVideoCompositionLayerInstruction, @unchecked Sendable {
    /// A layer instruction for no track (`kCMPersistentTrackID_Invalid`), with no transforms, opacities or crops set.
    public override init() {
        super.init()
    }

    override init(_ values: Values) {
        super.init(values)
    }

    /// An instruction for `track`'s pictures (its track ID; the track is not read). Does no I/O.
    public convenience init(assetTrack track: AVAssetTrack) {
        self.init()
        trackID = track.trackID
    }

    public override var trackID: CMPersistentTrackID {
        get { values.withLock { $0.trackID } }
        set { values.withLock { $0.trackID = newValue } }
    }

    /// `transform` from `time` until the next transform or ramp.
    public func setTransform(_ transform: CGAffineTransform, at time: CMTime) {
        values.withLock { $0.transforms.set(transform, at: time) }
    }

    /// A transform interpolated from `startTransform` to `endTransform` across `timeRange`.
    public func setTransformRamp(fromStart startTransform: CGAffineTransform, toEnd endTransform: CGAffineTransform, timeRange: CMTimeRange) {
        values.withLock { $0.transforms.setRamp(from: startTransform, to: endTransform, range: timeRange) }
    }

    /// `opacity` (0 to 1) from `time` until the next opacity or ramp.
    public func setOpacity(_ opacity: Float, at time: CMTime) {
        values.withLock { $0.opacities.set(opacity, at: time) }
    }

    /// An opacity interpolated from `startOpacity` to `endOpacity` across `timeRange` (a fade).
    public func setOpacityRamp(fromStartOpacity startOpacity: Float, toEndOpacity endOpacity: Float, timeRange: CMTimeRange) {
        values.withLock { $0.opacities.setRamp(from: startOpacity, to: endOpacity, range: timeRange) }
    }

    /// `cropRectangle` (in the source picture's pixels) from `time` until the next crop or ramp.
    public func setCropRectangle(_ cropRectangle: CGRect, at time: CMTime) {
        values.withLock { $0.crops.set(cropRectangle, at: time) }
    }

    /// A crop rectangle interpolated from `startCropRectangle` to `endCropRectangle` across `timeRange`.
    public func setCropRectangleRamp(fromStartCropRectangle startCropRectangle: CGRect, toEndCropRectangle endCropRectangle: CGRect,
                                     timeRange: CMTimeRange) {
        values.withLock { $0.crops.setRamp(from: startCropRectangle, to: endCropRectangle, range: timeRange) }
    }
}
