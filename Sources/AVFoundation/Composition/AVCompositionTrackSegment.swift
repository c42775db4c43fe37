import Foundation

/// One segment of a composition track: a span of a source file's track mapped onto the composition
/// track's timeline, or an empty span. Immutable; a mutable composition track's
/// ``AVMutableCompositionTrack/segments`` take new ones wholesale.
open class AVCompositionTrackSegment: AVAssetTrackSegment, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    /// The file the media comes from; nil for an empty segment (or media that lives in memory).
    public let sourceURL: URL?
    /// The track of ``sourceURL`` the media comes from; `kCMPersistentTrackID_Invalid` when empty.
    public let sourceTrackID: CMPersistentTrackID
    /// The file track the media was inserted from, when known: a segment an app reads from a track and
    /// sets back keeps reading the same asset (a resource loader's, say) rather than opening its URL.
    let sourceTrack: AVAssetTrack?

    /// A segment playing `sourceTimeRange` of track `trackID` in the file at `URL` during
    /// `targetTimeRange`. No I/O: the file is not checked until the composition is read.
    ///
    /// - Parameters:
    ///   - URL: The file the media comes from, read with the composition's
    ///     ``AVComposition/urlAssetInitializationOptions``.
    ///   - trackID: The ID of the file's track.
    ///   - sourceTimeRange: The part of that track's timeline played.
    ///   - targetTimeRange: When it plays on the composition track; a duration other than the source's
    ///     plays it faster or slower.
    public init(url URL: URL, trackID: CMPersistentTrackID, sourceTimeRange: CMTimeRange, targetTimeRange: CMTimeRange) {
        sourceURL = URL
        sourceTrackID = trackID
        sourceTrack = nil
        super.init(timeMapping: CMTimeMapping(source: sourceTimeRange, target: targetTimeRange))
    }

    /// An empty segment lasting `timeRange`: nothing plays then.
    ///
    /// - Parameter timeRange: The span of the composition track's timeline it covers.
    public init(timeRange: CMTimeRange) {
        sourceURL = nil
        sourceTrackID = kCMPersistentTrackID_Invalid
        sourceTrack = nil
        super.init(timeMapping: CMTimeMappingMakeEmpty(target: timeRange))
    }

    init(_ segment: SegmentTable.Segment) {
        sourceURL = segment.source?.url
        sourceTrackID = segment.source?.trackID ?? kCMPersistentTrackID_Invalid
        sourceTrack = segment.source?.track
        super.init(timeMapping: segment.mapping)
    }

    /// The segment as the segment table keeps it.
    var tableSegment: SegmentTable.Segment {
        let mapping = timeMapping
        guard !isEmpty else { return SegmentTable.Segment(source: nil, target: mapping.target) }
        return SegmentTable.Segment(source: SegmentTable.Source(url: sourceURL, trackID: sourceTrackID, range: mapping.source, track: sourceTrack),
                                    target: mapping.target)
    }

    /// The source file, track and range, and the target range; or that the segment is empty.
    open override var description: String {
        isEmpty ? "<AVCompositionTrackSegment empty \(timeMapping.target)>"
            : "<AVCompositionTrackSegment \(sourceURL?.lastPathComponent ?? "?")#\(sourceTrackID) \(timeMapping.source) -> \(timeMapping.target)>"
    }
}
