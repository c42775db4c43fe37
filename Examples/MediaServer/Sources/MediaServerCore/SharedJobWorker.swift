import Foundation
import Logging
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Runs the shared queue's export jobs on this instance: claims queued work while it has a free
/// slot (`maxConcurrentExports`), runs each job's export, keeps its lease alive, and writes how it
/// ended. A ServiceLifecycle service, run beside the server by the application.
///
/// Where it runs: one loop task that wakes on a job submitted here, a job ending here, or every
/// `jobPollInterval`; one task per running job that only awaits (Avocet exports on its engine
/// threads) and one heartbeat task per job that renews the lease every third of it (at most every
/// 2 s), cancels the export when a client asked, and stops it when the lease was lost.
///
/// Outputs are written under a temporary name, `.<id>.<lease token>.partial.<ext>`, in the export
/// directory, and renamed to `<id>.<ext>` inside the transaction that marks the job completed, under
/// the lease: a retried job never leaves a half-written file under the output's name, and a stale
/// instance (its lease lost) never publishes one. Partial files of instances that died are removed
/// when their job is taken again, and by the housekeeping (every lease duration, at most a minute:
/// it also removes outputs whose job is gone, left by a removal that stopped half-way),
/// which also fails jobs out of attempts, removes finished jobs past `jobRetention` with their
/// outputs, and removes uploads older than `uploadLifetime` from the shared upload directory.
///
/// With `maxConcurrentExports` 0 the instance runs no jobs: it takes requests and answers for the
/// queue, and others do the work.
///
/// On a graceful shutdown (SIGTERM) its running exports are cancelled and their jobs put back in the
/// queue without counting the attempt; after `kill -9` their leases run out and another instance
/// takes them.
final class SharedJobWorker: Service, Sendable {
    private struct Running {
        /// Claims held: one per job between its claim and the end of `execute`.
        var slots = 0
        /// The exports started, by lease token (one instance may hold two claims on one job: its
        /// lease ran out while the database was away and it claimed the job again), to cancel at shutdown.
        var jobs: [UUID: ExportJob] = [:]
        var shuttingDown = false
    }

    let queue: PostgresJobQueue
    let service: MediaService
    let wakeup: JobWakeup
    let logger: Logger
    private let running = Mutex(Running())

    init(queue: PostgresJobQueue, service: MediaService, wakeup: JobWakeup, logger: Logger) {
        self.queue = queue
        self.service = service
        self.wakeup = wakeup
        self.logger = logger
    }

    private var configuration: ServerConfiguration { service.configuration }

    /// Seconds between two renewals of a running job's lease.
    private var renewInterval: Double { min(queue.leaseSeconds / 3, 2) }

