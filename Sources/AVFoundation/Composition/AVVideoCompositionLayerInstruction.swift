import Foundation
internal import Locking
import Synchronization

/// How one source track's pictures are placed in a video composition's output over time: a transform,
/// an opacity and a crop rectangle, each fixed from a time on or ramped across a time range. Immutable;
/// ``AVMutableVideoCompositionLayerInstruction`` is the form an app builds.
///
/// Defaults: the identity transform, full opacity (1) and no crop (the whole picture). The getters
/// report the ramp in effect at a time, or else the first one after it, as Apple's do; a fixed value
/// counts as a ramp from the value to itself that lasts until the next one is set.
open class AVVideoCompositionLayerInstruction: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the values sit behind a lock.
    struct Values: Sendable, Equatable {
        var trackID = kCMPersistentTrackID_Invalid
        var transforms = RampTimeline<CGAffineTransform>(defaultValue: .identity)
        var opacities = RampTimeline<Float>(defaultValue: 1)
        var crops = RampTimeline<CGRect>(defaultValue: .null)
    }

    let values: Locked<Values>

    override init() {
        values = Locked(Values())
        super.init()
    }

    init(_ values: Values) {
        self.values = Locked(values)
        super.init()
    }

    /// The track of the source whose pictures this instruction places.
    open var trackID: CMPersistentTrackID { values.withLock { $0.trackID } }

    /// The transform ramp in effect at `time`, or else the first one after it, written through the
    /// pointers given (a fixed transform is a ramp from the value to itself until the next one).
    ///
    /// - Parameters:
    ///   - time: A time on the composition's timeline.
    ///   - startTransform: When given, receives the ramp's first transform.
    ///   - endTransform: When given, receives the ramp's last transform.
    ///   - timeRange: When given, receives the ramp's time range (a fixed transform's runs to the next
    ///     one set, or on without end).
    /// - Returns: True when a ramp was found; false when there is none at or after `time` (nothing is
    ///   written then), or `time` is not numeric.
    open func getTransformRamp(for time: CMTime, start startTransform: UnsafeMutablePointer<CGAffineTransform>?,
                                 end endTransform: UnsafeMutablePointer<CGAffineTransform>?,
                                 timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        LayerRamps.report(values.withLock { $0.transforms.ramp(at: time) }, startTransform, endTransform, timeRange)
    }

    /// The opacity ramp in effect at `time`, or else the first one after it, written through the pointers
    /// given (a fixed opacity is a ramp from the value to itself until the next one).
    ///
    /// - Parameters:
    ///   - time: A time on the composition's timeline.
    ///   - startOpacity: When given, receives the ramp's first opacity, from 0 to 1.
    ///   - endOpacity: When given, receives the ramp's last opacity.
    ///   - timeRange: When given, receives the ramp's time range.
    /// - Returns: True when a ramp was found; false when there is none at or after `time` (nothing is
    ///   written then), or `time` is not numeric.
    open func getOpacityRamp(for time: CMTime, startOpacity: UnsafeMutablePointer<Float>?,
                               endOpacity: UnsafeMutablePointer<Float>?, timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        LayerRamps.report(values.withLock { $0.opacities.ramp(at: time) }, startOpacity, endOpacity, timeRange)
    }

    /// The crop rectangle ramp in effect at `time`, or else the first one after it, written through the
    /// pointers given (a fixed crop is a ramp from the value to itself until the next one).
    ///
    /// - Parameters:
    ///   - time: A time on the composition's timeline.
    ///   - startCropRectangle: When given, receives the ramp's first rectangle, in the source picture's
    ///     pixels.
    ///   - endCropRectangle: When given, receives the ramp's last rectangle.
    ///   - timeRange: When given, receives the ramp's time range.
    /// - Returns: True when a ramp was found; false when there is none at or after `time` (nothing is
    ///   written then), or `time` is not numeric.
    open func getCropRectangleRamp(for time: CMTime, startCropRectangle: UnsafeMutablePointer<CGRect>?,
                                     endCropRectangle: UnsafeMutablePointer<CGRect>?, timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        LayerRamps.report(values.withLock { $0.crops.ramp(at: time) }, startCropRectangle, endCropRectangle, timeRange)
    }

    /// An immutable copy of the layer instruction.
    open func copy(with zone: NSZone? = nil) -> Any {
        AVVideoCompositionLayerInstruction(values.withLock { $0 })
    }

    /// A mutable copy of the layer instruction.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableVideoCompositionLayerInstruction(values.withLock { $0 })
    }
}

/// Writing a found ramp through the getters' optional pointers.
enum LayerRamps {
    static func report<V>(_ ramp: (start: V, end: V, range: CMTimeRange)?, _ start: UnsafeMutablePointer<V>?,
                          _ end: UnsafeMutablePointer<V>?, _ range: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        guard let ramp else { return false }
        start?.pointee = ramp.start
        end?.pointee = ramp.end
        range?.pointee = ramp.range
        return true
    }
}
