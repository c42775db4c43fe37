import Dispatch
import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program this package builds (avtool, avocet-probe, avocet-stress) in a child process, as a
/// user would, with a time limit; the async form waits on a thread of its own, never on Swift's
/// cooperative pool (two threads here), which a blocking wait would take from every other test.
package enum ChildProcess {
    package struct Output: Sendable {
        /// The exit status, or the signal's number when `signal` is set.
        package var status: Int32
        /// The signal that ended the child (a crash), unless it was killed for taking too long.
        package var signal: Int32?
        package var timedOut: Bool
        package var stdout: String
        package var stderr: String
    }

    /// A product built next to the test bundle (`swift build` puts them in the same folder).
    package static func builtProduct(_ name: String) -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            beside.appendingPathComponent(name),
            beside.deletingLastPathComponent().appendingPathComponent(name),
            Fixtures.directory.deletingLastPathComponent().appendingPathComponent(".build/debug/\(name)"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Kills the child after `timeout` seconds (by default 120 times `TestTiming.scale`: a bound for a
    /// hang, never reached by a child that works).
    package static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                            timeout: Double = 120 * TestTiming.scale) async throws -> Output {
        try await withThrowingHandOffContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, environment: environment, timeout: timeout) })
            }.start()
        }
    }

    /// The blocking form: kills the child after `timeout` seconds (by default 120 times `TestTiming.scale`).
    package static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                                    timeout: Double = 120 * TestTiming.scale) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        let stdout = Drain(out.fileHandleForReading), stderr = Drain(err.fileHandleForReading)
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        let signal = process.terminationReason == .uncaughtSignal && !timedOut ? process.terminationStatus : nil
        return Output(status: process.terminationStatus, signal: signal, timedOut: timedOut,
                      stdout: String(decoding: stdout.wait(), as: UTF8.self),
                      stderr: String(decoding: stderr.wait(), as: UTF8.self))
    }

    /// Runs `executable` in the background (a server a test talks to) while `body` runs, then kills it
    /// and waits until it has ended, whether `body` returned or threw. The kill is SIGKILL: a child
    /// started from one of the test process's threads inherits that thread's signal mask, in which
    /// Dispatch's and the cooperative pool's threads block SIGTERM, so `Process.terminate()` (SIGTERM)
    /// stays pending and the child outlives the test run.
    package static func whileRunning<T>(_ executable: URL, _ arguments: [String], in directory: URL? = nil,
                                        _ body: () async throws -> T) async throws -> T {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let pid = process.processIdentifier
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        kill(pid, SIGKILL)
        // Waited on a thread of its own; SIGKILL cannot be blocked, so this is short.
        let reaped = try await onOwnThread { ended.wait(timeout: .now() + 30) == .success }
        if !reaped { throw ChildError(message: "\(executable.lastPathComponent) (pid \(pid)) did not end after SIGKILL") }
        return try result.get()
    }

    package struct ChildError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// Collects a pipe's bytes on a thread of its own, so a child that fills one pipe while the parent
    /// reads the other never stalls.
    private final class Drain: @unchecked Sendable {
        // @unchecked Sendable: `data` is written once by the draining thread before `group` is left,
        // and read only after waiting on `group`.
        private var data = Data()
        private let group = DispatchGroup()

        init(_ handle: FileHandle) {
            group.enter()
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                group.leave()
            }
        }

        func wait() -> Data {
            group.wait()
            return data
        }
    }
}

/// Runs `body` on a thread of its own and waits for it without holding a thread of Swift's cooperative
/// pool (two here): for a test's long synchronous work (writing hundreds of files, say), which would
/// otherwise stall every other test's tasks while it runs.
package func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withThrowingHandOffContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
