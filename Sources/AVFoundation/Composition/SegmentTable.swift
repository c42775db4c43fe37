import Foundation

/// One composition track's timeline: segments laid end to end from time zero, each a span of a source
/// track's media mapped onto a span of the track, or an empty span. A plain value whose methods are
/// the edits Apple documents for `AVMutableCompositionTrack`: inserting pushes later content out,
/// removing pulls it in, scaling stretches the mappings it covers.
///
/// Splitting a segment inside its span maps the cut from the target onto the source linearly, so a
/// scaled segment cut in two keeps its rate in both halves. Adjacent empty segments are merged, and a
/// table never ends with one (empty time after the last media plays nothing).
/// Pure computation on `CMTime`s: no I/O, no locks (its owner keeps it behind one).
struct SegmentTable: Sendable, Equatable {
    /// Where a segment's media comes from.
    struct Source: Sendable, Equatable {
        var url: URL?
        var trackID: CMPersistentTrackID
        var range: CMTimeRange
        /// The file track inserted, when the segment came from one (a segment made from a URL finds its
        /// track when read). Compared by identity.
        var track: AVAssetTrack? = nil

        static func == (a: Source, b: Source) -> Bool {
            a.url == b.url && a.trackID == b.trackID && a.range == b.range && a.track === b.track
        }
    }

    struct Segment: Sendable, Equatable {
        /// Nil: an empty segment.
        var source: Source?
        var target: CMTimeRange

        var mapping: CMTimeMapping {
            source.map { CMTimeMapping(source: $0.range, target: target) } ?? CMTimeMappingMakeEmpty(target: target)
        }
    }

    /// Why a list of segments cannot be a track's, as Apple's error codes say.
    enum Invalid: Error, Equatable {
        /// A segment does not start where the one before it ends (or the first not at zero).
        case notContiguous(index: Int)
        /// A segment's target duration is not a positive time.
        case duration(index: Int)
        /// A segment's source start is not a time at or after zero.
        case sourceStartTime(index: Int)
        /// A segment's source duration is not a positive time.
        case sourceDuration(index: Int)
    }

    private(set) var segments: [Segment] = []

    /// Where the last segment ends; zero for an empty table.
    var duration: CMTime { segments.last?.target.end ?? .zero }

    init() {}

    /// A table of `segments` as they are, after `validate`.
    init(validated segments: [Segment]) throws(Invalid) {
        try SegmentTable.validate(segments)
        self.segments = segments
    }

    /// Checks that `segments` lie end to end from zero, each with a positive duration and, unless
    /// empty, a source starting at or after zero with a positive duration.
    static func validate(_ segments: [Segment]) throws(Invalid) {
        var end = CMTime.zero
        for (index, segment) in segments.enumerated() {
            let target = segment.target
            guard target.duration.isNumeric, target.duration > .zero else { throw .duration(index: index) }
            guard target.start.isNumeric, target.start == end else { throw .notContiguous(index: index) }
            if let source = segment.source {
                guard source.range.start.isNumeric, source.range.start >= .zero else { throw .sourceStartTime(index: index) }
                guard source.range.duration.isNumeric, source.range.duration > .zero else { throw .sourceDuration(index: index) }
            }
            end = target.end
        }
    }

    /// The segments covering `range` of the table, cut at its ends and moved to start at zero; a part
    /// of `range` past the end is left out. Compositions of compositions insert these.
    func segments(in range: CMTimeRange) -> [Segment] {
        var copy = self
        guard let (first, end) = copy.cutOut(range) else { return [] }
        let origin = copy.segments[first].target.start
        return copy.segments[first..<end].map { segment in
            var moved = segment
            moved.target.start = segment.target.start - origin
            return moved
        }
    }

    /// The segment whose target span holds `time`.
    func segment(at time: CMTime) -> Segment? {
        segments.first { $0.target.containsTime(time) }
    }

    // MARK: - Edits

