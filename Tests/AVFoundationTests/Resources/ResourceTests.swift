import FixtureSupport
import Foundation
import Testing

/// Runs `avocet-stress` (built beside this test bundle) in a shell, and returns its `key value` lines.
func stress(_ shell: String) async throws -> (status: Int32, values: [String: Int], stderr: String, stdout: String) {
    let executable = ChildProcess.builtProduct("avocet-stress")
    let command = shell.replacingOccurrences(of: "STRESS", with: "'\(executable.path)'")
    let run = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command])
    var values: [String: Int] = [:]
    for line in run.stdout.split(separator: "\n") {
        let parts = line.split(separator: " ")
        if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
    }
    return (run.status, values, run.stderr, run.stdout)
}

private func quoted(_ names: [String]) -> String {
    names.map { "'\(Fixtures.path($0))'" }.joined(separator: " ")
}

/// Resources in a process of its own, so no other test disturbs the figures.
@Suite("Resources: descriptors and memory", .serialized)
struct ResourceTests {
    /// Assets keep facts, not files: 5,000 loaded assets under a 256-descriptor limit, and their later
    /// keys (a packet scan that opens the file again) and new assets still load.
    @Test func fiveThousandLoadedAssetsHoldNoDescriptors() async throws {
        let files = quoted(["av.mp4", "multi.mkv", "tagged.flac", "vp9.webm", "tone.wav"])
        let run = try await stress("ulimit -n 256 && exec STRESS fds 5000 \(files)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.values["loaded"] == 5000)
        #expect(run.values["laterKeys"] == 50)
        #expect((run.values["descriptors"] ?? .max) < 32, "descriptors held by 5,000 loaded assets: \(run.values)")
        #expect((run.values["descriptorsAfter"] ?? .max) < 32)
    }

    /// A disk that fills while an asset writer writes: the writer fails with Apple's disk-full code and
    /// leaves no half-written file (the child process may not write files past 300 KiB).
    @Test func aFullDiskFailsTheWriterAndLeavesNoFile() async throws {
        let output = try Fixtures.temporaryDirectory().appendingPathComponent("full.mp4")
        let run = try await stress("exec STRESS diskfull 300 '\(output.path)'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect((run.values["appended"] ?? 0) > 0)
        #expect(run.values["status"] == 3, "\(run.values)")
        #expect(run.values["code"] == -11807, "\(run.values)")
        #expect(run.values["leftBehind"] == 0)
    }

    /// Failed and cancelled opens (truncated files, not media, cancelled at every stage) leak nothing:
    /// resident memory over 9,000 opens after a warm-up of 1,000 stays within 16 MiB.
    @Test func tenThousandFailedAndCancelledOpensKeepMemoryFlat() async throws {
        let files = quoted(["truncated.mp4", "truncated-header.mp4", "not-media.mp4", "av.mp4", "multi.mkv"])
        let run = try await stress("exec STRESS leaks 10000 \(files)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.values["opens"] == 10000)
        let before = try #require(run.values["rssBeforeKiB"]), after = try #require(run.values["rssAfterKiB"])
        // Under a sanitizer (scripts/sanitizers.sh says which) resident memory is the sanitizer's: its
        // allocator keeps freed memory; the leak check is LeakSanitizer's there.
        if ProcessInfo.processInfo.environment["AVOCET_SANITIZER"] == nil {
            #expect(before > 0 && after - before < 16 * 1024, "resident memory grew from \(before) KiB to \(after) KiB")
        }
        #expect((run.values["descriptors"] ?? .max) < 32)
    }

    /// Two hundred assets whose resource loader delegates never answer hold no engine thread while they
    /// wait, do not delay a local file's load, and all end at once when cancelled (half by
    /// `cancelLoading()`, half by cancelling their tasks), each request cancelled on the delegate.
    @Test func twoHundredSilentDelegatesDoNotDelayALocalFile() async throws {
        let run = try await stress("exec STRESS silent 200 \(quoted(["av.mp4"]))")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.values["requests"] == 200, "every delegate was asked: \(run.values)")
        #expect(run.values["runningJobs"] == 0, "no engine thread waits for a silent delegate")
        #expect(run.values["queuedJobs"] == 0)
        // A load queued behind the silent ones, or a missed cancellation, would wait for good: 3 s scaled,
        // at most 5.
        #expect(.milliseconds(run.values["localLoadMs"] ?? .max) < TestTiming.bound(3, hang: 10), "the local file loads at once: \(run.values)")
        #expect(run.values["endedLoads"] == 200)
        #expect(.milliseconds(run.values["cancelMs"] ?? .max) < TestTiming.bound(3, hang: 10), "every load ends at once when cancelled")
        #expect(run.values["didCancel"] == 200, "each outstanding request is cancelled on the delegate")
        #expect(run.stdout.contains("allCancelled true"), "every request is cancelled, none finished")
        #expect((run.values["threads"] ?? .max) < 40, "no thread per silent delegate: \(run.values)")
    }
}
