@testable import AVFoundation
import Foundation
import Testing

/// A composition track's segment table on its own: inserting pushes later content out, removing pulls
/// it in, scaling stretches mappings, cuts map linearly onto the source, and validation gives Apple's
/// four error cases. Times in seconds at timescale 600.
@Suite("Composition segment table")
struct SegmentTableTests {
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }
    static let a = URL(fileURLWithPath: "/media/a.mp4"), b = URL(fileURLWithPath: "/media/b.mp4")
    static func source(_ url: URL, _ start: Double, _ end: Double) -> SegmentTable.Source {
        SegmentTable.Source(url: url, trackID: 1, range: r(start, end))
    }

    /// Each segment as "file source->target" or "empty target", in seconds.
    static func describe(_ table: SegmentTable) -> [String] {
        func s(_ range: CMTimeRange) -> String { "\(range.start.seconds)-\(range.end.seconds)" }
        return table.segments.map { segment in
            guard let source = segment.source else { return "empty \(s(segment.target))" }
            return "\(source.url?.lastPathComponent ?? "?") \(s(source.range))->\(s(segment.target))"
        }
    }

    /// Seed 002's splice: five seconds of one track, then five of another.
    @Test func appendingTwoSpans() {
        var table = SegmentTable()
        table.insert(Self.source(Self.a, 0, 5), duration: Self.t(5), at: .zero)
        table.insert(Self.source(Self.b, 0, 5), duration: Self.t(5), at: Self.t(5))
        #expect(Self.describe(table) == ["a.mp4 0.0-5.0->0.0-5.0", "b.mp4 0.0-5.0->5.0-10.0"])
        #expect(table.duration == Self.t(10))
        #expect(table.segment(at: Self.t(7))?.source?.url == Self.b)
        #expect(table.segment(at: Self.t(10)) == nil, "the end is outside")
    }

    @Test func insertingInsideASegmentSplitsItAndPushesTheRestOut() {
        var table = SegmentTable()
        table.insert(Self.source(Self.a, 10, 20), duration: Self.t(10), at: .zero)
        table.insert(Self.source(Self.b, 0, 2), duration: Self.t(2), at: Self.t(4))
        #expect(Self.describe(table) == ["a.mp4 10.0-14.0->0.0-4.0", "b.mp4 0.0-2.0->4.0-6.0", "a.mp4 14.0-20.0->6.0-12.0"])
    }

    @Test func insertingPastTheEndLeavesAnEmptyGapButEmptyTimeThereAddsNothing() {
        var table = SegmentTable()
        table.insert(Self.source(Self.a, 0, 1), duration: Self.t(1), at: Self.t(3))
        #expect(Self.describe(table) == ["empty 0.0-3.0", "a.mp4 0.0-1.0->3.0-4.0"])
        table.insert(nil, duration: Self.t(2), at: Self.t(4))
        #expect(table.duration == Self.t(4))
        table.insert(nil, duration: Self.t(1), at: Self.t(1))
        #expect(Self.describe(table) == ["empty 0.0-4.0", "a.mp4 0.0-1.0->4.0-5.0"], "empty time inside merges with the gap")
    }

    @Test func removingPullsLaterContentIn() {
        var table = SegmentTable()
        table.insert(Self.source(Self.a, 0, 5), duration: Self.t(5), at: .zero)
        table.insert(Self.source(Self.b, 0, 5), duration: Self.t(5), at: Self.t(5))
        table.remove(Self.r(3, 7))
        #expect(Self.describe(table) == ["a.mp4 0.0-3.0->0.0-3.0", "b.mp4 2.0-5.0->3.0-6.0"])
        table.remove(Self.r(5, 100))
        #expect(Self.describe(table) == ["a.mp4 0.0-3.0->0.0-3.0", "b.mp4 2.0-4.0->3.0-5.0"], "clamped to the end")
        table.remove(Self.r(-1, 10))
        #expect(table.segments.isEmpty && table.duration == .zero)
    }

    @Test func scalingStretchesTargetsAndKeepsSources() {
        var table = SegmentTable()
        table.insert(Self.source(Self.a, 0, 4), duration: Self.t(4), at: .zero)
        table.insert(Self.source(Self.b, 0, 2), duration: Self.t(2), at: Self.t(4))
        table.scale(Self.r(2, 6), to: Self.t(8))
        #expect(Self.describe(table) == ["a.mp4 0.0-2.0->0.0-2.0", "a.mp4 2.0-4.0->2.0-6.0", "b.mp4 0.0-2.0->6.0-10.0"])
        // Cutting a scaled segment maps the cut onto its source at its rate (half speed here).
        table.remove(Self.r(3, 4))
        #expect(Self.describe(table) == ["a.mp4 0.0-2.0->0.0-2.0", "a.mp4 2.0-2.5->2.0-3.0", "a.mp4 3.0-4.0->3.0-5.0",
                                         "b.mp4 0.0-2.0->5.0-9.0"])
    }

    @Test func editsIgnoreTimesThatAreNotNumbers() {
        var table = SegmentTable()
        table.insert(Self.source(Self.a, 0, 4), duration: Self.t(4), at: .zero)
        let before = table
        table.insert(Self.source(Self.b, 0, 1), duration: Self.t(1), at: .invalid)
        table.insert(Self.source(Self.b, 0, 1), duration: .positiveInfinity, at: .zero)
        table.insert(Self.source(Self.b, 0, 1), duration: Self.t(-1), at: .zero)
        table.remove(.invalid)
        table.remove(CMTimeRange(start: .zero, duration: .indefinite))
        table.scale(Self.r(0, 1), to: .zero)
        table.scale(Self.r(0, 1), to: .invalid)
        #expect(table == before)
    }

    @Test func validationGivesApplesFourCases() throws {
        typealias S = SegmentTable.Segment
        let good = [S(source: nil, target: Self.r(0, 1)), S(source: Self.source(Self.a, 0, 2), target: Self.r(1, 3))]
        #expect(try SegmentTable(validated: good).duration == Self.t(3))
        #expect(throws: SegmentTable.Invalid.notContiguous(index: 1)) {
            try SegmentTable.validate([good[0], S(source: nil, target: Self.r(2, 3))])
        }
        #expect(throws: SegmentTable.Invalid.notContiguous(index: 0)) { try SegmentTable.validate([S(source: nil, target: Self.r(1, 2))]) }
        #expect(throws: SegmentTable.Invalid.duration(index: 0)) { try SegmentTable.validate([S(source: nil, target: Self.r(0, 0))]) }
        #expect(throws: SegmentTable.Invalid.sourceStartTime(index: 0)) {
            try SegmentTable.validate([S(source: Self.source(Self.a, -1, 1), target: Self.r(0, 2))])
        }
        #expect(throws: SegmentTable.Invalid.sourceDuration(index: 0)) {
            try SegmentTable.validate([S(source: SegmentTable.Source(url: Self.a, trackID: 1, range: CMTimeRange(start: .zero, duration: .invalid)),
                                         target: Self.r(0, 2))])
        }
    }

    @Test func publicSegmentsRoundTrip() {
        let media = AVCompositionTrackSegment(url: Self.a, trackID: 2, sourceTimeRange: Self.r(1, 3), targetTimeRange: Self.r(0, 4))
        #expect(!media.isEmpty && media.sourceURL == Self.a && media.sourceTrackID == 2)
        #expect(media.timeMapping.source == Self.r(1, 3) && media.timeMapping.target == Self.r(0, 4))
        let empty = AVCompositionTrackSegment(timeRange: Self.r(0, 2))
        #expect(empty.isEmpty && empty.sourceURL == nil && empty.sourceTrackID == kCMPersistentTrackID_Invalid)
        #expect(AVCompositionTrackSegment(media.tableSegment).timeMapping == media.timeMapping)
        #expect(empty.tableSegment.source == nil)
    }
}
