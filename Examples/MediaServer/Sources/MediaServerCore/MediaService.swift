import AVFoundation
import CoreMedia
import Foundation
import Logging
import NIOCore
import NIOFileSystem
import NIOPosix

/// What the routes do, without HTTP: store and inspect uploads, make thumbnails, run exports.
///
/// Where a server's export jobs live.
enum JobBackend: Sendable {
    /// In this process: running jobs bounded by `maxConcurrentExports`, more refused.
    case memory(ExportJobStore)
    /// In PostgreSQL, shared by every instance: submitted jobs wait in the queue; the wakeup tells
    /// this instance's `SharedJobWorker` that one was added.
    case database(PostgresJobQueue, JobWakeup)
}

/// One instance per application, shared by all requests (`Sendable`: its parts guard themselves).
/// Its methods run on the request's task and only await: Avocet loads and decodes on its engine
/// threads, uploads are written and files removed on NIO's thread pool, and the one CPU-heavy call
/// Avocet makes synchronously (JPEG encoding) is sent to NIO's thread pool too.
public final class MediaService: Sendable {
    public let configuration: ServerConfiguration
    let uploads: UploadStore
    /// Where export jobs live: this process's memory, or a PostgreSQL queue shared by every instance.
    let backend: JobBackend
    let resolver: MediaSourceResolver
    let limiter: WorkLimiter
    let logger: Logger
    /// What `GET /metrics` reports.
    public let metrics = ServerMetrics()
    /// What every connection to a remote source must pass, redirect hops included.
    let urlPolicy: AvocetURLPolicy

    /// The JPEG quality of thumbnails, from 0 to 1.
    static let jpegQuality = 0.85

    /// The tolerance on each side of the time asked for a thumbnail, unless `exact` asks for none:
    /// a keyframe within it is taken (one seek, one decoded picture); with none there, Avocet decodes
    /// the exact picture (at most one group of pictures). Cheap for the usual case, never far off.
    static let thumbnailTolerance = CMTime(value: 1, timescale: 1)

    /// A service whose jobs live in this process's memory.
    public convenience init(configuration: ServerConfiguration) {
        self.init(configuration: configuration, queue: nil)
    }

    /// A service whose jobs live in `queue` when given (their uploads and outputs then in storage
    /// every instance shares), else in memory.
    init(configuration: ServerConfiguration, queue: PostgresJobQueue?, logger: Logger = Logger(label: "media-server")) {
        self.configuration = configuration
        self.logger = logger
        uploads = UploadStore(directory: configuration.uploadDirectory, maxBytes: configuration.maxUploadBytes,
                              maxStored: configuration.maxStoredUploads, lifetime: configuration.uploadLifetime,
                              shared: queue != nil)
        if let queue {
            backend = .database(queue, JobWakeup())
        } else {
            backend = .memory(ExportJobStore(directory: configuration.exportDirectory, maxRunning: configuration.maxConcurrentExports,
                                             maxFinished: configuration.maxFinishedExports))
        }
        resolver = MediaSourceResolver(uploads: uploads, configuration: configuration)
        limiter = WorkLimiter(limit: configuration.maxConcurrentMediaWork, maxQueued: configuration.maxQueuedMediaWork)
        urlPolicy = Self.urlPolicy(configuration)
    }

    /// The configuration's rules for remote sources as Avocet's URL policy: the address categories
    /// (public only, unless private networks are allowed) and the host list, at every hop, so a
    /// redirect can lead nowhere the first URL could not.
    static func urlPolicy(_ configuration: ServerConfiguration) -> AvocetURLPolicy {
        let reachable: Set<AvocetIPAddress.Category> = configuration.allowsPrivateNetworks
            ? [.publicInternet, .privateNetwork, .loopback, .sharedAddressSpace] : [.publicInternet]
        let addresses = AvocetURLPolicy.reaching(reachable)
        let hosts = Set(configuration.allowedRemoteHosts.map(MediaSourceResolver.normalizedHost))
        return AvocetURLPolicy(maximumRedirects: 5) { connection in
            if !hosts.isEmpty && !hosts.contains(MediaSourceResolver.normalizedHost(connection.host)) {
                return .refuse(rule: connection.isRedirect ? "a redirect leads to a host this server does not fetch from"
                                                           : "the host is not one this server fetches from")
            }
            return addresses.evaluate(connection)
        }
    }

