import Foundation

/// A valid time of `value / timescale` seconds in epoch 0.
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime {
    CMTime(value: value, timescale: timescale)
}

/// A valid time of `value / timescale` seconds in `epoch`.
public func CMTimeMakeWithEpoch(value: Int64, timescale: Int32, epoch: Int64) -> CMTime {
    CMTime(value: value, timescale: timescale, flags: .valid, epoch: epoch)
}

/// The time nearest to `seconds` at `preferredTimescale`, rounding half away from zero.
///
/// Invalid for a timescale of zero or less or for NaN; ±infinity for infinite seconds. When the value
/// does not fit in 64 bits the timescale is halved until it does (±infinity if not even at 1).
/// `hasBeenRounded` is set when the result converted back to seconds differs from `seconds`.
///
/// - Parameters:
///   - seconds: The time in seconds.
///   - preferredTimescale: The timescale wanted, such as 600; the result's is smaller only when the
///     value would not fit.
public func CMTimeMakeWithSeconds(_ seconds: Float64, preferredTimescale: Int32) -> CMTime {
    guard preferredTimescale > 0, !seconds.isNaN else { return .invalid }
    if seconds.isInfinite { return seconds < 0 ? .negativeInfinity : .positiveInfinity }
    var ts = preferredTimescale
    while true {
        let scaled = (seconds * Double(ts)).rounded(.toNearestOrAwayFromZero)
        if scaled > -9.223372036854775808e18 && scaled < 9.223372036854775808e18 {
            let value = Int64(scaled)
            var flags: CMTimeFlags = .valid
            if Double(value) / Double(ts) != seconds { flags.insert(.hasBeenRounded) }
            return CMTime(value: value, timescale: ts, flags: flags, epoch: 0)
        }
        if ts == 1 { return seconds < 0 ? .negativeInfinity : .positiveInfinity }
        ts /= 2
    }
}

/// Seconds as a `Float64`: NaN when invalid or indefinite, ±infinity when infinite; the epoch is ignored.
public func CMTimeGetSeconds(_ time: CMTime) -> Float64 {
    switch TimeKind(time) {
    case .invalid, .indefinite: return .nan
    case .positiveInfinity: return .infinity
    case .negativeInfinity: return -.infinity
    case .numeric: return Double(time.value) / Double(time.timescale)
    }
}

/// `time` at `newTimescale`, rounded by `method`; sets `hasBeenRounded` when the value had to be rounded.
///
/// A non-numeric time comes back unchanged and a timescale of zero or less gives an invalid time. Where
/// Apple is silent, a value that cannot fit in 64 bits at `newTimescale` gives ±infinity.
///
/// - Parameters:
///   - time: The time to convert; its epoch is kept.
///   - newTimescale: The timescale wanted.
///   - method: How an inexact value is rounded, such as ``CMTimeRoundingMethod/default``;
///     ``CMTimeRoundingMethod/quickTime`` rounds by the direction of the change.
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    guard time.isNumeric else { return time }
    guard newTimescale > 0, time.timescale > 0 else { return .invalid }
    if newTimescale == time.timescale { return time }
    let (q, inexact) = TimeMath.divide(
        Int128(time.value) * Int128(newTimescale), by: Int128(time.timescale),
        method: method, towardLargerScale: newTimescale > time.timescale)
    guard let value = Int64(exactly: q) else {
        return time.value < 0 ? .negativeInfinity : .positiveInfinity
    }
    var flags: CMTimeFlags = .valid
    if inexact || time.flags.contains(.hasBeenRounded) { flags.insert(.hasBeenRounded) }
    return CMTime(value: value, timescale: newTimescale, flags: flags, epoch: time.epoch)
}

/// `lhs + rhs`. The result's timescale is the least common multiple of the operands' (at most
/// ``kCMTimeMaxTimescale``), halved while the value overflows; ±infinity when it overflows at 1.
/// Invalid if either is invalid, or for +inf + -inf; infinite if one is; indefinite if one is.
/// Numeric times in different non-zero epochs give invalid; in the same non-zero epoch, epoch 0.
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime {
    TimeMath.add(lhs, rhs, sign: 1)
}

/// `lhs - rhs`, with the same timescale, overflow and epoch rules as ``CMTimeAdd(_:_:)``;
/// +inf - +inf and -inf - -inf are invalid.
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime {
    TimeMath.add(lhs, rhs, sign: -1)
}

