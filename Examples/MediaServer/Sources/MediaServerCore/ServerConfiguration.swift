import Foundation

/// Everything the media server needs to know to start: where it listens, where it keeps files, and
/// its limits.
///
/// A plain value, built by the `media-server` executable from its flags and environment, or by tests
/// directly. Read once when the application is built (`MediaServer.buildApplication(configuration:)`);
/// changing it afterwards changes nothing.
public struct ServerConfiguration: Sendable {
    /// The address to bind: an IP address or a host name. `127.0.0.1` by default: loopback only.
    public var host: String
    /// The port to bind; 0 lets the system choose one (tests read it back from the running server).
    public var port: Int

    /// Where uploads are written as they arrive, one file per upload (`<uploadID>.upload`). Created at
    /// start if missing; leftover upload files of an earlier run (only files named as uploads) are removed.
    public var uploadDirectory: URL
    /// Where export jobs write their output files. Created at start if missing.
    public var exportDirectory: URL
    /// The only directory whose files `/thumbnail` and `/export` may name by path (symbolic links are
    /// resolved before the check). Nil: no file paths are accepted at all.
    public var mediaDirectory: URL?

    /// The largest upload accepted, in bytes; a larger one is answered 413 and its partial file dropped.
    public var maxUploadBytes: Int64
    /// How many uploads are kept for later requests (`uploadID`); past it the oldest is removed.
    public var maxStoredUploads: Int
    /// How long an upload is kept, in seconds, before it is removed.
    public var uploadLifetime: TimeInterval

    /// How many export jobs may run at once (on this instance). Without a database one more is
    /// refused with 429 (not queued); with one, jobs wait in the shared queue for a free slot on any
    /// instance.
    public var maxConcurrentExports: Int
    /// How many finished export jobs (and their output files) are kept; past it the oldest finished
    /// job and its file are removed.
    public var maxFinishedExports: Int

    /// How many inspect and thumbnail operations may use Avocet at once; more wait their turn.
    public var maxConcurrentMediaWork: Int
    /// How many operations may wait for a turn; past it requests are answered 503.
    public var maxQueuedMediaWork: Int
    /// Seconds an inspect or thumbnail operation (waiting for its turn included) may take before it is
    /// cancelled and answered 504.
    public var mediaWorkTimeout: TimeInterval

    /// Whether `http` and `https` URLs are accepted as sources. Avocet fetches them itself.
    public var allowsRemoteURLs: Bool
    /// When not empty, the only host names remote URLs may name (compared case-insensitively).
    public var allowedRemoteHosts: [String]
    /// Whether remote URLs may lead to this machine and to private networks: loopback, 10.0.0.0/8,
    /// 172.16.0.0/12, 192.168.0.0/16, fc00::/7 and the shared 100.64.0.0/10 (a deployment on a LAN
    /// whose media servers sit there). False by default: remote URLs reach the public internet only,
    /// checked by Avocet's `AvocetURLPolicy` at every connection and redirect hop. Link-local addresses
    /// (cloud metadata services), multicast, broadcast, unspecified and reserved ones stay refused either way.
    public var allowsPrivateNetworks: Bool
    /// The most bytes one remote source may cost a piece of work (an inspect, a thumbnail, an export),
    /// all requests together (`AvocetURLAssetHTTPMaximumBytesKey`); past it the work fails with 502.
    public var maxRemoteSourceBytes: Int64
    /// Seconds an export of a remote source may run before it is stopped and marked failed (inspect
    /// and thumbnail work has `mediaWorkTimeout`).
    public var remoteExportTimeout: TimeInterval
    /// Seconds Avocet waits for a remote server's first answer (`AvocetURLAssetHTTPConnectTimeoutKey`).
    public var remoteConnectTimeout: TimeInterval
    /// Seconds Avocet waits for more bytes of a remote response (`AvocetURLAssetHTTPReadTimeoutKey`).
    public var remoteReadTimeout: TimeInterval