    /// Creates the upload and export directories and clears uploads an earlier run left. Blocking
    /// file-system calls: called once before the server starts.
    public func prepare() throws {
        try uploads.prepare()
        switch backend {
        case .memory(let jobs): try jobs.prepare()
        case .database: try FileManager.default.createDirectory(at: configuration.exportDirectory, withIntermediateDirectories: true)
        }
    }

    // MARK: - Inspect

    /// Stores the upload streamed in `body`, then loads and reports its facts. The upload is kept
    /// (its id in the report) only when it is media Avocet reads; otherwise it is removed.
    func inspect<Body: AsyncSequence>(body: Body, declaredLength: Int64?) async throws -> AssetReport where Body.Element == ByteBuffer {
        let upload: UploadStore.Upload
        do {
            upload = try await uploads.receive(body, declaredLength: declaredLength)
        } catch UploadStore.Refusal.tooLarge(let limit) {
            throw APIError(.contentTooLarge, "The upload is larger than \(limit) bytes, the most this server accepts.", closesConnection: true)
        }
        let source = MediaSource(kind: .upload(id: upload.id), url: URL(fileURLWithPath: upload.path), displayName: "upload \(upload.id)")
        do {
            var report = try await mediaWork(on: source) { asset in try await AssetReport.load(asset) }
            report.uploadID = upload.id
            report.size = upload.size
            metrics.uploaded(bytes: upload.size)
            return report
        } catch {
            _ = await uploads.remove(id: upload.id)
            throw error
        }
    }

    // MARK: - Thumbnails

    /// A JPEG of the picture at the request's time, and the time of the picture shown.
    func thumbnail(_ request: ThumbnailRequest) async throws -> (jpeg: Data, actualTime: Double) {
        let source = try resolver.resolve(request.source)
        return try await mediaWork(on: source) { asset in
            let generator = AVAssetImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            if let width = request.maxWidth { generator.maximumSize = CGSize(width: width, height: 0) }
            let tolerance = request.exact ? CMTime.zero : Self.thumbnailTolerance
            generator.requestedTimeToleranceBefore = tolerance
            generator.requestedTimeToleranceAfter = tolerance
            let (image, actual) = try await generator.image(at: CMTime(seconds: request.time, preferredTimescale: 600))
            let jpeg = try await NIOThreadPool.singleton.runIfActive { try image.jpegData(compressionQuality: Self.jpegQuality) }
            return (jpeg, actual.seconds)
        }
    }

    // MARK: - Exports

    /// Checks an export request (its source must load, and suit the preset and file type) and starts
    /// its job: in the background here (429 when the concurrent-export limit is reached), or, with a
    /// database, queued for the first instance with a free slot. The job's id.
    func startExport(json: Data) async throws -> String {
        let request = try ExportRequest(json: json)
        let source = try resolver.resolve(request.source)
        switch backend {
        case .memory(let jobs):
            let reservation = try jobs.reserve()
            defer { reservation.release() }
            let session = try await exportSession(request, source: source)
            let id = UUID().uuidString.lowercased()
            let job = ExportJob(id: id, kind: "export", source: source, work: ExportWork(session: session, request: request),
                                outputPath: jobs.outputPath(id: id, fileExtension: request.fileExtension),
                                timeLimit: timeLimit(for: source))
            start(job, in: jobs, reservation)
            return id
        case .database(let queue, let wakeup):
            _ = try await exportSession(request, source: source)
            return try await enqueue(queue, wakeup, kind: "export", json: json, preset: request.preset, fileType: request.fileExtension,
                                     source: source)
        }
    }

    /// The export session for a checked request: loads the source (within the media-work limit and
    /// deadline) and checks that the range starts inside it and that the preset writes the file type
    /// from it. 400 when it does not.
    func exportSession(_ request: ExportRequest, source: MediaSource, limited: Bool = true) async throws -> AVAssetExportSession {
        let asset = makeAsset(source)
        let duration = try await mediaWork(on: source, asset: asset, limited: limited) { asset -> Double in
            let (duration, _) = try await asset.load(.duration, .tracks)
            return duration.seconds
        }
        if let from = request.from, duration.isFinite, from >= duration {
            throw APIError.badRequest("from (\(from) s) is not before the end of the source (\(duration) s).")
        }
        guard await AVAssetExportSession.compatibility(ofExportPreset: request.preset, with: asset, outputFileType: request.fileType),
              let session = AVAssetExportSession(asset: asset, presetName: request.preset) else {
            throw APIError.badRequest("The preset \(request.preset) cannot export \(source.displayName) as \(request.fileExtension) (an audio-only preset for a source without audio, say, or a file type the preset does not write).")
        }
        session.timeRange = request.timeRange
        return session
    }