/// `time * multiplier` at `time`'s timescale, halved while the value overflows.
/// An infinity keeps its kind with the sign of the product (a zero multiplier keeps the time's sign).
///
/// - Returns: The product, rounded only when the timescale had to be halved; invalid for an invalid
///   time, indefinite for an indefinite one.
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime {
    switch TimeKind(time) {
    case .invalid, .indefinite: return time.isValid ? .indefinite : .invalid
    case .positiveInfinity, .negativeInfinity:
        let negative = time.isNegativeInfinity != (multiplier < 0)
        return negative ? .negativeInfinity : .positiveInfinity
    case .numeric:
        guard time.timescale > 0 else { return .invalid }
        return TimeMath.fit(
            Int128(time.value) * Int128(multiplier), over: Int128(time.timescale), timescale: time.timescale,
            epoch: time.epoch, alreadyRounded: time.flags.contains(.hasBeenRounded))
    }
}

/// The older, unlabeled spelling of ``CMTimeMultiplyByFloat64(_:multiplier:)``, as Swift 3 code (and the
/// AVKit guide's samples) call it.
public func CMTimeMultiplyByFloat64(_ time: CMTime, _ multiplier: Float64) -> CMTime {
    CMTimeMultiplyByFloat64(time, multiplier: multiplier)
}

/// `time * multiplier`. The timescale is doubled until it is at least 65536, then halved while the
/// value overflows; default rounding. For a numeric time, a NaN multiplier gives an invalid time, an
/// infinite one ±infinity (invalid for a zero time).
///
/// - Returns: The product, in `time`'s epoch; invalid for an invalid time, indefinite for an
///   indefinite one, and for an infinity the infinity with the sign of the product.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    switch TimeKind(time) {
    case .invalid: return .invalid
    case .indefinite: return .indefinite
    case .positiveInfinity, .negativeInfinity:
        let negative = time.isNegativeInfinity != (multiplier < 0)
        return negative ? .negativeInfinity : .positiveInfinity
    case .numeric:
        guard time.timescale > 0, !multiplier.isNaN else { return .invalid }
        if multiplier.isInfinite {
            if time.value == 0 { return .invalid }
            return (time.value < 0) != (multiplier < 0) ? .negativeInfinity : .positiveInfinity
        }
        var ts = Int64(time.timescale)
        while ts < 65536 { ts *= 2 }
        if ts > Int64(kCMTimeMaxTimescale) { ts = Int64(time.timescale) }
        let product = Double(time.value) * multiplier
        let exact = product / Double(time.timescale)
        while true {
            // ts / time.timescale is a power of two while doubling, so this stays exact where it can.
            let scaled = product * Double(ts) / Double(time.timescale)
            let rounded = scaled.rounded(.toNearestOrAwayFromZero)
            if rounded > -9.223372036854775808e18 && rounded < 9.223372036854775808e18 {
                var flags: CMTimeFlags = .valid
                if rounded != scaled || time.flags.contains(.hasBeenRounded) { flags.insert(.hasBeenRounded) }
                return CMTime(value: Int64(rounded), timescale: Int32(ts), flags: flags, epoch: time.epoch)
            }
            if ts == 1 { return exact < 0 ? .negativeInfinity : .positiveInfinity }
            ts /= 2
        }
    }
}

/// `time * multiplier / divisor`, exact where it can be: at `time`'s timescale when that is exact,
/// else at the reduced fraction's own timescale, else at the largest timescale that fits (least rounding).
/// A zero divisor gives ±infinity, or invalid when the time or the multiplier is also zero.
///
/// - Returns: The scaled time, in `time`'s epoch; invalid for an invalid time, indefinite for an
///   indefinite one, and for an infinity the infinity with the sign of the ratio (invalid for 0/0).
public func CMTimeMultiplyByRatio(_ time: CMTime, multiplier: Int32, divisor: Int32) -> CMTime {
    switch TimeKind(time) {
    case .invalid: return .invalid
    case .indefinite: return .indefinite
    case .positiveInfinity, .negativeInfinity:
        if divisor == 0 && multiplier == 0 { return .invalid }
        let negative = time.isNegativeInfinity != ((multiplier < 0) != (divisor < 0))
        return negative ? .negativeInfinity : .positiveInfinity
    case .numeric:
        guard time.timescale > 0 else { return .invalid }
        let rounded = time.flags.contains(.hasBeenRounded)
        if divisor == 0 {
            if time.value == 0 || multiplier == 0 { return .invalid }
            return (time.value < 0) != (multiplier < 0) ? .negativeInfinity : .positiveInfinity
        }
        var n = Int128(time.value) * Int128(multiplier)
        var d = Int128(divisor)
        if d < 0 { n = -n; d = -d }
        // Exact at the time's own timescale?
        if n % d == 0, let value = Int64(exactly: n / d) {
            return CMTime(value: value, timescale: time.timescale, flags: rounded ? [.valid, .hasBeenRounded] : .valid, epoch: time.epoch)
        }
        // Exact as the reduced fraction?
        var num = n, den = d * Int128(time.timescale)
        let g = TimeMath.gcd(num, den)
        num /= g; den /= g
        if den <= TimeMath.maxTimescale, let value = Int64(exactly: num) {
            return CMTime(value: value, timescale: Int32(den), flags: rounded ? [.valid, .hasBeenRounded] : .valid, epoch: time.epoch)
        }
        return TimeMath.fit(num, over: den, timescale: Int32(TimeMath.maxTimescale), epoch: time.epoch, alreadyRounded: rounded)
    }
}

