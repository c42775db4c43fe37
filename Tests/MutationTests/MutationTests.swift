import FixtureSupport
import Foundation
import Locking
import Testing

// Damaged media must never crash or hang a program that reads it through the public API: every load
// ends with a value or an AVError (not `.unknown`). `avocet-probe` loads every asset, track and metadata property of
// each file it is given (the async API, the legacy API and the deprecated getters, with and without
// precise timing) and prints one line per file; this runs it in child processes on a fixed set of
// mutants of every media fixture, and on the crashers committed in Fixtures/mutants/.

/// How one file ended in the probe.
enum Verdict: Equatable, CustomStringConvertible {
    case ok
    case avError(Int)
    /// CancellationError although nothing cancelled the load.
    case cancelled
    /// An error that is not an AVError (or is AVError.unknown), or a legacy status that never settled.
    case foreign(String)
    /// The probe died from a signal (a Swift trap is SIGILL or SIGTRAP) while on this file.
    case signal(Int32, String)
    case timeout(Double)
    /// The probe exited without a line for this file.
    case noVerdict(String)

    var passed: Bool {
        switch self {
        case .ok, .avError: return true
        default: return false
        }
    }

    var description: String {
        switch self {
        case .ok: return "ok"
        case .avError(let code): return "AVError \(code)"
        case .cancelled: return "CancellationError though nothing was cancelled"
        case .foreign(let what): return "threw or reported a non-AVError: \(what)"
        case .signal(let signal, let message): return "died from signal \(signal)\(message.isEmpty ? "" : ": \(message)")"
        case .timeout(let seconds): return "hung: no answer within \(Int(seconds)) s"
        case .noVerdict(let why): return "no verdict: \(why)"
        }
    }
}

/// Runs `avocet-probe` in child processes.
enum ProbeRunner {
    /// The probe built next to this test bundle.
    static let executable = ChildProcess.builtProduct("avocet-probe")

    /// Files per child process, and how long a child may take per batch and for one file.
    static let batchSize = 24
    static let batchTimeout = 30 * TestTiming.scale
    static let singleTimeout = 15 * TestTiming.scale

    struct Run {
        var verdicts: [String: Verdict] = [:]
        var signal: Int32?
        var exitStatus: Int32 = 0
        var timedOut = false
        var stderr = ""
    }