    func run() async throws {
        // The schema first (the server's start migrates too; the second finds nothing to do): the
        // loop below may run before the server has started.
        try await queue.migrate()
        let poll = Duration.milliseconds(Int64(ExportJob.boundedSeconds(max(configuration.jobPollInterval, 0.01)) * 1000))
        let ticker = Task { [wakeup] in
            while !Task.isCancelled {
                try? await Task.sleep(for: poll)
                wakeup.wake()
            }
        }
        defer { ticker.cancel() }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                var nextHousekeeping = ContinuousClock.now
                for await _ in wakeup.stream {
                    if running.withLock({ $0.shuttingDown }) { break }
                    if ContinuousClock.now >= nextHousekeeping {
                        await housekeeping()
                        nextHousekeeping = ContinuousClock.now + .milliseconds(Int64(min(max(queue.leaseSeconds, 1), 60) * 1000))
                    }
                    while running.withLock({ !$0.shuttingDown && $0.slots < configuration.maxConcurrentExports }) {
                        let claim: PostgresJobQueue.Claim?
                        do {
                            claim = try await queue.claim(owner: configuration.instanceName)
                        } catch {
                            if !Task.isCancelled && !running.withLock({ $0.shuttingDown }) {
                                logger.warning("could not look for queued jobs: \(String(reflecting: error))")
                            }
                            break
                        }
                        guard let claim else { break }
                        // The slot is taken before the task starts, so the loop never claims past the limit.
                        service.metrics.set(slotsInUse: running.withLock { $0.slots += 1; return $0.slots })
                        group.addTask {
                            await self.execute(claim)
                            let slots = self.running.withLock {
                                $0.slots -= 1
                                $0.jobs[claim.token] = nil
                                return $0.slots
                            }
                            self.service.metrics.set(slotsInUse: slots)
                            self.wakeup.wake()
                        }
                    }
                }
                stopAll()
            }
        } onGracefulShutdown: {
            self.stopAll()
            self.wakeup.wake()
        }
    }

    /// Marks the worker as shutting down and cancels every export it runs (their jobs go back to the queue).
    private func stopAll() {
        let jobs = running.withLock { state -> [ExportJob] in
            state.shuttingDown = true
            return Array(state.jobs.values)
        }
        for job in jobs { job.cancel() }
    }

    /// What stops a job of this instance besides its own end, as the heartbeat finds it, and the job
    /// once it exists (the heartbeat runs from the claim on: loading the source may take a while).
    private struct Interruption {
        var cancelRequested = false
        var leaseLost = false
        var job: ExportJob?
        var progress: Double { job?.report.progress ?? 0 }
    }

    private func execute(_ claim: PostgresJobQueue.Claim) async {
        let directory = service.exportDirectory
        let name = claim.id.uuidString.lowercased()
        let partial = directory.appendingPathComponent(".\(name).\(claim.token.uuidString.lowercased()).partial.\(claim.fileType)").path
        let output = directory.appendingPathComponent("\(name).\(claim.fileType)").path
        var log = logger
        log[metadataKey: "job"] = "\(name)"
        log[metadataKey: "attempt"] = "\(claim.attempt)"

        let interruption = Mutex(Interruption())
        let heartbeat = Task { [queue, renewInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int64(renewInterval * 1000)))
                if Task.isCancelled { return }
                do {
                    switch try await queue.renew(claim, progress: interruption.withLock { $0.progress }) {
                    case .held(let cancelRequested):
                        if cancelRequested {
                            interruption.withLock { $0.cancelRequested = true; return $0.job }?.cancel()
                        }
                    case .lost:
                        log.warning("the job's lease was lost (another instance took it); its work stops")
                        interruption.withLock { $0.leaseLost = true; return $0.job }?.cancel()
                        return
                    }
                } catch {
                    // The database is away: the work goes on, and renewing is tried again. Were the
                    // lease to run out meanwhile, the job's outcome could no longer be written.
                    log.warning("could not renew the job's lease: \(String(reflecting: error))")
                }
            }
        }
        defer { heartbeat.cancel() }

        let job: ExportJob
        do {
            job = try await service.job(id: name, kind: claim.kind, requestJSON: claim.request, outputPath: partial)
        } catch {
            if interruption.withLock({ $0.leaseLost }) { return }
            if running.withLock({ $0.shuttingDown }) {
                await release(claim, log: log)
                return
            }
            let message = (error as? APIError)?.message ?? "The job could not start: \(error)"
            log.info("job failed before it started: \(message)")
            await record(claim, .failed(message), partial: nil, output: output, log: log)
            await service.uploads.unpin(claim.id)
            return
        }
        let shuttingDown = running.withLock { state -> Bool in
            state.jobs[claim.token] = job
            return state.shuttingDown
        }
        let interrupted = interruption.withLock { state -> Bool in
            state.job = job
            return state.cancelRequested || state.leaseLost
        }
        if shuttingDown || interrupted { job.cancel() }

        if claim.attempt > 1 { await removePartials(of: claim) }
        log.info("job started")
        let started = ContinuousClock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            job.start { done.resume() }
        }
        heartbeat.cancel()
        service.metrics.exportEnded(outcome: job.status.rawValue, duration: ContinuousClock.now - started)

        let report = job.report
        let why = interruption.withLock { ($0.leaseLost, $0.cancelRequested) }
        if why.0 {
            await remove(partial)
            return
        }
        if report.status == .cancelled, !why.1, running.withLock({ $0.shuttingDown }) {
            await release(claim, log: log)
            await remove(partial)
            return
        }
        let outcome: PostgresJobQueue.Outcome = switch report.status {
        case .completed: .completed(outputBytes: report.outputBytes)
        case .cancelled: .cancelled
        default: .failed(report.error ?? "The job failed.")
        }
        await record(claim, outcome, partial: partial, output: output, log: log)
        await service.uploads.unpin(claim.id)
    }

    /// Puts a job this stopping instance was running back in the queue (or ends it as cancelled when
    /// a client had asked).
    private func release(_ claim: PostgresJobQueue.Claim, log: Logger) async {
        do {
            try await queue.release(claim)
            log.info("job put back in the queue: this instance is stopping")
        } catch {
            log.warning("could not put the job back in the queue (its lease will run out): \(String(reflecting: error))")
        }
    }

    /// Writes the outcome under the claim's lease, moving a completed output into place in the same
    /// transaction; tries again while the database is away, for as long as the lease would last.
    /// Removes the partial file unless it became the output.
    private func record(_ claim: PostgresJobQueue.Claim, _ outcome: PostgresJobQueue.Outcome, partial: String?, output: String,
                        log: Logger) async {
        var published = false
        let deadline = ContinuousClock.now + .milliseconds(Int64(queue.leaseSeconds * 1000))
        while true {
            do {
                let moved = Mutex(false)
                let held = try await queue.finish(claim, outcome) {
                    guard case .completed = outcome, let partial else { return }
                    try await Self.rename(partial, to: output)
                    moved.withLock { $0 = true }
                }
                published = moved.withLock { $0 }
                log.info(held ? "job ended: \(outcome.name)" : "job ended after its lease was lost; nothing written")
                break
            } catch {
                log.warning("could not record the job's end: \(String(reflecting: error))")
                guard ContinuousClock.now < deadline, !Task.isCancelled else { break }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        if !published, let partial { await remove(partial) }
    }

    /// Renames on NIO's thread pool (a shared file system may block). A rename an earlier try made
    /// (its transaction then failed to commit) counts as done.
    private static func rename(_ from: String, to: String) async throws {
        try await NIOThreadPool.singleton.runIfActive {
            // A directory (HLS) left by an attempt whose commit then failed: rename(2) replaces only
            // an empty one. Under the lease, nothing else writes there.
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: from), FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory),
               isDirectory.boolValue {
                try FileManager.default.removeItem(atPath: to)
            }
            // The bytes reach the disk before the output gets its name (and the job its completion).
            if FileManager.default.fileExists(atPath: from) { try flush(from) }
            guard Foundation.rename(from, to) == 0 else {
                let code = errno
                if code == ENOENT, !FileManager.default.fileExists(atPath: from), FileManager.default.fileExists(atPath: to) { return }
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: to, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
            }
        }
    }

    /// `fsync` of a file, or of every file under a directory and the directory itself. Blocking: on
    /// NIO's thread pool.
    private static func flush(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        if isDirectory.boolValue {
            // Every entry below, files and folders, once each (the enumerator walks the whole tree).
            for case let name as String in FileManager.default.enumerator(atPath: path)?.allObjects ?? [] {
                try sync(path + "/" + name)
            }
        }
        try sync(path)
    }

    private static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Removes what earlier attempts of a job taken again left (their instances stopped mid-export).
    private func removePartials(of claim: PostgresJobQueue.Claim) async {
        let directory = service.exportDirectory
        let prefix = ".\(claim.id.uuidString.lowercased())."
        let own = ".\(claim.token.uuidString.lowercased()).partial."
        let names = (try? await NIOThreadPool.singleton.runIfActive { try FileManager.default.contentsOfDirectory(atPath: directory.path) }) ?? []
        for name in names where name.hasPrefix(prefix) && name.contains(".partial.") && !name.contains(own) {
            await remove(directory.appendingPathComponent(name).path)
        }
    }

    private func remove(_ path: String) async {
        _ = try? await NIOThreadPool.singleton.runIfActive { try FileManager.default.removeItem(atPath: path) }
    }

    /// Fails jobs out of attempts, removes finished jobs past the retention with their outputs,
    /// partial outputs no running job writes, and uploads past their lifetime in the shared upload
    /// directory. Errors are logged: the next round tries again.
    private func housekeeping() async {
        do {
            let uploads = service.uploads
            let expired = try await NIOThreadPool.singleton.runIfActive { try uploads.removeExpiredFiles() }
            if expired > 0 { logger.info("\(expired) upload(s) past their lifetime were removed") }
            // Pins of jobs that have ended elsewhere (cancelled while queued, or whose instance
            // stopped after the job ended).
            let pinned = try await NIOThreadPool.singleton.runIfActive { try uploads.pinnedJobs() }
            if !pinned.isEmpty {
                for job in try await queue.ended(pinned) { await uploads.unpin(job) }
            }
        } catch {
            logger.warning("could not remove expired uploads: \(String(reflecting: error))")
        }
        do {
            let reaped = try await queue.reap()
            if reaped > 0 { logger.info("\(reaped) job(s) whose instance stopped were ended (retry limit or cancelled)") }
            let directory = service.exportDirectory
            for (id, fileType) in try await queue.expire(olderThan: configuration.jobRetention) {
                await remove(directory.appendingPathComponent("\(id.uuidString.lowercased()).\(fileType)").path)
                await service.uploads.unpin(id)
            }
            // The listing comes first: a partial file seen in it was made after its claim, so a live
            // job's token is among those read next; an output seen in it belongs to a row that exists
            // (rows are removed before their outputs), unless a removal stopped half-way.
            let names = (try? await NIOThreadPool.singleton.runIfActive { try FileManager.default.contentsOfDirectory(atPath: directory.path) }) ?? []
            var partials: [(String, UUID)] = []
            var outputs: [(String, UUID)] = []
            for name in names {
                let parts = name.split(separator: ".")
                if name.hasPrefix("."), parts.count == 4, parts[2] == "partial", let token = UUID(uuidString: String(parts[1])) {
                    partials.append((name, token))
                } else if !name.hasPrefix("."), parts.count == 2, let id = UUID(uuidString: String(parts[0])) {
                    outputs.append((name, id))
                }
            }
            if !partials.isEmpty {
                let live = try await queue.liveTokens()
                for (name, token) in partials where !live.contains(token) {
                    await remove(directory.appendingPathComponent(name).path)
                }
            }
            if !outputs.isEmpty {
                let jobs = try await queue.existing(outputs.map(\.1))
                for (name, id) in outputs where !jobs.contains(id) {
                    await remove(directory.appendingPathComponent(name).path)
                }
            }
        } catch {
            logger.warning("housekeeping of the job queue failed: \(String(reflecting: error))")
        }
    }
}

extension PostgresJobQueue.Outcome {
    var name: String {
        switch self {
        case .completed: "completed"
        case .failed: "failed"
        case .cancelled: "cancelled"
        }
    }
}

/// Wakes the shared worker's loop: a job submitted on this instance, a job ending, a tick. At most
/// one wake is kept waiting (more would only repeat the same look).
struct JobWakeup: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func wake() { continuation.yield() }
}