    /// The PostgreSQL database that holds the export jobs, as a URL
    /// (`postgres://user:password@host:port/database?sslmode=disable|prefer|require`; a `host=/dir` query
    /// item names a Unix socket's directory). Nil, the default: jobs live in this process's memory, as
    /// one instance alone needs. Set: every instance given the same database shares one queue of jobs
    /// (see `PostgresJobQueue`), and the upload and export directories must be the same shared storage
    /// on every instance.
    public var databaseURL: String?
    /// With a database: seconds a running job's lease lasts. The instance running it renews it every
    /// third of this; when an instance dies, its jobs are taken again by another once their leases
    /// have run out.
    public var jobLeaseDuration: TimeInterval
    /// With a database: how many times a job is started (the first run included) before a job whose
    /// lease ran out is marked failed instead of being taken again. A job that fails on its media is
    /// failed at once, never retried.
    public var maxJobAttempts: Int
    /// With a database: seconds between two looks for queued work while this instance has a free slot
    /// (a job submitted to this instance is looked for at once).
    public var jobPollInterval: TimeInterval
    /// With a database: seconds a finished job (and its output) is kept before any instance removes it.
    public var jobRetention: TimeInterval
    /// With a database: seconds one call to it may wait (for a connection, then its answer) before the
    /// request is answered 503, the worker tries again later, or (at start) the server fails to start.
    public var databaseTimeout: TimeInterval
    /// With a database: how this instance names itself in the leases it holds (for operators); the
    /// host name and process id by default.
    public var instanceName: String

    /// The largest JSON body accepted by `POST /export`, in bytes.
    public var maxJSONBytes: Int
    /// Seconds a connection answered 413 may still send (what it sends is discarded) before it is closed.
    public var lingerAfterRefusal: TimeInterval

    /// A configuration with the defaults: loopback on port 8080, files under the system's temporary
    /// directory, 100 MiB uploads, 2 concurrent exports, 4 concurrent media operations; remote URLs to
    /// the public internet only, at most 1 GiB and (for exports) 10 minutes each.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        uploadDirectory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("media-server/uploads"),
        exportDirectory: URL? = nil,
        mediaDirectory: URL? = nil,
        maxUploadBytes: Int64 = 100 * 1024 * 1024,
        maxStoredUploads: Int = 1000,
        uploadLifetime: TimeInterval = 3600,
        maxConcurrentExports: Int = 2,
        maxFinishedExports: Int = 100,
        maxConcurrentMediaWork: Int = 4,
        maxQueuedMediaWork: Int = 64,
        mediaWorkTimeout: TimeInterval = 30,
        allowsRemoteURLs: Bool = true,
        allowedRemoteHosts: [String] = [],
        allowsPrivateNetworks: Bool = false,
        maxRemoteSourceBytes: Int64 = 1024 * 1024 * 1024,
        remoteExportTimeout: TimeInterval = 600,
        remoteConnectTimeout: TimeInterval = 5,
        remoteReadTimeout: TimeInterval = 10,
        databaseURL: String? = nil,
        jobLeaseDuration: TimeInterval = 30,
        maxJobAttempts: Int = 3,
        jobPollInterval: TimeInterval = 1,
        jobRetention: TimeInterval = 86_400,
        databaseTimeout: TimeInterval = 10,
        instanceName: String = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)",
        maxJSONBytes: Int = 16 * 1024,
        lingerAfterRefusal: TimeInterval = 2
    ) {
        self.host = host
        self.port = port
        self.uploadDirectory = uploadDirectory
        self.exportDirectory = exportDirectory ?? uploadDirectory.deletingLastPathComponent().appendingPathComponent("exports")
        self.mediaDirectory = mediaDirectory
        self.maxUploadBytes = maxUploadBytes
        self.maxStoredUploads = maxStoredUploads
        self.uploadLifetime = uploadLifetime
        self.maxConcurrentExports = maxConcurrentExports
        self.maxFinishedExports = maxFinishedExports
        self.maxConcurrentMediaWork = maxConcurrentMediaWork
        self.maxQueuedMediaWork = maxQueuedMediaWork
        self.mediaWorkTimeout = mediaWorkTimeout
        self.allowsRemoteURLs = allowsRemoteURLs
        self.allowedRemoteHosts = allowedRemoteHosts
        self.allowsPrivateNetworks = allowsPrivateNetworks
        self.maxRemoteSourceBytes = maxRemoteSourceBytes
        self.remoteExportTimeout = remoteExportTimeout
        self.remoteConnectTimeout = remoteConnectTimeout
        self.remoteReadTimeout = remoteReadTimeout
        self.databaseURL = databaseURL
        self.jobLeaseDuration = jobLeaseDuration
        self.maxJobAttempts = maxJobAttempts
        self.jobPollInterval = jobPollInterval
        self.jobRetention = jobRetention
        self.databaseTimeout = databaseTimeout
        self.instanceName = instanceName
        self.maxJSONBytes = maxJSONBytes
        self.lingerAfterRefusal = lingerAfterRefusal
    }
}
