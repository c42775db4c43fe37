import AVFoundation
import CoreMedia
import Foundation
import NIOCore
import NIOPosix

/// What the routes do, without HTTP: store and inspect uploads, make thumbnails, run exports.
///
/// One instance per application, shared by all requests (`Sendable`: its parts guard themselves).
/// Its methods run on the request's task and only await: Avocet loads and decodes on its engine
/// threads, uploads are written and files removed on NIO's thread pool, and the one CPU-heavy call
/// Avocet makes synchronously (JPEG encoding) is sent to NIO's thread pool too.
public final class MediaService: Sendable {
    public let configuration: ServerConfiguration
    let uploads: UploadStore
    let jobs: ExportJobStore
    let resolver: MediaSourceResolver
    let limiter: WorkLimiter
    /// What every connection to a remote source must pass, redirect hops included.
    let urlPolicy: AvocetURLPolicy

    /// The JPEG quality of thumbnails, from 0 to 1.
    static let jpegQuality = 0.85

    /// The tolerance on each side of the time asked for a thumbnail, unless `exact` asks for none:
    /// a keyframe within it is taken (one seek, one decoded picture); with none there, Avocet decodes
    /// the exact picture (at most one group of pictures). Cheap for the usual case, never far off.
    static let thumbnailTolerance = CMTime(value: 1, timescale: 1)

    public init(configuration: ServerConfiguration) {
        self.configuration = configuration
        uploads = UploadStore(directory: configuration.uploadDirectory, maxBytes: configuration.maxUploadBytes,
                              maxStored: configuration.maxStoredUploads, lifetime: configuration.uploadLifetime)
        jobs = ExportJobStore(directory: configuration.exportDirectory, maxRunning: configuration.maxConcurrentExports,
                              maxFinished: configuration.maxFinishedExports)
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
        try jobs.prepare()
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
    /// its job in the background. Throws 429 when the concurrent-export limit is reached.
    func startExport(json: Data) async throws -> ExportJob {
        let request = try ExportRequest(json: json)
        let source = try resolver.resolve(request.source)
        let reservation = try jobs.reserve()
        defer { reservation.release() }
        let asset = makeAsset(source)
        let duration = try await mediaWork(on: source, asset: asset) { asset -> Double in
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
        let id = UUID().uuidString.lowercased()
        let job = ExportJob(id: id, request: request, source: source, session: session,
                            outputPath: jobs.outputPath(id: id, fileExtension: request.fileExtension),
                            timeLimit: source.kind == .remote ? configuration.remoteExportTimeout : nil)
        jobs.start(job, in: reservation)
        return job
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
    func mediaWork<T: Sendable>(on source: MediaSource, asset: AVURLAsset? = nil,
                                _ body: @escaping @Sendable (AVURLAsset) async throws -> T) async throws -> T {
        let asset = asset ?? makeAsset(source)
        do {
            return try await withDeadline(seconds: configuration.mediaWorkTimeout) { [limiter] in
                try await limiter.run { try await body(asset) }
            }
        } catch {
            throw MediaFailure.apiError(error, source: source)
        }
    }
}