    /// Queues a checked job in the shared queue; its id. An upload it reads is pinned for it first (a
    /// hard link, `<job id>.pin`, in the upload directory), so that the upload's expiry cannot take it
    /// from a job still waiting; the pin goes when the job ends.
    private func enqueue(_ queue: PostgresJobQueue, _ wakeup: JobWakeup, kind: String, json: Data, preset: String, fileType: String,
                         source: MediaSource) async throws -> String {
        let id = UUID()
        if case .upload = source.kind { await uploads.pin(source.url.path, for: id) }
        do {
            try await queue.submit(id: id, kind: kind, request: String(decoding: json, as: UTF8.self), preset: preset, fileType: fileType)
        } catch {
            await uploads.unpin(id)
            throw databaseUnavailable(error)
        }
        wakeup.wake()
        return id.uuidString.lowercased()
    }

    /// A queued job's source: its pinned upload when it has one, else the request's source resolved now.
    private func source(_ value: String, job: UUID?) async throws -> MediaSource {
        if let job, let id = UUID(uuidString: value).map({ $0.uuidString.lowercased() }), let pin = await uploads.pinned(for: job) {
            return MediaSource(kind: .upload(id: id), url: URL(fileURLWithPath: pin), displayName: "upload \(id)")
        }
        return try resolver.resolve(value)
    }

    /// Starts a job in this process's memory, in its reserved slot, and times it.
    private func start(_ job: ExportJob, in jobs: ExportJobStore, _ reservation: ExportJobStore.Reservation) {
        let started = ContinuousClock.now
        jobs.start(job, in: reservation) { [metrics] in
            metrics.exportEnded(outcome: job.status.rawValue, duration: ContinuousClock.now - started)
        }
    }

    /// Checks an HLS packaging request (its source must load and have video or audio) and starts its
    /// job, as `startExport` does. The job's id; its report names the playlist once completed.
    func startPackaging(json: Data) async throws -> String {
        let request = try HLSRequest(json: json)
        let source = try resolver.resolve(request.source)
        switch backend {
        case .memory(let jobs):
            let reservation = try jobs.reserve()
            defer { reservation.release() }
            let packager = try await hlsPackager(request, source: source)
            let id = UUID().uuidString.lowercased()
            let final = jobs.outputPath(id: id, fileExtension: "hls")
            let job = ExportJob(id: id, kind: "hls", source: source, work: packager,
                                outputPath: exportDirectory.appendingPathComponent(".\(id).partial.hls").path, publishedPath: final,
                                timeLimit: timeLimit(for: source))
            start(job, in: jobs, reservation)
            return id
        case .database(let queue, let wakeup):
            _ = try await hlsPackager(request, source: source)
            return try await enqueue(queue, wakeup, kind: "hls", json: json, preset: request.presetName, fileType: "hls", source: source)
        }
    }

    /// The packager for a checked request: loads the source (within the media-work limit and
    /// deadline); 400 when it has neither video nor audio.
    func hlsPackager(_ request: HLSRequest, source: MediaSource, limited: Bool = true) async throws -> HLSPackager {
        let asset = makeAsset(source)
        let usable = try await mediaWork(on: source, asset: asset, limited: limited) { asset -> Bool in
            let tracks = try await asset.load(.tracks)
            return tracks.contains { $0.mediaType == .video || $0.mediaType == .audio }
        }
        guard usable else { throw APIError.badRequest("\(source.displayName) has no video or audio to package.") }
        return HLSPackager(asset: asset, request: request)
    }

    /// A queued job, ready to start, writing to `outputPath`: its request checked again on this
    /// instance (its source may have gone since it was submitted), outside the media-work limit (the
    /// job slots bound these; a busy limiter must not fail an accepted job).
    func job(id: String, kind: String, requestJSON: String, outputPath: String) async throws -> ExportJob {
        let json = Data(requestJSON.utf8)
        let jobID = UUID(uuidString: id)
        if kind == "hls" {
            let request = try HLSRequest(json: json)
            let source = try await source(request.source, job: jobID)
            return ExportJob(id: id, kind: kind, source: source, work: try await hlsPackager(request, source: source, limited: false), outputPath: outputPath,
                             timeLimit: timeLimit(for: source))
        }
        let request = try ExportRequest(json: json)
        let source = try await source(request.source, job: jobID)
        let session = try await exportSession(request, source: source, limited: false)
        return ExportJob(id: id, kind: kind, source: source, work: ExportWork(session: session, request: request), outputPath: outputPath,
                         timeLimit: timeLimit(for: source))
    }

