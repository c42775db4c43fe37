import Foundation

/// The checks and conversions the composition edits share: what a time range of a source track
/// becomes in a segment table, and Apple's error codes for segments that cannot be.
enum CompositionEdit {
    /// The segments that insert `timeRange` of `track`, laid from zero and lasting the range's
    /// duration exactly: one segment for a file's track (not clipped to the track's own time range, so
    /// tracks of one clip stay in step however long each really is); a composition track's own segments
    /// for its part of the range (so compositions of compositions refer to the files underneath),
    /// with empty time for a part past its end.
    static func pieces(of track: AVAssetTrack, in timeRange: CMTimeRange, at startTime: CMTime,
                       into mediaType: AVMediaType) throws -> [SegmentTable.Segment] {
        try check(timeRange, at: startTime)
        guard track.mediaType == mediaType else {
            throw AVError(.incompatibleAsset, userInfo: [
                NSLocalizedDescriptionKey: "A \(track.mediaType.rawValue) track cannot be inserted into a \(mediaType.rawValue) composition track.",
            ])
        }
        let whole = CMTimeRange(start: .zero, duration: timeRange.duration)
        guard let composed = track as? AVCompositionTrack else {
            let source = SegmentTable.Source(url: track.file?.url, trackID: track.trackID, range: timeRange, track: track)
            return [SegmentTable.Segment(source: source, target: whole)]
        }
        var pieces = composed.snapshot.table.segments(in: timeRange)
        let covered = pieces.last?.target.end ?? .zero
        if covered < whole.end {
            pieces.append(SegmentTable.Segment(source: nil, target: CMTimeRange(start: covered, end: whole.end)))
        }
        return pieces
    }

    /// A source range must start at a time at or after zero and last a positive time; the insertion
    /// time must be a time at or after zero.
    static func check(_ timeRange: CMTimeRange, at startTime: CMTime) throws {
        guard timeRange.start.isNumeric, timeRange.start >= .zero else {
            throw AVError(.invalidCompositionTrackSegmentSourceStartTime, userInfo: [
                NSLocalizedDescriptionKey: "The time range to insert does not start at a time at or after zero (\(timeRange.start)).",
            ])
        }
        guard timeRange.duration.isNumeric, timeRange.duration > .zero else {
            throw AVError(.invalidCompositionTrackSegmentSourceDuration, userInfo: [
                NSLocalizedDescriptionKey: "The time range to insert does not last a positive time (\(timeRange.duration)).",
            ])
        }
        guard startTime.isNumeric, startTime >= .zero else {
            throw AVError(.compositionTrackSegmentsNotContiguous, userInfo: [
                NSLocalizedDescriptionKey: "Media can be inserted only at a time at or after zero, not at \(startTime).",
            ])
        }
    }

    /// Apple's error for segments a track cannot have, naming the segment at fault.
    static func error(_ invalid: SegmentTable.Invalid) -> AVError {
        let (code, index, reason): (AVError.Code, Int, String)
        switch invalid {
        case .notContiguous(let i):
            (code, index, reason) = (.compositionTrackSegmentsNotContiguous, i, "does not start where the one before it ends (the first at zero)")
        case .duration(let i):
            (code, index, reason) = (.invalidCompositionTrackSegmentDuration, i, "does not last a positive time")
        case .sourceStartTime(let i):
            (code, index, reason) = (.invalidCompositionTrackSegmentSourceStartTime, i, "has a source start that is not a time at or after zero")
        case .sourceDuration(let i):
            (code, index, reason) = (.invalidCompositionTrackSegmentSourceDuration, i, "has a source duration that is not a positive time")
        }
        return AVError(code, userInfo: [NSLocalizedDescriptionKey: "Composition track segment \(index) \(reason)."])
    }
}
