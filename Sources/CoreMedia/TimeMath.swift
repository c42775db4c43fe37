/// The kind of a time, in the order `CMTimeCompare` sorts kinds.
enum TimeKind: Int, Hashable, Comparable {
    case negativeInfinity = 0
    case numeric = 1
    case indefinite = 2
    case positiveInfinity = 3
    case invalid = 4

    init(_ time: CMTime) {
        if !time.flags.contains(.valid) {
            self = .invalid
        } else if time.flags.contains(.positiveInfinity) {
            self = .positiveInfinity
        } else if time.flags.contains(.negativeInfinity) {
            self = .negativeInfinity
        } else if time.flags.contains(.indefinite) {
            self = .indefinite
        } else {
            self = .numeric
        }
    }

    static func < (lhs: TimeKind, rhs: TimeKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Exact rational arithmetic behind CoreMedia's time functions. Values are carried in `Int128`, so
/// products of an `Int64` value and `Int32` timescales never overflow before the final rounding.
enum TimeMath {
    static let maxTimescale = Int128(0x7fff_ffff)

    static func gcd(_ a: Int128, _ b: Int128) -> Int128 {
        var a = a.magnitude, b = b.magnitude
        while b != 0 { (a, b) = (b, a % b) }
        return Int128(a)
    }

    /// `n / d` for `d > 0`, rounded by `method`; `towardLargerScale` picks the QuickTime method's direction.
    /// Returns the quotient and whether it is inexact.
    static func divide(_ n: Int128, by d: Int128, method: CMTimeRoundingMethod, towardLargerScale: Bool) -> (Int128, Bool) {
        let q = n / d
        let r = n % d
        guard r != 0 else { return (q, false) }
        let awayStep: Int128 = n < 0 ? -1 : 1
        switch method {
        case .roundTowardZero:
            return (q, true)
        case .roundAwayFromZero:
            return (q + awayStep, true)
        case .roundHalfAwayFromZero:
            return (r.magnitude * 2 >= d.magnitude ? q + awayStep : q, true)
        case .roundTowardPositiveInfinity:
            return (n > 0 ? q + 1 : q, true)
        case .roundTowardNegativeInfinity:
            return (n < 0 ? q - 1 : q, true)
        case .quickTime:
            var result = towardLargerScale ? q + awayStep : q
            if result == 0 && n < 0 { result = -1 }
            return (result, true)
        }
    }

    /// The time nearest to `n / d` seconds at `timescale` (`d > 0`). When the value overflows `Int64` the
    /// timescale is halved until it fits; if it still overflows at timescale 1 the result is an infinity.
    static func fit(
        _ n: Int128, over d: Int128, timescale: Int32, method: CMTimeRoundingMethod = .default,
        towardLargerScale: Bool = false, epoch: CMTimeEpoch = 0, alreadyRounded: Bool = false
    ) -> CMTime {
        var ts = timescale
        while true {
            let (q, inexact) = divide(n * Int128(ts), by: d, method: method, towardLargerScale: towardLargerScale)
            if let value = Int64(exactly: q) {
                var flags: CMTimeFlags = .valid
                if inexact || alreadyRounded { flags.insert(.hasBeenRounded) }
                return CMTime(value: value, timescale: ts, flags: flags, epoch: epoch)
            }
            if ts <= 1 { return n < 0 ? .negativeInfinity : .positiveInfinity }
            ts /= 2
        }
    }

    /// Sum of two numeric times (`sign` -1 subtracts), per `CMTimeAdd`'s timescale, epoch and rounding rules.
    static func addNumeric(_ a: CMTime, _ b: CMTime, sign: Int128) -> CMTime {
        guard a.timescale > 0, b.timescale > 0 else { return .invalid }
        let epoch: CMTimeEpoch
        switch (a.epoch, b.epoch) {
        case (0, let e), (let e, 0): epoch = e
        case let (x, y) where x == y: epoch = 0
        default: return .invalid
        }
        let rounded = a.flags.contains(.hasBeenRounded) || b.flags.contains(.hasBeenRounded)
        if a.timescale == b.timescale {
            let sum = Int128(a.value) + sign * Int128(b.value)
            return fit(sum, over: Int128(a.timescale), timescale: a.timescale, epoch: epoch, alreadyRounded: rounded)
        }
        let ta = Int128(a.timescale), tb = Int128(b.timescale)
        let lcm = ta / gcd(ta, tb) * tb
        let sum = Int128(a.value) * (lcm / ta) + sign * Int128(b.value) * (lcm / tb)
        let target = Int32(min(lcm, maxTimescale))
        return fit(sum, over: lcm, timescale: target, epoch: epoch, alreadyRounded: rounded)
    }

    /// `a + sign*b` with CoreMedia's rules for invalid, infinite and indefinite operands.
    static func add(_ a: CMTime, _ b: CMTime, sign: Int128) -> CMTime {
        let ka = TimeKind(a)
        var kb = TimeKind(b)
        if sign < 0 {
            if kb == .positiveInfinity { kb = .negativeInfinity } else if kb == .negativeInfinity { kb = .positiveInfinity }
        }
        if ka == .invalid || kb == .invalid { return .invalid }
        let aInfinite = ka == .positiveInfinity || ka == .negativeInfinity
        let bInfinite = kb == .positiveInfinity || kb == .negativeInfinity
        if aInfinite && bInfinite {
            return ka == kb ? infinity(ka) : .invalid
        }
        if aInfinite { return infinity(ka) }
        if bInfinite { return infinity(kb) }
        if ka == .indefinite || kb == .indefinite { return .indefinite }
        return addNumeric(a, b, sign: sign)
    }

    static func infinity(_ kind: TimeKind) -> CMTime {
        kind == .negativeInfinity ? .negativeInfinity : .positiveInfinity
    }

    /// Ordering of `CMTimeCompare`, exact across timescales.
    static func compare(_ a: CMTime, _ b: CMTime) -> Int32 {
        let ka = TimeKind(a), kb = TimeKind(b)
        if ka != kb { return ka < kb ? -1 : 1 }
        guard ka == .numeric else { return 0 }
        if a.epoch != b.epoch { return a.epoch < b.epoch ? -1 : 1 }
        if a.timescale == b.timescale {
            return a.value == b.value ? 0 : (a.value < b.value ? -1 : 1)
        }
        // Cross-multiply; a non-positive timescale is treated by sign like any other denominator.
        var lhs = Int128(a.value) * Int128(b.timescale)
        var rhs = Int128(b.value) * Int128(a.timescale)
        if (Int128(a.timescale) * Int128(b.timescale)) < 0 { swap(&lhs, &rhs) }
        return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
    }
}
