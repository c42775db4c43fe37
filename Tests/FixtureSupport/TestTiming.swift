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

extension TestTiming {
    /// An upper bound that tells "promptly" from a hang: `seconds` times `scale`, but never more than
    /// half of `hang`, the seconds the hang it must catch would take (a blocked cooperative pool waits
    /// out a 30 s read; a missed cancellation, the whole of a long wait). So a slow or busy machine gets
    /// room, and the bound still fails where the hang happens.
    package static func bound(_ seconds: Double, hang: Double = 30) -> Duration {
        min(self.seconds(seconds), .milliseconds(Int64((hang * 500).rounded())))
    }
}