    /// Runs the probe on `paths`, killing it after `timeout` seconds. Blocking.
    static func run(_ paths: [String], timeout: Double, backtrace: Bool) -> Run {
        var run = Run()
        var environment = ProcessInfo.processInfo.environment
        // A backtrace costs seconds per crash: only for single files, where it is the report.
        environment["SWIFT_BACKTRACE"] = backtrace ? "enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,sanitize=no" : "enable=no"
        let child: ChildProcess.Output
        do {
            child = try ChildProcess.runBlocking(executable, paths, environment: environment, timeout: timeout)
        } catch {
            for path in paths { run.verdicts[path] = .noVerdict("cannot start \(executable.path): \(error)") }
            return run
        }
        run.timedOut = child.timedOut
        run.signal = child.signal
        run.exitStatus = child.status
        run.stderr = child.stderr
        let output = child.stdout
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            switch words.first {
            case "ok" where words.count >= 2:
                run.verdicts[words.dropFirst().joined(separator: " ")] = .ok
            case "cancelled" where words.count >= 2:
                run.verdicts[words.dropFirst().joined(separator: " ")] = .cancelled
            case "error" where words.count == 3:
                run.verdicts[words[2]] = Int(words[1]).map(Verdict.avError) ?? .foreign("error line without a code: \(line)")
            case "foreign" where words.count == 3:
                run.verdicts[words[2]] = .foreign(words[1])
            default:
                break
            }
        }
        return run
    }

    /// The lines of a crash report worth reading: Swift's fatal error or runtime failure, and the first
    /// frames in Avocet's sources ("function (MediaEngine/MP4/MP4Boxes.swift:28:34)").
    static func crashSummary(_ stderr: String) -> String {
        let lines = stderr.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var summary = lines.filter { $0.contains("Fatal error") || $0.contains("runtime failure") }.prefix(1)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "* ")) }
        for line in lines where line.contains("/Sources/") && summary.count < 3 {
            guard let sources = line.range(of: "/Sources/", options: .backwards) else { continue }
            let words = line[..<sources.lowerBound].split(separator: " ")
            guard let address = words.firstIndex(where: { $0.hasPrefix("0x") }) else { continue }
            let function = words[(address + 1)...].prefix { $0 != "+" }.joined(separator: " ")
            summary.append("\(function) (\(line[sources.upperBound...]))")
        }
        return summary.joined(separator: " | ")
    }

    /// The verdict of one file run alone (with a backtrace if it crashes).
    static func single(_ path: String) -> Verdict {
        let run = run([path], timeout: singleTimeout, backtrace: true)
        if run.timedOut { return .timeout(singleTimeout) }
        if let signal = run.signal { return .signal(signal, crashSummary(run.stderr)) }
        if let verdict = run.verdicts[path] {
            return run.exitStatus == 0 ? verdict : .noVerdict("printed \(verdict) then exited with status \(run.exitStatus)")
        }
        return .noVerdict("exit status \(run.exitStatus), stderr: \(run.stderr.suffix(300))")
    }

    /// The verdicts of a batch: one child for the batch; if it dies or hangs, the files it did not answer
    /// for (and the last one it did, whose background work may have been the culprit) run one per child.
    static func batch(_ paths: [String]) -> (verdicts: [String: Verdict], note: String?) {
        let run = run(paths, timeout: batchTimeout, backtrace: false)
        var verdicts = run.verdicts
        guard run.timedOut || run.signal != nil || run.exitStatus != 0 || verdicts.count < paths.count else { return (verdicts, nil) }
        var rerun = paths.filter { verdicts[$0] == nil }
        if let last = paths.last(where: { verdicts[$0] != nil }) { rerun.append(last) }
        for path in rerun { verdicts[path] = single(path) }
        let how = run.timedOut ? "timed out" : run.signal.map { "died from signal \($0)" } ?? "exited with status \(run.exitStatus)"
        let culprits = rerun.filter { verdicts[$0]?.passed == false }
        let note = culprits.isEmpty
            ? "a batch of \(paths.count) \(how), but each of its unanswered files passes alone: \(rerun.map { ($0 as NSString).lastPathComponent })"
            : nil
        return (verdicts, note)
    }

    /// Every path's verdict: batches of `batchSize`, two children at a time, on threads of their own
    /// (never on Swift's cooperative pool, which the children's waits would block).
    static func verdicts(_ paths: [String]) async -> (verdicts: [String: Verdict], notes: [String]) {
        let batches = stride(from: 0, to: paths.count, by: batchSize).map { Array(paths[$0..<min($0 + batchSize, paths.count)]) }
        let results = Results()
        await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                DispatchQueue.concurrentPerform(iterations: 2) { _ in
                    while true {
                        let index = results.state.withLock { state -> Int in
                            defer { state.next += 1 }
                            return state.next
                        }
                        guard index < batches.count else { return }
                        let (verdicts, note) = batch(batches[index])
                        results.state.withLock { state in
                            state.verdicts.merge(verdicts) { first, _ in first }
                            if let note { state.notes.append(note) }
                        }
                    }
                }
                continuation.resume()
            }
        }
        return results.state.withLock { ($0.verdicts, $0.notes) }
    }

    /// What the runner threads share: the next batch to run, and the verdicts so far.
    final class Results: Sendable {
        let state = Locked<(next: Int, verdicts: [String: Verdict], notes: [String])>((0, [:], []))
    }
}

