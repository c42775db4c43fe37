import Foundation

/// What a segment handed to an asset writer's delegate holds: its type and, per track, its times.
public final class AVAssetSegmentReport: NSObject, Sendable {
    /// The segment's type.
    public let segmentType: AVAssetSegmentType
    /// One report per track with samples in the segment.
    public let trackReports: [AVAssetSegmentTrackReport]

    init(segmentType: AVAssetSegmentType, trackReports: [AVAssetSegmentTrackReport]) {
        self.segmentType = segmentType
        self.trackReports = trackReports
        super.init()
    }
}
