import FixtureSupport
import Foundation
import Testing

/// Replays every input that ever made a fuzz target crash or hang (Fixtures/fuzz/TARGET, committed
/// with its fix) through `avocet-fuzz` built normally, in a child process: each must end with "ok".
@Suite("Fuzz regression inputs replay cleanly")
struct FuzzRegressionTests {
    static let executable = ChildProcess.builtProduct("avocet-fuzz")

    @Test(arguments: ["open", "thumbnail", "loader", "reader", "audio", "player", "export"])
    func everyCommittedInputPasses(_ target: String) async throws {
        let folder = Fixtures.directory.appendingPathComponent("fuzz/\(target)")
        let inputs = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted()
            .map { folder.appendingPathComponent($0).path } ?? []
        guard !inputs.isEmpty else { return }
        let run = try await ChildProcess.run(Self.executable, [target] + inputs, timeout: 120 * TestTiming.scale)
        #expect(!run.timedOut && run.signal == nil && run.status == 0, "\(String(run.stderr.suffix(600)))")
        let passed = run.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count
        #expect(passed == inputs.count, "every input ends with ok: \(run.stdout)")
    }

    /// The replayer itself fails on a bad target name: a test that runs nothing cannot pass by accident.
    @Test func anUnknownTargetIsRefused() async throws {
        let run = try await ChildProcess.run(Self.executable, ["nonesuch", Fixtures.path("av.mp4")], timeout: 30 * TestTiming.scale)
        #expect(run.status == 2)
    }
}
