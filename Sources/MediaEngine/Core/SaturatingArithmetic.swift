/// Arithmetic on numbers read from files, which may hold any value: it saturates at the type's bounds
/// instead of trapping.
extension FixedWidthInteger {
    package func addingSaturating(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    package func subtractingSaturating(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }

    package func multipliedSaturating(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

extension Int64 {
    /// `value` (already rounded as the caller wants) held within ±9e18, 0 when it is not a number: a
    /// time or size computed in floating point from a file's values never traps the conversion.
    package init(saturating value: Double) {
        self = value.isNaN ? 0 : Int64(Swift.max(-9.0e18, Swift.min(9.0e18, value)))
    }
}