    /// The time limit of a job reading `source`: `remoteExportTimeout` for a remote one, none else.
    private func timeLimit(for source: MediaSource) -> TimeInterval? {
        source.kind == .remote ? configuration.remoteExportTimeout : nil
    }

    /// Where export outputs are written.
    var exportDirectory: URL { configuration.exportDirectory }

    /// What `GET /jobs/{id}` answers; 404 when there is no such job.
    func jobReport(id: String) async throws -> ExportJob.Report {
        switch backend {
        case .memory(let jobs):
            guard let job = jobs.job(id: id) else { throw APIError.notFound("No export job \(id).") }
            return job.report
        case .database(let queue, _):
            return try await row(id, queue).report
        }
    }

    /// A completed job's output: its path, content type and file name; 404 when there is no such
    /// job, 409 while it is not completed.
    func jobOutput(id: String) async throws -> (path: String, contentType: String, fileName: String, bytes: Int64?) {
        let report = try await jobReport(id: id)
        if report.kind == "hls" {
            throw APIError(.conflict, "Job \(report.id) is an HLS packaging: its output is served under /hls/\(report.id)/, starting with index.m3u8.")
        }
        guard report.status == .completed else {
            throw APIError(.conflict, "Job \(report.id) is \(report.status.rawValue), not completed: its output is not available\(report.error.map { " (\($0))" } ?? "").")
        }
        let fileName = "\(report.id).\(report.fileType)"
        let contentType = ExportRequest.fileTypes.first { $0.name == report.fileType }?.contentType ?? "application/octet-stream"
        return (exportDirectory.appendingPathComponent(fileName).path, contentType, fileName, report.outputBytes)
    }

