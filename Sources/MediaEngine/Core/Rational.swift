/// A fraction as FFmpeg keeps time bases, frame rates and aspect ratios.
package struct Rational: Sendable, Hashable, CustomStringConvertible {
    package var numerator: Int32
    package var denominator: Int32

    package init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The value as a Double; nil when the denominator or numerator is zero (FFmpeg's "unknown").
    package var value: Double? {
        numerator == 0 || denominator == 0 ? nil : Double(numerator) / Double(denominator)
    }

    package var description: String { "\(numerator)/\(denominator)" }
}

/// A timestamp or duration in a time base: `value * timeBase` seconds.
package struct MediaTimestamp: Sendable, Hashable {
    package var value: Int64
    package var timeBase: Rational

    package init(value: Int64, timeBase: Rational) {
        self.value = value
        self.timeBase = timeBase
    }

    package var seconds: Double {
        Double(value) * Double(timeBase.numerator) / Double(timeBase.denominator)
    }
}

/// One metadata entry as the container stores it: FFmpeg's key (lower-cased by most demuxers) and text.
package struct Tag: Sendable, Hashable {
    package var key: String
    package var value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

extension Array where Element == Tag {
    /// The first value stored under `key`, compared without regard to case.
    /// The value of the first tag named `key`, ignoring ASCII case (FFmpeg's own lookup rule).
    package func value(for key: String) -> String? {
        first { $0.key.utf8.count == key.utf8.count && $0.key.utf8.elementsEqual(key.utf8) { asciiLower($0) == asciiLower($1) } }?.value
    }
}

private func asciiLower(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
}
