import AVFoundation
import Dispatch
import Foundation
import Locking

/// The fuzz targets (see main.swift).
enum FuzzTarget: String, CaseIterable {
    case open
    case thumbnail
    case loader
    case reader
    case audio
    case player
    case export

    /// Runs one input on the calling thread (libFuzzer's, never a cooperative-pool thread).
    func run(_ bytes: Data) {
        switch self {
        case .open: OpenTarget.run(bytes)
        case .thumbnail: ThumbnailTarget.run(bytes)
        case .loader: LoaderTarget.run(bytes)
        case .reader: ReaderTarget.run(bytes)
        case .audio: AudioTarget.run(bytes)
        case .player: PlayerTarget.run(bytes)
        case .export: ExportTarget.run(bytes)
        }
    }
}

/// What every target asks of a failure: an AVError that names a cause (not `.unknown`, which says
/// Avocet lost it), or a CancellationError when the input cancelled. Traps otherwise, naming `what`
/// failed.
func requireNamedFailure(_ error: any Error, cancelled: Bool, _ what: String) {
    if let error = error as? AVError, error.code != .unknown { return }
    if error is CancellationError, cancelled { return }
    fatalError("\(what) failed without an AVError that names a cause: \(String(reflecting: error))")
}

/// Runs `body` in a task and blocks the calling thread until it ends. The caller is libFuzzer's thread,
/// so the cooperative pool stays free for the task.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    waitOrReportHang(done, "the task")
    guard let value = result.withLock({ $0 }) else { fatalError("the task ended without a value") }
    return value
}

/// Waits for `done` at most 24 seconds, under libFuzzer's own 30-second limit (the slowest input seen
/// took 16 s under AddressSanitizer). On a timeout it prints every thread's stack (through gdb, when
/// the machine has it) to standard error, so the log of a hang says where the process waits, then
/// traps naming `what` it waited for.
func waitOrReportHang(_ done: DispatchSemaphore, _ what: String) {
    if done.wait(timeout: .now() + 24) == .success { return }
    FileHandle.standardError.write(Data("== hang: waited 24 s for \(what); every thread's stack follows\n".utf8))
    let gdb = Process()
    gdb.executableURL = URL(fileURLWithPath: "/usr/bin/gdb")
    gdb.arguments = ["-p", String(ProcessInfo.processInfo.processIdentifier), "-batch", "-nx",
                     "-ex", "set pagination off", "-ex", "thread apply all bt 40"]
    gdb.standardOutput = FileHandle.standardError
    gdb.standardError = FileHandle.standardError
    do {
        try gdb.run()
        gdb.waitUntilExit()
    } catch {
        FileHandle.standardError.write(Data("== no thread dump: \(error)\n".utf8))
    }
    fatalError("hang: \(what) did not end within 24 s")
}

/// Where a target writes its input to open it as a file: one file per process, under the temporary
/// directory.
enum Scratch {
    static let file: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("input")
    }()

    /// Writes `bytes` to the scratch file; a failure to write is the machine's, not the input's.
    static func write(_ bytes: Data) -> URL {
        do {
            try bytes.write(to: file)
        } catch {
            fatalError("cannot write the scratch file \(file.path): \(error)")
        }
        return file
    }
}

/// Reads an input front to back; past the end it gives zeros.
struct ByteReader {
    private let bytes: Data
    private var index: Data.Index

    init(_ bytes: Data) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var isAtEnd: Bool { index >= bytes.endIndex }

    mutating func byte() -> UInt8 {
        guard index < bytes.endIndex else { return 0 }
        defer { index = bytes.index(after: index) }
        return bytes[index]
    }

    mutating func uint16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    /// Everything not read yet.
    mutating func rest() -> Data {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }
}