    /// A file of a completed HLS packaging: its path under `<export directory>/<id>.hls/` and its
    /// content type. Only names of letters, digits, `.`, `_` and `-` not starting with a dot are
    /// served (no way out of the directory); 404 for anything else or a job not completed (its
    /// directory appears, renamed into place, only when it has).
    func hlsFile(id: String, path components: [String]) async throws -> (path: String, contentType: String) {
        guard let uuid = UUID(uuidString: id), !components.isEmpty, components.count <= 2,
              components.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && $0.utf8.count <= 64
                  && $0.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) } }),
              let name = components.last else {
            throw APIError.notFound("No such HLS file.")
        }
        let contentType: String
        switch (name as NSString).pathExtension {
        case "m3u8": contentType = "application/vnd.apple.mpegurl"
        case "mp4": contentType = "video/mp4"
        case "m4s": contentType = "video/iso.segment"
        default: throw APIError.notFound("No such HLS file.")
        }
        let directory = exportDirectory.appendingPathComponent("\(uuid.uuidString.lowercased()).hls")
        let path = components.reduce(directory) { $0.appendingPathComponent($1) }.path
        let exists = (try? await NIOThreadPool.singleton.runIfActive { FileManager.default.fileExists(atPath: path) }) ?? false
        guard exists else {
            throw APIError.notFound("No file \(components.joined(separator: "/")) in HLS job \(id) (it has not completed, or was removed).")
        }
        return (path, contentType)
    }

    /// `DELETE /jobs/{id}`: a finished job is removed with its output (nil); a running one is asked to
    /// stop and its report after at most five seconds is returned. 404 when there is no such job.
    func deleteJob(id: String) async throws -> ExportJob.Report? {
        switch backend {
        case .memory(let jobs):
            guard let job = jobs.job(id: id) else { throw APIError.notFound("No export job \(id).") }
            if job.status.isFinished {
                _ = await jobs.remove(id: job.id)
                return nil
            }
            job.cancel()
            await job.waitUntilFinished(seconds: 5)
            return job.report
        case .database(let queue, _):
            let uuid = try Self.jobID(id)
            do {
                if let fileType = try await queue.delete(id: uuid) {
                    await uploads.unpin(uuid)
                    let path = exportDirectory.appendingPathComponent("\(uuid.uuidString.lowercased()).\(fileType)").path
                    _ = try? await FileSystem.shared.removeItem(at: FilePath(path))
                    return nil
                }
                guard var row = try await queue.requestCancel(id: uuid) else { return try await row(id, queue).report }
                // The instance running it sees the request at its next renewal (at most two seconds).
                let deadline = ContinuousClock.now + .seconds(5)
                while !row.isFinished, ContinuousClock.now < deadline, !Task.isCancelled {
                    try await Task.sleep(for: .milliseconds(100))
                    guard let next = try await queue.row(id: uuid) else { break }
                    row = next
                }
                return row.report
            } catch let error as APIError {
                throw error
            } catch {
                throw databaseUnavailable(error)
            }
        }
    }

    // MARK: - Operations

    /// The metrics in Prometheus' text format, with the gauges read now (with a database, the job
    /// counts are the whole queue's: one query).
    func metricsText() async -> [UInt8] {
        let jobs: [ExportJob.Status: Int]
        switch backend {
        case .memory(let store):
            jobs = store.countsByStatus()
            metrics.set(slotsInUse: store.slotsTaken)
        case .database(let queue, _):
            // The rest is still worth scraping while the database is away: the job gauges keep their
            // last values and `media_server_database_up` says 0.
            do {
                var counts: [ExportJob.Status: Int] = [:]
                for (state, count) in try await queue.counts() {
                    counts[PostgresJobQueue.Row.status(ofState: state), default: 0] += count
                }
                jobs = counts
                metrics.set(databaseUp: true)
            } catch {
                logger.warning("metrics: the job database did not answer: \(String(reflecting: error))")
                metrics.set(databaseUp: false)
                metrics.set(mediaWorkRunning: limiter.running, mediaWorkWaiting: limiter.waiting, jobs: nil)
                return metrics.render()
            }
        }
        metrics.set(mediaWorkRunning: limiter.running, mediaWorkWaiting: limiter.waiting, jobs: jobs)
        return metrics.render()
    }

    /// Whether this instance can serve: with a database, that it answers (`SELECT 1`, within the
    /// database timeout). What `GET /health` reports to a load balancer.
    func healthy() async -> Bool {
        guard case .database(let queue, _) = backend else { return true }
        do {
            try await queue.ping()
            return true
        } catch {
            logger.warning("health check: \(String(reflecting: error))")
            return false
        }
    }

    /// Logs what the database said and answers 503.
    private func databaseUnavailable(_ error: any Error) -> APIError {
        logger.error("the job database failed: \(String(reflecting: error))")
        return APIError.databaseUnavailable
    }

    private func row(_ id: String, _ queue: PostgresJobQueue) async throws -> PostgresJobQueue.Row {
        let uuid = try Self.jobID(id)
        let row: PostgresJobQueue.Row?
        do {
            row = try await queue.row(id: uuid)
        } catch {
            throw databaseUnavailable(error)
        }
        guard let row else { throw APIError.notFound("No export job \(id).") }
        return row
    }

    /// A job id as the database keys it; 404 for what is not a UUID (no job has that id).
    private static func jobID(_ id: String) throws -> UUID {
        guard let uuid = UUID(uuidString: id) else { throw APIError.notFound("No export job \(id).") }
        return uuid
    }

    // MARK: - Shared

    /// An asset for a source, with the remote timeouts, URL policy and byte cap of the configuration.
    func makeAsset(_ source: MediaSource) -> AVURLAsset {
        var options: [String: Any] = [:]
        if source.kind == .remote {
            options[AvocetURLAssetHTTPConnectTimeoutKey] = configuration.remoteConnectTimeout
            options[AvocetURLAssetHTTPReadTimeoutKey] = configuration.remoteReadTimeout
            options[AvocetURLAssetURLPolicyKey] = urlPolicy
            options[AvocetURLAssetHTTPMaximumBytesKey] = configuration.maxRemoteSourceBytes
        }
        return AVURLAsset(url: source.url, options: options)
    }

    /// Runs Avocet work on a source within the concurrency limit and the deadline, turning its
    /// failures into the client's answer.
    /// `limited: false` skips the concurrency limit (a job's own check: the job slots bound those),
    /// keeping the deadline.
    func mediaWork<T: Sendable>(on source: MediaSource, asset: AVURLAsset? = nil, limited: Bool = true,
                                _ body: @escaping @Sendable (AVURLAsset) async throws -> T) async throws -> T {
        let asset = asset ?? makeAsset(source)
        do {
            return try await withDeadline(seconds: configuration.mediaWorkTimeout) { [limiter] in
                limited ? try await limiter.run { try await body(asset) } : try await body(asset)
            }
        } catch {
            throw MediaFailure.apiError(error, source: source)
        }
    }
}
