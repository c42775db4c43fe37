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

    /// Runs one input on the calling thread (libFuzzer's, never a cooperative-pool thread).
    func run(_ bytes: Data) {
        switch self {
        case .open: OpenTarget.run(bytes)
        case .thumbnail: ThumbnailTarget.run(bytes)
        case .loader: LoaderTarget.run(bytes)
        case .reader: ReaderTarget.run(bytes)
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
    done.wait()
    guard let value = result.withLock({ $0 }) else { fatalError("the task ended without a value") }
    return value
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
