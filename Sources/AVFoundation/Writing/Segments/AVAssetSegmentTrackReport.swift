import Foundation

/// One track's part of a segment: its track, media type, earliest presentation time (on the source's
/// timeline, as appended) and duration, and for video where its first sample lies.
public final class AVAssetSegmentTrackReport: NSObject, Sendable {
    public let trackID: CMPersistentTrackID
    public let mediaType: AVMediaType
    public let earliestPresentationTimeStamp: CMTime
    public let duration: CMTime
    /// The first video sample's time, place in the segment data, size and sync flag; nil for audio.
    public let firstVideoSampleInformation: AVAssetSegmentReportSampleInformation?

    init(trackID: CMPersistentTrackID, mediaType: AVMediaType, earliestPresentationTimeStamp: CMTime, duration: CMTime,
         firstVideoSampleInformation: AVAssetSegmentReportSampleInformation?) {
        self.trackID = trackID
        self.mediaType = mediaType
        self.earliestPresentationTimeStamp = earliestPresentationTimeStamp
        self.duration = duration
        self.firstVideoSampleInformation = firstVideoSampleInformation
        super.init()
    }
}
