@testable import avtool
import FixtureSupport
import Foundation
import Testing

/// `avtool play`, run as a user would: to the end, from a time, stopped by keys on a terminal, and a
/// file that cannot be read.
@Suite("avtool play", .serialized)
struct PlayCommandTests {
    @Test func playsToTheEnd() async throws {
        let started = Date()
        let result = try await AVToolProcess.run(["play", Fixtures.path("av.mp4"), "--from", "1.5"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(Fixtures.path("av.mp4")): played to the end at 2.000 s\n")
        let seconds = Date().timeIntervalSince(started)
        // At least half a second of item time on the host clock; the upper bound only catches a hang (a
        // loaded two-core machine starts a process slowly).
        #expect(seconds > 0.4 && seconds < 30, "half a second of item time on the host clock: \(seconds)")
        #expect(result.stderr.split(separator: "\n").count <= 1, "at most the no-device line: \(result.stderr)")
    }

    @Test func aFileThatCannotBeReadGetsOneLine() async throws {
        let result = try await AVToolProcess.run(["play", "/nonexistent/clip.mp4"])
        #expect(result.status == 1 && result.stderr.hasPrefix("avtool: ") && result.stderr.contains("clip.mp4"))
    }

    /// On a terminal (`script` gives it one) space pauses and q quits; the status line shows it.
    @Test func keysOnATerminal() async throws {
        let script = URL(fileURLWithPath: "/usr/bin/script")
        guard FileManager.default.isExecutableFile(atPath: script.path) else { return }
        let avtool = ChildProcess.builtProduct("avtool").path
        let line = "(sleep 0.6; printf ' '; sleep 0.5; printf q) | script -qec '\(avtool) play \(Fixtures.path("av.mp4"))' /dev/null"
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-c", line])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("paused") && result.stdout.contains("stopped at"), "\(result.stdout)")
        #expect(result.stdout.contains("/ 2.00 s"))
    }
}