    /// Inserts `source`'s span (or, with nil, empty time) of `duration` at `time`: what was at or after
    /// `time` moves later by `duration`. Past the end, an empty segment fills the gap first (empty time
    /// past the end adds nothing). Ignores times and durations that are not numbers, and durations that
    /// are not positive.
    mutating func insert(_ source: Source?, duration: CMTime, at time: CMTime) {
        guard time.isNumeric, time >= .zero, duration.isNumeric, duration > .zero else { return }
        if time >= self.duration {
            guard source != nil else { return }
            if time > self.duration {
                segments.append(Segment(source: nil, target: CMTimeRange(start: self.duration, end: time)))
            }
            segments.append(Segment(source: source, target: CMTimeRange(start: time, duration: duration)))
        } else {
            let index = cut(at: time)
            for i in index..<segments.count { segments[i].target.start = segments[i].target.start + duration }
            segments.insert(Segment(source: source, target: CMTimeRange(start: time, duration: duration)), at: index)
        }
        mergeEmpties()
    }

    /// Removes what lies in `range`; what was after it moves earlier by the part of `range` inside the
    /// table.
    mutating func remove(_ range: CMTimeRange) {
        guard let (first, end) = cutOut(range) else { return }
        let removed = segments[first..<end].reduce(CMTime.zero) { $0 + $1.target.duration }
        segments.removeSubrange(first..<end)
        for i in first..<segments.count { segments[i].target.start = segments[i].target.start - removed }
        mergeEmpties()
    }

    /// Stretches or shrinks what lies in `range` to last `duration` (its mappings' targets scale, their
    /// sources stay); what was after it moves by the difference.
    mutating func scale(_ range: CMTimeRange, to duration: CMTime) {
        guard duration.isNumeric, duration > .zero, let (first, end) = cutOut(range) else { return }
        let covered = CMTimeRange(start: segments[first].target.start, end: segments[end - 1].target.end)
        let scaled = CMTimeRange(start: covered.start, duration: duration)
        var at = covered.start
        for i in first..<end {
            let length = CMTimeMapDurationFromRangeToRange(segments[i].target.duration, fromRange: covered, toRange: scaled)
            segments[i].target = CMTimeRange(start: at, duration: length)
            at = at + length
        }
        let shift = at - covered.end
        for i in end..<segments.count { segments[i].target.start = segments[i].target.start + shift }
        mergeEmpties()
    }

    /// Inserts `pieces` (laid end to end from zero, as `segments(in:)` gives them) at `time`, pushing
    /// out what was there by their total duration.
    mutating func insert(_ pieces: [Segment], at time: CMTime) {
        var at = time
        for piece in pieces {
            if piece.source == nil && at >= duration {
                at = at + piece.target.duration
                continue
            }
            insert(piece.source, duration: piece.target.duration, at: at)
            at = at + piece.target.duration
        }
    }

    // MARK: - Cutting

    /// Makes a segment boundary at `time` (splitting the segment that holds it) and returns the index of
    /// the first segment starting at or after it.
    private mutating func cut(at time: CMTime) -> Int {
        guard let index = segments.firstIndex(where: { $0.target.end > time }) else { return segments.count }
        let segment = segments[index]
        guard segment.target.start < time else { return index }
        var head = segment, tail = segment
        head.target = CMTimeRange(start: segment.target.start, end: time)
        tail.target = CMTimeRange(start: time, end: segment.target.end)
        if let source = segment.source {
            let cut = CMTimeMapTimeFromRangeToRange(time, fromRange: segment.target, toRange: source.range)
            head.source?.range = CMTimeRange(start: source.range.start, end: cut)
            tail.source?.range = CMTimeRange(start: cut, end: source.range.end)
        }
        segments[index] = head
        segments.insert(tail, at: index + 1)
        return index + 1
    }

    /// Cuts at both ends of `range` (clamped to the table) and returns the segments inside it as an
    /// index range; nil when nothing of the table lies inside.
    private mutating func cutOut(_ range: CMTimeRange) -> (Int, Int)? {
        guard range.isValid, range.start.isNumeric, range.duration.isNumeric, range.duration > .zero else { return nil }
        let start = max(range.start, .zero), end = min(range.end, duration)
        guard start < end else { return nil }
        let first = cut(at: start)
        let last = cut(at: end)
        return first < last ? (first, last) : nil
    }

    private mutating func mergeEmpties() {
        var i = 1
        while i < segments.count {
            if segments[i].source == nil && segments[i - 1].source == nil {
                segments[i - 1].target = CMTimeRange(start: segments[i - 1].target.start, end: segments[i].target.end)
                segments.remove(at: i)
            } else {
                i += 1
            }
        }
        // Empty time at the end plays nothing after it: a track ends with its last media.
        while segments.last?.source == nil && !segments.isEmpty { segments.removeLast() }
    }
}
