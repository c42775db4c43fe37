import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MediaServerCore

/// `media-server`: runs the media server until SIGINT or SIGTERM.
///
/// Every flag has an environment variable (`MEDIA_SERVER_<NAME>`) read when the flag is not given;
/// the flag wins. Runs Hummingbird's event loops and Swift's cooperative pool; Avocet's engine
/// threads do the media work.
@main
struct MediaServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media-server",
        abstract: "An HTTP server over Avocet: inspect uploads, make thumbnails, run exports and HLS packagings, alone or as one of several instances sharing a PostgreSQL job queue.",
        discussion: "Each option can also be set through the environment variable named in its help; the option wins.")

    @Option(help: "Address to bind (MEDIA_SERVER_HOST).")
    var host: String?
    @Option(help: "Port to bind; 0 picks a free one (MEDIA_SERVER_PORT).")
    var port: Int?
    @Option(help: "Directory for uploads (MEDIA_SERVER_UPLOAD_DIR).")
    var uploadDir: String?
    @Option(help: "Directory for export outputs; defaults to 'exports' beside the upload directory (MEDIA_SERVER_EXPORT_DIR).")
    var exportDir: String?
    @Option(help: "The only directory whose files may be named by path; none by default (MEDIA_SERVER_MEDIA_DIR).")
    var mediaDir: String?
    @Option(help: "Largest upload in bytes (MEDIA_SERVER_MAX_UPLOAD_BYTES).")
    var maxUploadBytes: Int64?
    @Option(help: "Uploads kept for later requests (MEDIA_SERVER_MAX_STORED_UPLOADS).")
    var maxStoredUploads: Int?
    @Option(help: "Seconds an upload is kept before it is removed (MEDIA_SERVER_UPLOAD_LIFETIME).")
    var uploadLifetime: Double?
    @Option(help: "Export jobs running at once; more are refused with 429 (MEDIA_SERVER_MAX_EXPORTS).")
    var maxExports: Int?
    @Option(help: "Inspect and thumbnail operations running at once (MEDIA_SERVER_MAX_MEDIA_WORK).")
    var maxMediaWork: Int?
    @Option(help: "Seconds an inspect or thumbnail may take (MEDIA_SERVER_MEDIA_TIMEOUT).")
    var mediaTimeout: Double?
    @Flag(help: "Refuse http(s) URLs as sources (MEDIA_SERVER_NO_REMOTE=1).")
    var noRemote = false
    @Option(help: "Comma-separated hosts remote URLs may name; any when empty (MEDIA_SERVER_ALLOWED_HOSTS).")
    var allowedHosts: String?
    @Flag(help: "Let remote URLs reach this machine and private networks, for a LAN deployment; the public internet only otherwise (MEDIA_SERVER_ALLOW_PRIVATE_NETWORKS=1).")
    var allowPrivateNetworks = false
    @Option(help: "The most bytes one remote source may cost a piece of work (MEDIA_SERVER_MAX_REMOTE_BYTES).")
    var maxRemoteBytes: Int64?
    @Option(help: "Seconds an export of a remote source may run (MEDIA_SERVER_REMOTE_EXPORT_TIMEOUT).")
    var remoteExportTimeout: Double?

    @Option(help: "A PostgreSQL URL (postgres://user:password@host:port/database?sslmode=disable): export jobs go to a queue there, shared by every instance given it; the upload and export directories must then be shared storage. Jobs stay in memory without it (MEDIA_SERVER_DATABASE_URL, or DATABASE_URL).")
    var databaseURL: String?
    @Option(help: "With a database: seconds a running job's lease lasts; an instance that dies leaves its jobs to others this long after (MEDIA_SERVER_JOB_LEASE).")
    var jobLease: Double?
    @Option(help: "With a database: how many times a job is started before it is failed (MEDIA_SERVER_MAX_JOB_ATTEMPTS).")
    var maxJobAttempts: Int?
    @Option(help: "With a database: seconds finished jobs and their outputs are kept (MEDIA_SERVER_JOB_RETENTION).")
    var jobRetention: Double?
    @Option(help: "With a database: seconds a call to it may wait before the request is answered 503 (or, at start, the server does not start) (MEDIA_SERVER_DATABASE_TIMEOUT).")
    var databaseTimeout: Double?
    @Option(help: "With a database: this instance's name in the leases it holds; host:pid by default (MEDIA_SERVER_INSTANCE_NAME).")
    var instanceName: String?

    @Option(help: "text (swift-log's lines) or json (one JSON object a line, for log collectors) (MEDIA_SERVER_LOG_FORMAT).")
    var logFormat: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func env(_ name: String) -> String? { environment["MEDIA_SERVER_" + name].flatMap { $0.isEmpty ? nil : $0 } }
        func number<T: LosslessStringConvertible>(_ flag: T?, _ name: String) throws -> T? {
            if let flag { return flag }
            guard let text = env(name) else { return nil }
            guard let value = T(text) else { throw ValidationError("MEDIA_SERVER_\(name) must be a number; it is \"\(text)\".") }
            return value
        }

        var configuration = ServerConfiguration()
        configuration.host = host ?? env("HOST") ?? configuration.host
        configuration.port = try number(port, "PORT") ?? configuration.port
        if let dir = uploadDir ?? env("UPLOAD_DIR") {
            configuration.uploadDirectory = URL(fileURLWithPath: dir)
            configuration.exportDirectory = configuration.uploadDirectory.deletingLastPathComponent().appendingPathComponent("exports")
        }
        if let dir = exportDir ?? env("EXPORT_DIR") { configuration.exportDirectory = URL(fileURLWithPath: dir) }
        if let dir = mediaDir ?? env("MEDIA_DIR") { configuration.mediaDirectory = URL(fileURLWithPath: dir) }
        configuration.maxUploadBytes = try number(maxUploadBytes, "MAX_UPLOAD_BYTES") ?? configuration.maxUploadBytes
        configuration.maxStoredUploads = try number(maxStoredUploads, "MAX_STORED_UPLOADS") ?? configuration.maxStoredUploads
        configuration.uploadLifetime = try number(uploadLifetime, "UPLOAD_LIFETIME") ?? configuration.uploadLifetime
        configuration.maxConcurrentExports = try number(maxExports, "MAX_EXPORTS") ?? configuration.maxConcurrentExports
        configuration.maxConcurrentMediaWork = try number(maxMediaWork, "MAX_MEDIA_WORK") ?? configuration.maxConcurrentMediaWork
        configuration.mediaWorkTimeout = try number(mediaTimeout, "MEDIA_TIMEOUT") ?? configuration.mediaWorkTimeout
        if noRemote || env("NO_REMOTE") == "1" { configuration.allowsRemoteURLs = false }
        if let hosts = allowedHosts ?? env("ALLOWED_HOSTS") {
            configuration.allowedRemoteHosts = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        if allowPrivateNetworks || env("ALLOW_PRIVATE_NETWORKS") == "1" { configuration.allowsPrivateNetworks = true }
        configuration.maxRemoteSourceBytes = try number(maxRemoteBytes, "MAX_REMOTE_BYTES") ?? configuration.maxRemoteSourceBytes
        configuration.remoteExportTimeout = try number(remoteExportTimeout, "REMOTE_EXPORT_TIMEOUT") ?? configuration.remoteExportTimeout

        configuration.databaseURL = databaseURL ?? env("DATABASE_URL") ?? environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.jobLeaseDuration = try number(jobLease, "JOB_LEASE") ?? configuration.jobLeaseDuration
        configuration.maxJobAttempts = try number(maxJobAttempts, "MAX_JOB_ATTEMPTS") ?? configuration.maxJobAttempts
        configuration.jobRetention = try number(jobRetention, "JOB_RETENTION") ?? configuration.jobRetention
        configuration.databaseTimeout = try number(databaseTimeout, "DATABASE_TIMEOUT") ?? configuration.databaseTimeout
        configuration.instanceName = instanceName ?? env("INSTANCE_NAME") ?? configuration.instanceName
        guard configuration.maxJobAttempts > 0 else { throw ValidationError("The job attempts must be 1 or more.") }

        guard configuration.maxUploadBytes > 0, configuration.maxRemoteSourceBytes > 0, configuration.maxConcurrentMediaWork > 0 else {
            throw ValidationError("The limits must be positive.")
        }
        for (name, seconds) in [("media timeout", configuration.mediaWorkTimeout), ("remote export timeout", configuration.remoteExportTimeout),
                                ("job lease", configuration.jobLeaseDuration), ("job retention", configuration.jobRetention),
                                ("database timeout", configuration.databaseTimeout), ("upload lifetime", configuration.uploadLifetime)] {
            guard seconds.isFinite, seconds > 0, seconds <= 7 * 86_400 else {
                throw ValidationError("The \(name) must be a number of seconds above 0 and at most a week.")
            }
        }
        if configuration.allowsRemoteURLs {
            // libcurl sends https connections to a proxy by name, and the proxy resolves the name with
            // its own view of DNS: the URL policy's address check cannot see where it connects.
            let proxies = ["http_proxy", "https_proxy", "all_proxy"].flatMap { [$0, $0.uppercased()] }.filter { environment[$0]?.isEmpty == false }
            if !proxies.isEmpty {
                FileHandle.standardError.write(Data("warning: \(proxies.joined(separator: ", ")) set: remote https URLs go through that proxy, which resolves their names itself; the URL policy checks only what Avocet resolves. Unset it, or turn remote URLs off (--no-remote).\n".utf8))
            }
        }
        switch logFormat ?? env("LOG_FORMAT") ?? "text" {
        case "text": break
        case "json": LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        case let other: throw ValidationError("The log format must be text or json; it is \"\(other)\".")
        }
        let app = try MediaServer.buildApplication(configuration: configuration)
        try await app.runService()
    }
}
