import Foundation

/// The numerator of a ``CMTime``: its value in units of `1/timescale` seconds.
public typealias CMTimeValue = Int64
/// The denominator of a ``CMTime``: units per second.
public typealias CMTimeScale = Int32
/// The epoch of a ``CMTime``; times in different epochs are on different timelines.
public typealias CMTimeEpoch = Int64
/// A track's ID, unique within its asset; ``kCMPersistentTrackID_Invalid`` (0) is no track.
public typealias CMPersistentTrackID = Int32

/// The largest timescale a ``CMTime`` may have (0x7fffffff).
public var kCMTimeMaxTimescale: Int { 0x7fff_ffff }
/// A track ID that asks a composition to choose one.
public var kCMPersistentTrackID_Invalid: CMPersistentTrackID { 0 }

/// Flag bits of a ``CMTime``.
public struct CMTimeFlags: OptionSet, Hashable, Sendable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags from their bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The time is valid; every other flag is meaningful only with this one.
    public static let valid = CMTimeFlags(rawValue: 1 << 0)
    /// The value was rounded by a conversion or an operation.
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)
    /// The time is +infinity; its value and timescale are ignored.
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)
    /// The time is -infinity; its value and timescale are ignored.
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)
    /// The time is not known (a live stream's duration); its value and timescale are ignored.
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)
    /// The flags that make a time non-numeric: both infinities and indefinite.
    public static let impliedValueFlagsMask: CMTimeFlags = [.positiveInfinity, .negativeInfinity, .indefinite]
}

/// How a value is rounded when a time changes timescale.
public enum CMTimeRoundingMethod: UInt32, Sendable {
    /// Toward zero below one half, away from zero at one half and above.
    case roundHalfAwayFromZero = 1
    /// Toward zero (truncation).
    case roundTowardZero = 2
    /// Away from zero.
    case roundAwayFromZero = 3
    /// Toward zero when converting to a smaller timescale, away from zero when converting to a larger
    /// one; never rounds a negative time up to zero (gives `-1/newTimescale` instead).
    case quickTime = 4
    /// Up, toward +infinity.
    case roundTowardPositiveInfinity = 5
    /// Down, toward -infinity.
    case roundTowardNegativeInfinity = 6

    /// ``CMTimeRoundingMethod/roundHalfAwayFromZero``.
    public static var `default`: CMTimeRoundingMethod { .roundHalfAwayFromZero }
}

/// A rational time (`value / timescale` seconds) or one of the non-numeric times: invalid,
/// indefinite, positive or negative infinity. Pure value type; every operation is O(1).
public struct CMTime: Sendable {
    /// The numerator: the time is `value / timescale` seconds.
    public var value: CMTimeValue
    /// The denominator: units per second (600 is common for video, the sample rate for audio).
    public var timescale: CMTimeScale
    /// Whether the time is valid, rounded, infinite or indefinite.
    public var flags: CMTimeFlags
    /// The epoch; times in different epochs do not compare by value (usually 0).
    public var epoch: CMTimeEpoch

    /// An invalid time (every field zero).
    public init() {
        self.init(value: 0, timescale: 0, flags: [], epoch: 0)
    }

