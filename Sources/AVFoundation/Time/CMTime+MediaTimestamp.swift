internal import MediaEngine

// The one bridge between CoreMedia's times and the engine's timestamps. Exact both ways wherever the
// time base is 1/n (every container's stream time base is): a cut made in CMTime reaches FFmpeg as
// the same rational, never through `Double` seconds.

extension MediaTimestamp {
    /// `time` as the engine takes it: its value over its timescale, exactly. An invalid or
    /// indefinite time, or one with no timescale, is 0 over 1.
    init(_ time: CMTime) {
        if time.isNumeric, time.timescale > 0 {
            self.init(value: time.value, timeBase: Rational(1, time.timescale))
        } else {
            self.init(value: 0, timeBase: Rational(1, 1))
        }
    }
}

extension CMTime {
    /// `ticks` of `timeBase` as a CMTime: exact when the base is 1/n (the usual case) or when
    /// `ticks * numerator` fits; else the nearest time at the base's denominator.
    init(ticks: Int64, timeBase: Rational) {
        let (num, den) = (timeBase.numerator, timeBase.denominator)
        guard num > 0, den > 0 else {
            self = .invalid
            return
        }
        if num == 1 {
            self.init(value: ticks, timescale: den)
            return
        }
        let (scaled, overflow) = ticks.multipliedReportingOverflow(by: Int64(num))
        if !overflow {
            self.init(value: scaled, timescale: den)
        } else {
            self.init(seconds: Double(ticks) * Double(num) / Double(den), preferredTimescale: den)
        }
    }
}
