import Foundation

/// Mixing parameters an app builds for one audio track: its ID and volumes over time. Setting a
/// volume or ramp at a start time that already has one replaces it.
open class AVMutableAudioMixInputParameters: AVAudioMixInputParameters, @unchecked Sendable {
    /// Parameters for no track (`kCMPersistentTrackID_Invalid`) with no volumes set (volume 1).
    public override init() {
        super.init()
    }

    override init(_ values: Values) {
        super.init(values)
    }

    /// Parameters for `track`, with no volumes set (volume 1). Does no I/O.
    ///
    /// - Parameter track: The track whose ID the parameters take; nil leaves
    ///   `kCMPersistentTrackID_Invalid`.
    public convenience init(track: AVAssetTrack?) {
        self.init()
        trackID = track?.trackID ?? kCMPersistentTrackID_Invalid
    }

    open override var trackID: CMPersistentTrackID {
        get { values.withLock { $0.trackID } }
        set { values.withLock { $0.trackID = newValue } }
    }

    open override var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm? {
        get { values.withLock { $0.audioTimePitchAlgorithm } }
        set { values.withLock { $0.audioTimePitchAlgorithm = newValue } }
    }

    /// `volume` from `time` until the next volume or ramp.
    ///
    /// - Parameters:
    ///   - volume: 0 silent, 1 as recorded.
    ///   - time: When it starts, on the track's timeline; a time that is not numeric is ignored.
    open func setVolume(_ volume: Float, at time: CMTime) {
        values.withLock { $0.volumes.set(volume, at: time) }
    }

    /// A volume interpolated linearly from `startVolume` to `endVolume` across `timeRange` (a fade);
    /// after it, `endVolume` holds until the next volume or ramp.
    ///
    /// - Parameters:
    ///   - startVolume: The volume at the start of `timeRange` (0 silent, 1 as recorded).
    ///   - endVolume: The volume at its end.
    ///   - timeRange: A numeric range that lasts a positive time; another is ignored.
    open func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: CMTimeRange) {
        values.withLock { $0.volumes.setRamp(from: startVolume, to: endVolume, range: timeRange) }
    }
}
