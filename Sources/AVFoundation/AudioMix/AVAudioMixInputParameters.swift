import Foundation
internal import Locking
import Synchronization

/// How one audio track is mixed: its volume over time, fixed from a time on or ramped across a time
/// range. Immutable; ``AVMutableAudioMixInputParameters`` is the form an app builds. The volume is 1
/// before the first value set; the getter reports the ramp in effect at a time, or else the first one
/// after it, as Apple's does (a fixed volume counts as a ramp from the value to itself lasting until
/// the next one).
open class AVAudioMixInputParameters: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the values sit behind a lock.
    struct Values: Sendable, Equatable {
        var trackID = kCMPersistentTrackID_Invalid
        var volumes = RampTimeline<Float>(defaultValue: 1)
        var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm?
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

    /// The audio track these parameters mix.
    open var trackID: CMPersistentTrackID { values.withLock { $0.trackID } }
    /// Recorded; Avocet's rate changes resample (pitch follows the rate).
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm? { values.withLock { $0.audioTimePitchAlgorithm } }

    /// The volume ramp in effect at `time`, or else the first one after it, written through the
    /// pointers given (a fixed volume is a ramp from the value to itself until the next one).
    ///
    /// - Parameters:
    ///   - time: A time on the track's timeline.
    ///   - startVolume: When given, receives the ramp's first volume (0 silent, 1 as recorded).
    ///   - endVolume: When given, receives the ramp's last volume.
    ///   - timeRange: When given, receives the ramp's time range (a fixed volume's runs to the next one
    ///     set, or on without end).
    /// - Returns: True when a ramp was found; false when there is none at or after `time` (nothing is
    ///   written then), or `time` is not numeric.
    open func getVolumeRamp(for time: CMTime, startVolume: UnsafeMutablePointer<Float>?, endVolume: UnsafeMutablePointer<Float>?,
                              timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        LayerRamps.report(values.withLock { $0.volumes.ramp(at: time) }, startVolume, endVolume, timeRange)
    }

    /// The volume at `time` (linear within a ramp), as the mix applies it.
    func volume(at time: CMTime) -> Float {
        values.withLock { $0.volumes.value(at: time) { a, b, f in a + (b - a) * Float(f) } }
    }

    /// An immutable copy of the parameters.
    open func copy(with zone: NSZone? = nil) -> Any {
        AVAudioMixInputParameters(values.withLock { $0 })
    }

    /// A mutable copy of the parameters.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableAudioMixInputParameters(values.withLock { $0 })
    }
}
