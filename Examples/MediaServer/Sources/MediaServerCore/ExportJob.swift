import AVFoundation
import Foundation
import NIOPosix
import Synchronization

/// One background job: its work (an export session writing a file, or an HLS packaging writing a
/// directory) into the export directory, and what `GET /jobs/{id}` reports of it.
///
/// The work runs in a task of its own (Avocet does it on its engine threads; the task only awaits).
/// `cancel()` stops it (Avocet removes an export's partial file). When `publishedPath` is set, a
/// completed output is renamed there (a directory appears whole, never half-written). The status
/// sits behind a `Mutex`; `progress` is the work's.
public final class ExportJob: Sendable {
    /// Where a job stands.
    public enum Status: String, Sendable, Encodable, CaseIterable {
        case waiting, exporting, completed, failed, cancelled

        var isFinished: Bool { self == .completed || self == .failed || self == .cancelled }
    }

    /// What `GET /jobs/{id}` answers.
    public struct Report: Encodable, Sendable {
        public var id: String
        public var status: Status
        public var progress: Double
        public var error: String?
        /// `export`, or `hls` for an HLS packaging.
        public var kind: String
        public var preset: String
        public var fileType: String
        /// Bytes of the output, once completed.
        public var outputBytes: Int64?
        /// With a database: how many times the job has been started (an instance that stopped while
        /// running it leaves it to another, which counts one more). Nil, and left out, without one.
        public var attempts: Int? = nil

        /// Where a completed HLS packaging's multivariant playlist is served; left out otherwise.
        var playlist: String? { kind == "hls" && status == .completed ? "/hls/\(id)/index.m3u8" : nil }

        enum CodingKeys: String, CodingKey { case id, kind, status, progress, error, preset, fileType, outputBytes, attempts, playlist }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(kind, forKey: .kind)
            try c.encode(status, forKey: .status)
            try c.encode(progress, forKey: .progress)
            try c.encode(error, forKey: .error)
            try c.encode(preset, forKey: .preset)
            try c.encode(fileType, forKey: .fileType)
            try c.encodeIfPresent(outputBytes, forKey: .outputBytes)
            try c.encodeIfPresent(attempts, forKey: .attempts)
            try c.encodeIfPresent(playlist, forKey: .playlist)
        }
    }

    private struct State {
        var status = Status.waiting
        var error: String?
        var outputBytes: Int64?
        var finishedAt: Date?
        var work: Task<Void, Never>?
        var cancelRequested = false
        /// Set when the time limit stopped the export.
        var timedOut = false
    }

    public let id: String
    /// `export` or `hls`.
    let kind: String
    let source: MediaSource
    let outputPath: String
    /// Where a completed output is renamed to; nil: it stays at `outputPath`.
    let publishedPath: String?
    /// Seconds the work may run before it is stopped and marked failed; nil: no limit.
    let timeLimit: TimeInterval?
    private let work: any JobWork
    private let state = Mutex(State())

    init(id: String, kind: String, source: MediaSource, work: any JobWork, outputPath: String, publishedPath: String? = nil,
         timeLimit: TimeInterval? = nil) {
        self.id = id
        self.kind = kind
        self.source = source
        self.work = work
        self.outputPath = outputPath
        self.publishedPath = publishedPath
        self.timeLimit = timeLimit
    }

    /// Where the output is once the job has completed.
    var finalPath: String { publishedPath ?? outputPath }

    var status: Status { state.withLock { $0.status } }
    var finishedAt: Date? { state.withLock { $0.finishedAt } }

    var report: Report {
        let (status, error, bytes) = state.withLock { ($0.status, $0.error, $0.outputBytes) }
        let progress = status == .completed ? 1 : work.progress
        return Report(id: id, status: status, progress: progress, error: error, kind: kind, preset: work.preset,
                      fileType: work.fileType, outputBytes: bytes)
    }

    /// Starts the work; `onFinish` runs once it has ended, whatever the outcome.
    func start(onFinish: @escaping @Sendable () -> Void) {
        let work = self.work
        let url = URL(fileURLWithPath: outputPath)
        let task = Task { [self] in
            mark(.exporting)
            let timer = timeLimit.map { limit in
                Task { [self] in
                    try await Task.sleep(for: .milliseconds(Int64(Self.boundedSeconds(limit) * 1000)))
                    state.withLock { $0.timedOut = true }
                    work.cancel()
                }
            }
            defer { timer?.cancel() }
            do {
                try await work.run(to: url)
                // File-system calls on NIO's thread pool (a shared file system may block).
                let (from, to, final) = (outputPath, publishedPath, finalPath)
                let bytes = try await NIOThreadPool.singleton.runIfActive { () -> Int64? in
                    if let to {
                        try? FileManager.default.removeItem(atPath: to)
                        try FileManager.default.moveItem(atPath: from, toPath: to)
                    }
                    return Self.bytes(at: final)
                }
                finish(.completed, error: nil, outputBytes: bytes)
            } catch _ where state.withLock({ $0.timedOut }) {
                let limit = Int(Self.boundedSeconds(timeLimit ?? 0).rounded())
                finish(.failed, error: "The \(kind == "hls" ? "packaging" : "export") of \(source.displayName) took longer than \(limit) s, the most this server allows for a remote source.",
                       outputBytes: nil)
            } catch is CancellationError {
                finish(.cancelled, error: "The \(kind == "hls" ? "packaging" : "export") was cancelled.", outputBytes: nil)
            } catch {
                let message = MediaFailure.apiError(error, source: source).message
                finish(.failed, error: message, outputBytes: nil)
            }
            onFinish()
        }
        let cancelled = state.withLock { state -> Bool in
            state.work = task
            return state.cancelRequested
        }
        if cancelled { cancel() }
    }

    /// The bytes of a file, or of every file under a directory; nil when nothing is there.
    static func bytes(at path: String) -> Int64? {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard isDirectory.boolValue else { return (try? fm.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value }
        var total: Int64 = 0
        for case let name as String in fm.enumerator(atPath: path)?.allObjects ?? [] {
            guard let attributes = try? fm.attributesOfItem(atPath: path + "/" + name),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let size = (attributes[.size] as? NSNumber)?.int64Value else { continue }
            total += size
        }
        return total
    }

    /// `seconds` between 0 and a week (a week for anything larger, infinite or NaN): a time limit
    /// that converts to whole units without overflow.
    static func boundedSeconds(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isFinite ? min(max(seconds, 0), 7 * 86_400) : 7 * 86_400
    }

    /// Asks the export to stop; it ends as `cancelled` soon after (unless it had already ended).
    func cancel() {
        let work = state.withLock { state -> Task<Void, Never>? in
            state.cancelRequested = true
            return state.work
        }
        self.work.cancel()
        work?.cancel()
    }

    /// Waits until the job has ended, or `seconds` have passed (polling its status: cheap, and
    /// nothing to clean up when the wait gives up).
    func waitUntilFinished(seconds: TimeInterval) async {
        let deadline = Date().addingTimeInterval(seconds)
        while !status.isFinished && Date() < deadline && !Task.isCancelled {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    private func mark(_ status: Status) {
        state.withLock { state in
            if !state.status.isFinished { state.status = status }
        }
    }

    private func finish(_ status: Status, error: String?, outputBytes: Int64?) {
        state.withLock { state in
            state.status = status
            state.error = error
            state.outputBytes = outputBytes
            state.finishedAt = Date()
        }
    }
}
