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

    package static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                            timeout: Double = 120) async throws -> Output {
        try await withThrowingHandOffContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, environment: environment, timeout: timeout) })
            }.start()
        }
    }

    /// The blocking form: kills the child after `timeout` seconds.
    package static func runBlocking(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                                    timeout: Double = 120) throws -> Output {
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