    /// A time from its four fields, taken as given.
    public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// A valid time of `value / timescale` seconds in epoch 0 (``CMTimeMake(value:timescale:)``).
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self.init(value: value, timescale: timescale, flags: .valid, epoch: 0)
    }

    /// The time nearest to `seconds` in `preferredTimescale` (``CMTimeMakeWithSeconds(_:preferredTimescale:)``): invalid for a
    /// timescale of zero or less or for NaN; the timescale is halved until the value fits; `hasBeenRounded`
    /// is set when the result is not exactly `seconds`.
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        self = CMTimeMakeWithSeconds(seconds, preferredTimescale: preferredTimescale)
    }

    /// Zero seconds (0/1).
    public static let zero = CMTime(value: 0, timescale: 1)
    /// The invalid time (every field zero).
    public static let invalid = CMTime()
    /// A valid time whose value is not known, such as the duration of a live stream.
    public static let indefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    /// +infinity: later than every numeric time.
    public static let positiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    /// -infinity: earlier than every numeric time.
    public static let negativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    /// Whether the `valid` flag is set (true for the infinities and indefinite too).
    public var isValid: Bool { flags.contains(.valid) }
    /// Whether the time is valid and +infinity.
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// Whether the time is valid and -infinity.
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// Whether the time is valid and indefinite.
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// Whether the time is valid and neither infinite nor indefinite: a real `value / timescale`.
    public var isNumeric: Bool { flags.intersection([.valid, .impliedValueFlagsMask]) == .valid }
    /// Whether the time is numeric and was rounded on its way here.
    public var hasBeenRounded: Bool { isNumeric && flags.contains(.hasBeenRounded) }

    /// The time in seconds: NaN when invalid or indefinite, ±infinity for the infinities; the epoch is ignored.
    public var seconds: Double { CMTimeGetSeconds(self) }

    /// This time in `newTimescale`, rounded by `method` (``CMTimeConvertScale(_:timescale:method:)``).
    ///
    /// - Parameters:
    ///   - newTimescale: The timescale wanted, more than 0.
    ///   - method: How an inexact value is rounded, such as ``CMTimeRoundingMethod/default``.
    /// - Returns: The time at `newTimescale`, with ``hasBeenRounded`` set when it had to be rounded; the
    ///   time itself when it is not numeric; ``invalid`` for a `newTimescale` of 0 or less; an infinity
    ///   when the value cannot fit in 64 bits.
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
        CMTimeConvertScale(self, timescale: newTimescale, method: method)
    }

    /// The sum, by the rules of ``CMTimeAdd(_:_:)``.
    public static func + (addend1: CMTime, addend2: CMTime) -> CMTime { CMTimeAdd(addend1, addend2) }
    /// The difference, by the rules of ``CMTimeSubtract(_:_:)``.
    public static func - (minuend: CMTime, subtrahend: CMTime) -> CMTime { CMTimeSubtract(minuend, subtrahend) }
}

extension CMTime: Comparable {
    /// Order of ``CMTimeCompare(_:_:)``: -infinity < numeric times < indefinite < +infinity < invalid.
    public static func < (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) < 0 }
    /// Whether `time1` is not after `time2`, in the order of ``CMTimeCompare(_:_:)``.
    public static func <= (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) <= 0 }
    /// Whether `time1` is after `time2`, in the order of ``CMTimeCompare(_:_:)``.
    public static func > (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) > 0 }
    /// Whether `time1` is not before `time2`, in the order of ``CMTimeCompare(_:_:)``.
    public static func >= (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) >= 0 }
    /// Equal when ``CMTimeCompare(_:_:)`` says so: 1/2 equals 500/1000; `hasBeenRounded` does not count.
    public static func == (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) == 0 }
    /// Whether ``CMTimeCompare(_:_:)`` finds the times different.
    public static func != (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) != 0 }
}

extension CMTime: Hashable {
    /// Consistent with `==`: numeric times hash their epoch and reduced fraction, so 1/2 and 500/1000
    /// hash alike; non-numeric times hash their kind only.
    public func hash(into hasher: inout Hasher) {
        let kind = TimeKind(self)
        hasher.combine(kind)
        guard kind == .numeric else { return }
        let g = TimeMath.gcd(Int128(value), Int128(timescale))
        hasher.combine(epoch)
        if g == 0 {
            hasher.combine(0 as Int128)
        } else {
            hasher.combine(Int128(value) / g)
            hasher.combine(Int128(timescale) / g)
        }
    }
}

extension CMTime: Codable {
    private enum CodingKeys: String, CodingKey { case value, timescale, flags, epoch }

    /// Decodes the four fields (`value`, `timescale`, `flags`, `epoch`).
    ///
    /// - Throws: `DecodingError` when a field is missing or not a number of its type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try c.decode(Int64.self, forKey: .value),
            timescale: try c.decode(Int32.self, forKey: .timescale),
            flags: CMTimeFlags(rawValue: try c.decode(UInt32.self, forKey: .flags)),
            epoch: try c.decode(Int64.self, forKey: .epoch))
    }

    /// Encodes the four fields (`value`, `timescale`, `flags`, `epoch`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode(timescale, forKey: .timescale)
        try c.encode(flags.rawValue, forKey: .flags)
        try c.encode(epoch, forKey: .epoch)
    }
}

extension CMTime: CustomStringConvertible {
    /// `{value/timescale = seconds}` as ``CMTimeShow(_:)`` prints it, or the non-numeric kind.
    public var description: String {
        switch TimeKind(self) {
        case .invalid: return "{INVALID}"
        case .negativeInfinity: return "{-INFINITY}"
        case .positiveInfinity: return "{+INFINITY}"
        case .indefinite: return "{INDEFINITE}"
        case .numeric:
            let rounded = hasBeenRounded ? "(rounded)" : ""
            let epochText = epoch != 0 ? ", epoch \(epoch)" : ""
            return "{\(value)/\(timescale) = \(String(format: "%.3f", seconds))\(rounded)\(epochText)}"
        }
    }
}
