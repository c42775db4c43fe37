import Foundation
import NIOFileSystem
import Synchronization

/// The export jobs by id, and the limit on how many run at once.
///
/// A `POST /export` first reserves a slot (`reserve()`, refused with 429 when every slot is taken: jobs
/// are not queued), then checks its source and preset, then either starts its job in the slot or gives
/// the slot back. A job's slot is freed when it ends. Finished jobs are kept, with their output files,
/// up to `maxFinished`; past that the oldest finished job and its file are removed. All state sits
/// behind one `Mutex`; file removal runs on NIO's thread pool.
final class ExportJobStore: Sendable {
    private struct State {
        var jobs: [String: ExportJob] = [:]
        /// Slots taken: reserved for a request being checked, or held by a running job.
        var slotsTaken = 0
        /// Finished jobs' ids, oldest first.
        var finished: [String] = []
    }

    /// A slot held by a request between `reserve()` and `start(_:)`; given back if never used.
    final class Reservation: Sendable {
        fileprivate let store: ExportJobStore
        private let used = Mutex(false)

        fileprivate init(store: ExportJobStore) { self.store = store }

        /// Marks the slot as passed to a job; false when it was already used or given back.
        fileprivate func take() -> Bool {
            used.withLock { used in
                defer { used = true }
                return !used
            }
        }

        /// Gives the slot back unless a job took it.
        func release() {
            if take() { store.freeSlot() }
        }

        deinit { release() }
    }

    let directory: URL
    private let maxRunning: Int
    private let maxFinished: Int
    private let state = Mutex(State())

    init(directory: URL, maxRunning: Int, maxFinished: Int) {
        self.directory = directory
        self.maxRunning = max(0, maxRunning)
        self.maxFinished = max(1, maxFinished)
    }

    /// Creates the export directory and removes outputs an earlier run left (only files named as job
    /// outputs, `<uuid>.<extension>`, are touched: jobs are in memory, so those can no longer be
    /// fetched). Blocking file-system calls: run once, at start.
    func prepare() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let extensions = Set(ExportRequest.fileTypes.map(\.name) + ["hls"])
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let url = directory.appendingPathComponent(name)
            if extensions.contains(url.pathExtension), UUID(uuidString: url.deletingPathExtension().lastPathComponent) != nil {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }

    /// Takes a slot for a new job, or throws 429 when `maxRunning` jobs run (or are being checked) already.
    func reserve() throws -> Reservation {
        let granted = state.withLock { state -> Bool in
            guard state.slotsTaken < maxRunning else { return false }
            state.slotsTaken += 1
            return true
        }
        guard granted else {
            throw APIError(.tooManyRequests, "\(maxRunning) export jobs are running already, the most this server runs at once; try again when one has finished.",
                           headers: [.retryAfter: "5"])
        }
        return Reservation(store: self)
    }

    /// The path a new job writes to.
    func outputPath(id: String, fileExtension: String) -> String {
        directory.appendingPathComponent("\(id).\(fileExtension)").path
    }

    /// Registers `job` and starts it in the reserved slot; `ended` runs when it has ended.
    func start(_ job: ExportJob, in reservation: Reservation, ended: @escaping @Sendable () -> Void = {}) {
        guard reservation.take() else { return }
        state.withLock { $0.jobs[job.id] = job }
        job.start { [weak self] in
            self?.jobEnded(job.id)
            ended()
        }
    }

    func job(id: String) -> ExportJob? {
        state.withLock { $0.jobs[id.lowercased()] }
    }

    /// Forgets a finished job and removes its output file; false when there is no such finished job.
    func remove(id: String) async -> Bool {
        let removed = state.withLock { state -> ExportJob? in
            guard let job = state.jobs[id.lowercased()], job.status.isFinished else { return nil }
            state.jobs[job.id] = nil
            state.finished.removeAll { $0 == job.id }
            return job
        }
        guard let removed else { return false }
        _ = try? await FileSystem.shared.removeItem(at: FilePath(removed.finalPath))
        return true
    }

    /// How many jobs hold or reserve a slot (for tests, logs and metrics).
    var slotsTaken: Int { state.withLock { $0.slotsTaken } }

    /// How many jobs are kept in each state (for metrics).
    func countsByStatus() -> [ExportJob.Status: Int] {
        let jobs = state.withLock { Array($0.jobs.values) }
        var counts: [ExportJob.Status: Int] = [:]
        for job in jobs { counts[job.status, default: 0] += 1 }
        return counts
    }

    /// Cancels every job still running (at shutdown).
    func cancelAll() {
        let running = state.withLock { $0.jobs.values.filter { !$0.status.isFinished } }
        for job in running { job.cancel() }
    }

    fileprivate func freeSlot() {
        state.withLock { $0.slotsTaken -= 1 }
    }

    private func jobEnded(_ id: String) {
        let evicted = state.withLock { state -> [ExportJob] in
            state.slotsTaken -= 1
            state.finished.append(id)
            var gone: [ExportJob] = []
            while state.finished.count > maxFinished {
                let oldest = state.finished.removeFirst()
                if let job = state.jobs.removeValue(forKey: oldest) { gone.append(job) }
            }
            return gone
        }
        guard !evicted.isEmpty else { return }
        Task {
            for job in evicted { _ = try? await FileSystem.shared.removeItem(at: FilePath(job.finalPath)) }
        }
    }
}
