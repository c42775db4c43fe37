import Foundation
import Testing

/// The scale of the tests' time bounds: `AVOCET_TEST_TIME_SCALE` (1 to 100), as Avocet's own tests
/// read it, for runs under a sanitizer or on a loaded machine.
let testTimeScale: Double = {
    guard let text = ProcessInfo.processInfo.environment["AVOCET_TEST_TIME_SCALE"], let value = Double(text),
          value.isFinite, value >= 1 else { return 1 }
    return min(value, 100)
}()

/// Waits until `condition` holds, checking it every 10 ms, for at most `seconds` (times
/// `testTimeScale`); records an issue naming `what` and returns false when it never does. The one
/// poll loop of these tests: a deadline, never a fixed count of sleeps.
@discardableResult
func until(_ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
           _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * testTimeScale * 1000))
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else {
            Issue.record("waited \(seconds * testTimeScale) s for \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
}