@Suite("Mutated media never crashes or hangs the public API", .serialized)
struct MutationTests {
    /// The committed crashers: every file in Fixtures/mutants/ but its README.
    static let committed: [String] = {
        let folder = Fixtures.directory.appendingPathComponent("mutants")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix("README") && !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0).path }
    }()

    /// The failures among `verdicts`, one line each, named by file.
    static func failures(_ verdicts: [String: Verdict], names: [String: String]) -> [String] {
        verdicts.filter { !$0.value.passed }
            .map { "\(names[$0.key] ?? ($0.key as NSString).lastPathComponent): \($0.value)" }
            .sorted()
    }

    @Test("Every mutant of every media fixture ends with a value or an AVError that is not .unknown",
          .timeLimit(.minutes(10)))
    func mutants() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: ProbeRunner.executable.path),
                "avocet-probe not found beside the test bundle: \(ProbeRunner.executable.path)")
        let started = ContinuousClock.now
        let directory = try Fixtures.temporaryDirectory()
        // Thousands of mutated bytes written to disk: on a thread of its own, not the cooperative pool.
        let (media, paths, names, controls) = try await onOwnThread { () throws -> ([(name: String, bytes: [UInt8])], [String], [String: String], [String]) in
            let media = try Fixtures.media.map { (name: $0.name, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: $0.path)))) }
            let budget = MutantBudget.forSuite(fixtures: media.count)
            var paths: [String] = [], names: [String: String] = [:], controls: [String] = []
            for fixture in media {
                // The fixture itself, unmutated: the probe must say ok.
                controls.append(Fixtures.path(fixture.name))
                let written = try Mutants.write(fixture: fixture.name, bytes: fixture.bytes, others: media,
                                                budget: budget, to: directory)
                for mutant in written {
                    paths.append(mutant.path)
                    names[mutant.path] = mutant.name
                }
            }
            return (media, paths, names, controls)
        }
        let generated = ContinuousClock.now
        // Interleave the fixtures so each batch mixes formats and sizes.
        let order = paths.sorted { (stableHash(names[$0] ?? $0), $0) < (stableHash(names[$1] ?? $1), $1) }
        let (verdicts, notes) = await ProbeRunner.verdicts(controls + order)
        let elapsed = ContinuousClock.now - started
        print("MutationTests: \(paths.count) mutants of \(media.count) fixtures (+\(controls.count) controls), "
              + "generated in \(generated - started), probed in \(ContinuousClock.now - generated), \(elapsed) in all")

        for control in controls {
            #expect(verdicts[control] == .ok, "the unmutated fixture \(control): \(verdicts[control]?.description ?? "no verdict")")
        }
        #expect(verdicts.count == controls.count + paths.count, "every file has a verdict")
        let failing = verdicts.filter { !controls.contains($0.key) && !$0.value.passed }
        let failures = Self.failures(failing, names: names)
        #expect(failures.isEmpty, """
            \(failures.count) of \(paths.count) mutants crashed, hung or threw something other than an AVError \
            (they are kept in \(directory.path); copy those under 200 KB to Fixtures/mutants/):
            \(failures.joined(separator: "\n"))
            """)
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
        // Keep only what failed, to copy from.
        for path in paths where failing[path] == nil { try? FileManager.default.removeItem(atPath: path) }
        if failing.isEmpty && notes.isEmpty { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("Every committed crasher in Fixtures/mutants ends with a value or an AVError that is not .unknown")
    func committedCrashers() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: ProbeRunner.executable.path),
                "avocet-probe not found beside the test bundle: \(ProbeRunner.executable.path)")
        guard !Self.committed.isEmpty else { return }
        let (verdicts, notes) = await ProbeRunner.verdicts(Self.committed)
        #expect(verdicts.count == Self.committed.count, "every file has a verdict")
        let failures = Self.failures(verdicts, names: [:])
        #expect(failures.isEmpty, "\(failures.count) of \(Self.committed.count) committed crashers still fail:\n\(failures.joined(separator: "\n"))")
        #expect(notes.isEmpty, "\(notes.joined(separator: "\n"))")
    }
}
