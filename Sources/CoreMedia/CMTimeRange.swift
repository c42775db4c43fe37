import Foundation

/// A half-open range of time: `start` up to but not including `start + duration`. Pure value type.
public struct CMTimeRange: Sendable {
    /// The first time in the range.
    public var start: CMTime
    /// How long the range lasts; the range ends just before `start + duration`.
    public var duration: CMTime

    /// An invalid range (every field zero).
    public init() {
        start = CMTime()
        duration = CMTime()
    }

    /// A range from `start` lasting `duration` (``CMTimeRangeMake(start:duration:)``): invalid when `duration` is not in epoch 0.
    public init(start: CMTime, duration: CMTime) {
        let valid = duration.epoch == 0
        self.start = valid ? start : CMTime()
        self.duration = valid ? duration : CMTime()
    }

    /// A range from `start` to `end` (``CMTimeRangeFromTimeToTime(start:end:)``): its duration is `end - start`.
    public init(start: CMTime, end: CMTime) {
        self.start = start
        self.duration = end - start
    }

    /// The empty range at zero.
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    /// The invalid range (every field zero).
    public static let invalid = CMTimeRange()

    /// Start and duration valid, duration in epoch 0 and not negative.
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && duration.value >= 0
    }

    /// Valid, with an indefinite start or duration.
    public var isIndefinite: Bool { isValid && (start.isIndefinite || duration.isIndefinite) }

    /// Valid, with a duration equal to zero.
    public var isEmpty: Bool { isValid && duration == .zero }

    /// `start + duration`, which the range does not contain; invalid for an invalid range.
    public var end: CMTime { CMTimeRangeGetEnd(self) }

    /// The smallest range that holds every time of both ranges; invalid if either is invalid.
    public func union(_ otherRange: CMTimeRange) -> CMTimeRange {
        CMTimeRangeGetUnion(self, otherRange: otherRange)
    }

    /// The largest range held by both; ``zero`` when they do not overlap (Apple does not
    /// document this case; an empty range is the least surprising answer), invalid if either is invalid.
    public func intersection(_ otherRange: CMTimeRange) -> CMTimeRange {
        CMTimeRangeGetIntersection(self, otherRange: otherRange)
    }

    /// `start <= time < end`.
    public func containsTime(_ time: CMTime) -> Bool {
        CMTimeRangeContainsTime(self, time: time)
    }

    /// Whether every time of `range` lies in this range.
    public func containsTimeRange(_ range: CMTimeRange) -> Bool {
        CMTimeRangeContainsTimeRange(self, otherRange: range)
    }
}

extension CMTimeRange: Hashable {
    /// Equal when starts and durations compare equal (``CMTimeRangeEqual(_:_:)``).
    public static func == (range1: CMTimeRange, range2: CMTimeRange) -> Bool {
        range1.start == range2.start && range1.duration == range2.duration
    }

    /// Hashes the start and the duration, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(start)
        hasher.combine(duration)
    }
}

extension CMTimeRange: Codable {}

extension CMTimeRange: CustomStringConvertible {
    /// `{start, duration}`, each as ``CMTime`` prints itself.
    public var description: String { "{\(start), \(duration)}" }
}

/// A range from `start` lasting `duration`; invalid when `duration` is not in epoch 0.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange {
    CMTimeRange(start: start, duration: duration)
}

/// A range from `start` to `end`: its duration is `end - start`.
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange {
    CMTimeRange(start: start, end: end)
}

/// `range.start + range.duration`, which the range does not contain; invalid for an invalid range.
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime {
    range.isValid ? range.start + range.duration : .invalid
}

/// The smallest range that holds every time of both ranges; invalid if either is invalid.
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return .invalid }
    return CMTimeRange(
        start: CMTimeMinimum(range.start, otherRange.start),
        end: CMTimeMaximum(range.end, otherRange.end))
}

/// The largest range held by both; ``CMTimeRange/zero`` when they do not overlap, invalid if either is invalid.
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return .invalid }
    let start = CMTimeMaximum(range.start, otherRange.start)
    let end = CMTimeMinimum(range.end, otherRange.end)
    guard start < end else { return .zero }
    return CMTimeRange(start: start, end: end)
}

/// Whether the starts and the durations compare equal.
public func CMTimeRangeEqual(_ range1: CMTimeRange, _ range2: CMTimeRange) -> Bool {
    range1 == range2
}

/// Whether `range` is valid and `range.start <= time < range.end`.
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool {
    range.isValid && time >= range.start && time < range.end
}

