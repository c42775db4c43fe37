import Foundation

/// How much slower than a plain debug build the test run may be: the suite's time bounds and the
/// timeouts it gives are multiplied by `scale`. 1 unless `AVOCET_TEST_TIME_SCALE` says otherwise
/// (scripts/sanitizers.sh sets it: a sanitizer slows everything several times).
package enum TestTiming {
    package static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["AVOCET_TEST_TIME_SCALE"], let value = Double(text),
              value.isFinite, value >= 1 else { return 1 }
        return min(value, 100)
    }()

    /// `seconds` times `scale`, as a duration.
    package static func seconds(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * scale * 1000).rounded()))
    }
}
