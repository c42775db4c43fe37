import Foundation

/// A layer instruction an app builds: the track, and transforms, opacities and crop rectangles fixed
/// from a time on or ramped across a time range (see ``AVVideoCompositionLayerInstruction``). Setting a
/// value or ramp at a start time that already has one replaces it.
open class AVMutableVideoCompositionLayerInstruction: AVVideoCompositionLayerInstruction, @unchecked Sendable {
    /// A layer instruction for no track (`kCMPersistentTrackID_Invalid`), with no transforms, opacities or crops set.
    public override init() {
        super.init()
    }

    override init(_ values: Values) {
        super.init(values)
    }

    /// An instruction for `track`'s pictures. Does no I/O.
    ///
    /// - Parameter track: The track whose ID the instruction takes; the track is not read.
    public convenience init(assetTrack track: AVAssetTrack) {
        self.init()
        trackID = track.trackID
    }

    open override var trackID: CMPersistentTrackID {
        get { values.withLock { $0.trackID } }
        set { values.withLock { $0.trackID = newValue } }
    }

    /// `transform` from `time` until the next transform or ramp.
    ///
    /// - Parameters:
    ///   - transform: Where the source picture goes in the output, in render-size pixels.
    ///   - time: When it starts; a time that is not numeric is ignored.
    open func setTransform(_ transform: CGAffineTransform, at time: CMTime) {
        values.withLock { $0.transforms.set(transform, at: time) }
    }

    /// A transform interpolated from `startTransform` to `endTransform` across `timeRange`; after it,
    /// `endTransform` holds until the next transform or ramp.
    ///
    /// - Parameters:
    ///   - startTransform: The transform at the start of `timeRange`.
    ///   - endTransform: The transform at its end.
    ///   - timeRange: A numeric range that lasts a positive time; another is ignored.
    open func setTransformRamp(fromStart startTransform: CGAffineTransform, toEnd endTransform: CGAffineTransform, timeRange: CMTimeRange) {
        values.withLock { $0.transforms.setRamp(from: startTransform, to: endTransform, range: timeRange) }
    }

    /// `opacity` from `time` until the next opacity or ramp.
    ///
    /// - Parameters:
    ///   - opacity: From 0 (transparent) to 1 (opaque).
    ///   - time: When it starts; a time that is not numeric is ignored.
    open func setOpacity(_ opacity: Float, at time: CMTime) {
        values.withLock { $0.opacities.set(opacity, at: time) }
    }

    /// An opacity interpolated from `startOpacity` to `endOpacity` across `timeRange` (a fade); after
    /// it, `endOpacity` holds until the next opacity or ramp.
    ///
    /// - Parameters:
    ///   - startOpacity: The opacity at the start of `timeRange`, from 0 to 1.
    ///   - endOpacity: The opacity at its end.
    ///   - timeRange: A numeric range that lasts a positive time; another is ignored.
    open func setOpacityRamp(fromStartOpacity startOpacity: Float, toEndOpacity endOpacity: Float, timeRange: CMTimeRange) {
        values.withLock { $0.opacities.setRamp(from: startOpacity, to: endOpacity, range: timeRange) }
    }

    /// `cropRectangle` from `time` until the next crop or ramp.
    ///
    /// - Parameters:
    ///   - cropRectangle: The part of the source picture shown, in its pixels.
    ///   - time: When it starts; a time that is not numeric is ignored.
    open func setCropRectangle(_ cropRectangle: CGRect, at time: CMTime) {
        values.withLock { $0.crops.set(cropRectangle, at: time) }
    }

    /// A crop rectangle interpolated from `startCropRectangle` to `endCropRectangle` across `timeRange`;
    /// after it, `endCropRectangle` holds until the next crop or ramp.
    ///
    /// - Parameters:
    ///   - startCropRectangle: The rectangle at the start of `timeRange`, in the source picture's pixels.
    ///   - endCropRectangle: The rectangle at its end.
    ///   - timeRange: A numeric range that lasts a positive time; another is ignored.
    open func setCropRectangleRamp(fromStartCropRectangle startCropRectangle: CGRect, toEndCropRectangle endCropRectangle: CGRect,
                                     timeRange: CMTimeRange) {
        values.withLock { $0.crops.setRamp(from: startCropRectangle, to: endCropRectangle, range: timeRange) }
    }
}