/// Whether both ranges are valid and every time of `otherRange` lies in `range`.
public func CMTimeRangeContainsTimeRange(_ range: CMTimeRange, otherRange: CMTimeRange) -> Bool {
    range.isValid && otherRange.isValid && otherRange.start >= range.start && otherRange.end <= range.end
}

/// Maps `t` linearly from `fromRange` onto `toRange`:
/// `(t - fromRange.start) * (toRange.duration / fromRange.duration) + toRange.start`.
/// Invalid when either range is empty or invalid, or `t` is not in `fromRange.start`'s epoch; when both
/// durations are +infinity `t` is only offset. The ratio is exact when it reduces to 32-bit terms, else a
/// `Float64`.
///
/// - Parameters:
///   - t: A time of `fromRange`'s timeline; it may lie outside the range.
///   - fromRange: The range of `t`'s timeline.
///   - toRange: The range of the timeline to map onto.
public func CMTimeMapTimeFromRangeToRange(_ t: CMTime, fromRange: CMTimeRange, toRange: CMTimeRange) -> CMTime {
    guard !fromRange.isEmpty, !toRange.isEmpty, fromRange.isValid, toRange.isValid else { return .invalid }
    guard t.epoch == fromRange.start.epoch else { return .invalid }
    let offset = t - fromRange.start
    if fromRange.duration.isPositiveInfinity && toRange.duration.isPositiveInfinity {
        return offset + toRange.start
    }
    return scale(offset, by: toRange.duration, over: fromRange.duration) + toRange.start
}

/// Scales the duration `dur` by `toRange.duration / fromRange.duration`; invalid unless `dur` is in epoch 0.
///
/// - Returns: The scaled duration; invalid when `dur` is not in epoch 0, either range's duration is
///   not numeric, or `fromRange`'s duration is zero.
public func CMTimeMapDurationFromRangeToRange(_ dur: CMTime, fromRange: CMTimeRange, toRange: CMTimeRange) -> CMTime {
    guard dur.epoch == 0 else { return .invalid }
    return scale(dur, by: toRange.duration, over: fromRange.duration)
}

/// `time` moved to the nearest time in `range`: `range.start` before it, `range.end` after it.
/// Invalid when the range is empty or invalid or the time is invalid.
public func CMTimeClampToRange(_ time: CMTime, range: CMTimeRange) -> CMTime {
    guard time.isValid, range.isValid, !range.isEmpty else { return .invalid }
    if time < range.start { return range.start }
    if time > range.end { return range.end }
    return time
}

/// Whether `range` is valid (`range.isValid`).
public func CMTIMERANGE_IS_VALID(_ range: CMTimeRange) -> Bool { range.isValid }
/// Whether `range` is invalid.
public func CMTIMERANGE_IS_INVALID(_ range: CMTimeRange) -> Bool { !range.isValid }
/// Whether `range` is valid with an indefinite start or duration.
public func CMTIMERANGE_IS_INDEFINITE(_ range: CMTimeRange) -> Bool { range.isIndefinite }
/// Whether `range` is valid with a zero duration.
public func CMTIMERANGE_IS_EMPTY(_ range: CMTimeRange) -> Bool { range.isEmpty }

/// The C name of ``CMTimeRange/zero``.
@available(*, deprecated, renamed: "CMTimeRange.zero")
public var kCMTimeRangeZero: CMTimeRange { .zero }
/// The C name of ``CMTimeRange/invalid``.
@available(*, deprecated, renamed: "CMTimeRange.invalid")
public var kCMTimeRangeInvalid: CMTimeRange { .invalid }

/// `time * numerator / denominator` for two durations.
private func scale(_ time: CMTime, by numerator: CMTime, over denominator: CMTime) -> CMTime {
    guard numerator.isNumeric, denominator.isNumeric, numerator.timescale > 0, denominator.timescale > 0,
          denominator.value != 0 else { return .invalid }
    // numerator/denominator = (n.value * d.timescale) / (d.value * n.timescale), reduced.
    var top = Int128(numerator.value) * Int128(denominator.timescale)
    var bottom = Int128(denominator.value) * Int128(numerator.timescale)
    let g = TimeMath.gcd(top, bottom)
    top /= g; bottom /= g
    if let m = Int32(exactly: top), let d = Int32(exactly: bottom) {
        return CMTimeMultiplyByRatio(time, multiplier: m, divisor: d)
    }
    return CMTimeMultiplyByFloat64(time, multiplier: Double(top) / Double(bottom))
}