/// -1, 0 or 1. Numeric times compare exactly across timescales, by epoch first; kinds order as
/// -infinity < numeric < indefinite < +infinity < invalid, and each non-numeric kind equals itself.
///
/// - Returns: -1 when `time1` comes before `time2`, 0 when they are equal, 1 when it comes after.
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 {
    TimeMath.compare(time1, time2)
}

/// The lesser of two times by ``CMTimeCompare(_:_:)`` (the first when equal).
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime {
    CMTimeCompare(time1, time2) <= 0 ? time1 : time2
}

/// The greater of two times by ``CMTimeCompare(_:_:)`` (the first when equal).
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime {
    CMTimeCompare(time1, time2) >= 0 ? time1 : time2
}

/// `time` with its sign inverted when negative; -infinity becomes +infinity.
public func CMTimeAbsoluteValue(_ time: CMTime) -> CMTime {
    switch TimeKind(time) {
    case .negativeInfinity: return .positiveInfinity
    case .numeric where time.value < 0:
        guard time.timescale > 0 else { return .invalid }
        return TimeMath.fit(
            -Int128(time.value), over: Int128(time.timescale), timescale: time.timescale,
            epoch: time.epoch, alreadyRounded: time.flags.contains(.hasBeenRounded))
    default: return time
    }
}

/// Whether `time` is valid (``CMTime/isValid``).
public func CMTIME_IS_VALID(_ time: CMTime) -> Bool { time.isValid }
/// Whether `time` is invalid.
public func CMTIME_IS_INVALID(_ time: CMTime) -> Bool { !time.isValid }
/// Whether `time` is +infinity.
public func CMTIME_IS_POSITIVE_INFINITY(_ time: CMTime) -> Bool { time.isPositiveInfinity }
/// Whether `time` is -infinity.
public func CMTIME_IS_NEGATIVE_INFINITY(_ time: CMTime) -> Bool { time.isNegativeInfinity }
/// Whether `time` is indefinite.
public func CMTIME_IS_INDEFINITE(_ time: CMTime) -> Bool { time.isIndefinite }
/// Whether `time` is a real number of seconds (valid, not infinite, not indefinite).
public func CMTIME_IS_NUMERIC(_ time: CMTime) -> Bool { time.isNumeric }
/// Whether `time` is numeric and has been rounded.
public func CMTIME_HAS_BEEN_ROUNDED(_ time: CMTime) -> Bool { time.hasBeenRounded }

/// Prints `time` as `{value/timescale = seconds}` (its ``CMTime/description``) to standard output.
public func CMTimeShow(_ time: CMTime) { print(time.description) }

// The C constant names: Swift code on Apple's platforms spells these `CMTime.zero` and so on.
/// The C name of ``CMTime/zero``.
@available(*, deprecated, renamed: "CMTime.zero")
public var kCMTimeZero: CMTime { .zero }
/// The C name of ``CMTime/invalid``.
@available(*, deprecated, renamed: "CMTime.invalid")
public var kCMTimeInvalid: CMTime { .invalid }
/// The C name of ``CMTime/indefinite``.
@available(*, deprecated, renamed: "CMTime.indefinite")
public var kCMTimeIndefinite: CMTime { .indefinite }
/// The C name of ``CMTime/positiveInfinity``.
@available(*, deprecated, renamed: "CMTime.positiveInfinity")
public var kCMTimePositiveInfinity: CMTime { .positiveInfinity }
/// The C name of ``CMTime/negativeInfinity``.
@available(*, deprecated, renamed: "CMTime.negativeInfinity")
public var kCMTimeNegativeInfinity: CMTime { .negativeInfinity }
