import AVFoundation
import Foundation
import Synchronization

/// One background export: an `AVAssetExportSession` writing a file into the export directory, and
/// what `GET /jobs/{id}` reports of it.
///
/// The export runs in a task of its own (Avocet does the work on its engine threads; the task only
/// awaits); a second task follows the session's `states(updateInterval:)` to tell waiting from
/// exporting. `cancel()` stops the export (Avocet removes the partial file). The status sits behind a
/// `Mutex`; `progress` is the session's.
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
        public var preset: String
        public var fileType: String
        /// Bytes of the output, once completed.
        public var outputBytes: Int64?
        /// With a database: how many times the job has been started (an instance that stopped while
        /// running it leaves it to another, which counts one more). Nil, and left out, without one.
        public var attempts: Int? = nil

        enum CodingKeys: String, CodingKey { case id, status, progress, error, preset, fileType, outputBytes, attempts }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(status, forKey: .status)
            try c.encode(progress, forKey: .progress)
            try c.encode(error, forKey: .error)
            try c.encode(preset, forKey: .preset)
            try c.encode(fileType, forKey: .fileType)
            try c.encodeIfPresent(outputBytes, forKey: .outputBytes)
            try c.encodeIfPresent(attempts, forKey: .attempts)
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
    let request: ExportRequest
    let source: MediaSource
    let outputPath: String
    /// Seconds the export may run before it is stopped and marked failed; nil: no limit.
    let timeLimit: TimeInterval?
    private let session: AVAssetExportSession
    private let state = Mutex(State())

    init(id: String, request: ExportRequest, source: MediaSource, session: AVAssetExportSession, outputPath: String,
         timeLimit: TimeInterval? = nil) {
        self.id = id
        self.request = request
        self.source = source
        self.session = session
        self.outputPath = outputPath
        self.timeLimit = timeLimit
    }

    var status: Status { state.withLock { $0.status } }
    var finishedAt: Date? { state.withLock { $0.finishedAt } }

    var report: Report {
        let (status, error, bytes) = state.withLock { ($0.status, $0.error, $0.outputBytes) }
        let progress = status == .completed ? 1 : Double(min(max(session.progress, 0), 1))
        return Report(id: id, status: status, progress: progress, error: error, preset: request.preset,
                      fileType: request.fileExtension, outputBytes: bytes)
    }

    /// Starts the export; `onFinish` runs once it has ended, whatever the outcome.
    func start(onFinish: @escaping @Sendable () -> Void) {
        let session = self.session
        let url = URL(fileURLWithPath: outputPath)
        let fileType = request.fileType
        let work = Task { [self] in
            let follower = Task { [self] in
                for await state in session.states(updateInterval: 0.1) {
                    if case .exporting = state { mark(.exporting) }
                }
            }
            let timer = timeLimit.map { limit in
                Task { [self] in
                    try await Task.sleep(for: .milliseconds(Int64(Self.boundedSeconds(limit) * 1000)))
                    state.withLock { $0.timedOut = true }
                    session.cancelExport()
                }
            }
            defer { timer?.cancel() }
            do {
                try await session.export(to: url, as: fileType)
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
                finish(.completed, error: nil, outputBytes: size)
            } catch _ where state.withLock({ $0.timedOut }) {
                let limit = Int(Self.boundedSeconds(timeLimit ?? 0).rounded())
                finish(.failed, error: "The export of \(source.displayName) took longer than \(limit) s, the most this server allows for a remote source.",
                       outputBytes: nil)
            } catch is CancellationError {
                finish(.cancelled, error: "The export was cancelled.", outputBytes: nil)
            } catch {
                let message = MediaFailure.apiError(error, source: source).message
                finish(.failed, error: message, outputBytes: nil)
            }
            follower.cancel()
            onFinish()
        }
        let cancelled = state.withLock { state -> Bool in
            state.work = work
            return state.cancelRequested
        }
        if cancelled { cancel() }
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
        session.cancelExport()
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
