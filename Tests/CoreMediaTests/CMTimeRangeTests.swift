import CoreMedia
import Foundation
import Testing

private func t(_ v: Int64, _ ts: Int32 = 1, epoch: Int64 = 0) -> CMTime { CMTimeMakeWithEpoch(value: v, timescale: ts, epoch: epoch) }
private func r(_ start: Int64, _ duration: Int64) -> CMTimeRange { CMTimeRange(start: t(start), duration: t(duration)) }

@Suite("CMTimeRange")
struct CMTimeRangeTests {
    @Test func validity() {
        #expect(r(0, 5).isValid)
        #expect(!CMTimeRange().isValid && !CMTimeRange.invalid.isValid)
        #expect(!r(0, -1).isValid, "negative duration")
        #expect(!CMTimeRange(start: t(0), duration: t(5, epoch: 1)).isValid, "duration must be in epoch 0")
        #expect(!CMTimeRangeMake(start: t(0), duration: .invalid).isValid)
        #expect(CMTimeRange.zero.isEmpty && CMTimeRange.zero.isValid)
        #expect(r(3, 0).isEmpty && !r(3, 1).isEmpty && !CMTimeRange.invalid.isEmpty)
        #expect(CMTimeRange(start: t(0), duration: .indefinite).isIndefinite)
        #expect(CMTimeRange(start: .indefinite, duration: t(1)).isIndefinite)
        #expect(!r(0, 1).isIndefinite)
        #expect(CMTIMERANGE_IS_VALID(r(0, 1)) && CMTIMERANGE_IS_INVALID(.invalid) && CMTIMERANGE_IS_EMPTY(.zero))
    }

    @Test func startEnd() {
        let range = CMTimeRange(start: t(1, 2), end: t(3, 2))
        #expect(range.duration == t(1))
        #expect(range.end == t(3, 2))
        #expect(CMTimeRangeGetEnd(r(2, 3)) == t(5))
        #expect(!CMTimeRange.invalid.end.isValid)
        #expect(!CMTimeRange(start: t(5), end: t(2)).isValid, "end before start")
        let epochRange = CMTimeRangeFromTimeToTime(start: t(2, epoch: 4), end: t(7, epoch: 4))
        #expect(epochRange.isValid && epochRange.duration == t(5) && epochRange.duration.epoch == 0)
        #expect(CMTimeRange(start: t(0), duration: .positiveInfinity).end.isPositiveInfinity)
    }

    @Test func containsIsHalfOpen() {
        let range = r(2, 3)
        #expect(range.containsTime(t(2)))
        #expect(range.containsTime(t(9, 2)))
        #expect(!range.containsTime(t(5)), "end is not contained")
        #expect(!range.containsTime(t(1)))
        #expect(!range.containsTime(.invalid))
        #expect(!CMTimeRange.invalid.containsTime(t(0)))
        #expect(!r(2, 0).containsTime(t(2)), "an empty range contains nothing")
        #expect(CMTimeRange(start: t(0), duration: .positiveInfinity).containsTime(t(1_000_000)))
        #expect(CMTimeRangeContainsTime(range, time: t(4)))
    }

    @Test func containsTimeRange() {
        #expect(r(0, 10).containsTimeRange(r(2, 3)))
        #expect(r(0, 10).containsTimeRange(r(0, 10)))
        #expect(!r(0, 10).containsTimeRange(r(8, 3)))
        #expect(!r(2, 3).containsTimeRange(r(0, 10)))
        #expect(!r(0, 10).containsTimeRange(.invalid))
        #expect(CMTimeRangeContainsTimeRange(r(0, 10), otherRange: r(10, 0)), "an empty range at the end")
    }

    @Test func unionAndIntersection() {
        #expect(r(0, 2).union(r(5, 1)) == r(0, 6))
        #expect(r(3, 4).union(r(1, 3)) == r(1, 6))
        #expect(r(0, 4).intersection(r(2, 5)) == r(2, 2))
        #expect(r(0, 10).intersection(r(2, 3)) == r(2, 3))
        #expect(r(0, 2).intersection(r(5, 1)) == .zero, "disjoint ranges intersect in an empty range")
        #expect(r(0, 2).intersection(r(2, 1)).isEmpty, "touching ranges share no time")
        #expect(!r(0, 2).union(.invalid).isValid)
        #expect(!CMTimeRangeGetIntersection(.invalid, otherRange: r(0, 1)).isValid)
        #expect(CMTimeRangeGetUnion(r(0, 1), otherRange: r(0, 1)) == r(0, 1))
        let mixed = CMTimeRange(start: t(1, 3), duration: t(1, 2)).union(CMTimeRange(start: t(1, 4), duration: t(1, 4)))
        #expect(mixed.start == t(1, 4) && mixed.end == t(5, 6))
    }

    @Test func equalityAndHashing() {
        #expect(CMTimeRange(start: t(1, 2), duration: t(1)) == CMTimeRange(start: t(300, 600), duration: t(600, 600)))
        #expect(CMTimeRangeEqual(r(0, 1), r(0, 1)) && !CMTimeRangeEqual(r(0, 1), r(0, 2)))
        let set: Set<CMTimeRange> = [CMTimeRange(start: t(1, 2), duration: t(1)), CMTimeRange(start: t(2, 4), duration: t(4, 4))]
        #expect(set.count == 1)
    }

    @Test func mapTimeAndDuration() {
        // 0..10 onto 100..120: twice as slow.
        let from = r(0, 10), to = r(100, 20)
        #expect(CMTimeMapTimeFromRangeToRange(t(5), fromRange: from, toRange: to) == t(110))
        #expect(CMTimeMapTimeFromRangeToRange(t(0), fromRange: from, toRange: to) == t(100))
        #expect(CMTimeMapTimeFromRangeToRange(t(10), fromRange: from, toRange: to) == t(120))
        #expect(CMTimeMapTimeFromRangeToRange(t(1, 3), fromRange: r(0, 1), toRange: r(0, 3)) == t(1))
        #expect(!CMTimeMapTimeFromRangeToRange(t(5), fromRange: r(0, 0), toRange: to).isValid, "empty range")
        #expect(!CMTimeMapTimeFromRangeToRange(t(5, epoch: 1), fromRange: from, toRange: to).isValid, "epoch mismatch")
        let infinite = CMTimeRange(start: t(10), duration: .positiveInfinity)
        let shifted = CMTimeRange(start: t(50), duration: .positiveInfinity)
        #expect(CMTimeMapTimeFromRangeToRange(t(15), fromRange: infinite, toRange: shifted) == t(55))
        #expect(CMTimeMapDurationFromRangeToRange(t(3), fromRange: from, toRange: to) == t(6))
        #expect(!CMTimeMapDurationFromRangeToRange(t(3, epoch: 2), fromRange: from, toRange: to).isValid)
    }

    @Test func clamp() {
        #expect(CMTimeClampToRange(t(5), range: r(0, 10)) == t(5))
        #expect(CMTimeClampToRange(t(-5), range: r(0, 10)) == t(0))
        #expect(CMTimeClampToRange(t(50), range: r(0, 10)) == t(10))
        #expect(!CMTimeClampToRange(t(5), range: r(0, 0)).isValid)
        #expect(!CMTimeClampToRange(.invalid, range: r(0, 10)).isValid)
    }
}

@Suite("CMTimeMapping")
struct CMTimeMappingTests {
    @Test func makeAndEmpty() {
        let m = CMTimeMappingMake(source: r(0, 5), target: r(10, 5))
        #expect(m.source == r(0, 5) && m.target == r(10, 5))
        #expect(CMTIMEMAPPING_IS_VALID(m) && !CMTIMEMAPPING_IS_EMPTY(m))
        let empty = CMTimeMappingMakeEmpty(target: r(0, 2))
        #expect(!empty.source.start.isValid && CMTIMEMAPPING_IS_EMPTY(empty))
        #expect(CMTIMEMAPPING_IS_INVALID(.invalid) && CMTIMEMAPPING_IS_INVALID(CMTimeMapping()))
        let badTarget = CMTimeRange(start: t(0), duration: CMTime(value: 1, timescale: 1, flags: .valid, epoch: 3))
        #expect(CMTIMEMAPPING_IS_INVALID(CMTimeMappingMake(source: r(0, 1), target: badTarget)))
        #expect(CMTimeMapping(source: r(0, 1), target: r(0, 2)).target.duration == t(2))
    }
}
