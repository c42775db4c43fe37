import AVFoundation
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing
@testable import MediaServerCore

/// Export jobs in PostgreSQL, shared by instances over one database and one storage directory: a job
/// submitted to one instance is run by another and answered by any; a job whose instance died is
/// taken again, up to the retry limit; a cancel reaches the instance running it; a graceful stop puts
/// work back; the schema migrates once. Each test has a database of its own.
@Suite("Export jobs in PostgreSQL", .enabled(if: TestDatabase.adminURL != nil, "MEDIA_SERVER_TEST_DATABASE_URL is not set (scripts/test.sh starts a PostgreSQL server and sets it)"))
struct SharedJobTests {
    /// The environment's configuration as one instance over `database`: short leases, a fast poll.
    private func instance(_ environment: TestEnvironment, _ database: TestDatabase, name: String, exports: Int) -> ServerConfiguration {
        var configuration = environment.configuration
        configuration.databaseURL = database.url
        configuration.instanceName = name
        configuration.maxConcurrentExports = exports
        configuration.jobLeaseDuration = 2
        configuration.jobPollInterval = 0.1
        return configuration
    }

    private func json(_ object: [String: Any]) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))
    }

    /// Polls the job through `client` until it has finished (at most `seconds`, scaled); its report.
    private func finished(_ client: any TestClientProtocol, _ id: String, seconds: Double = 60) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        try await until("job \(id) to finish", seconds: seconds) {
            last = try await client.execute(uri: "/jobs/\(id)", method: .get).json()
            return ["completed", "failed", "cancelled"].contains(last["status"] as? String ?? "")
        }
        return last
    }

    /// A queue over the test's database, as an instance that is not a server (one that claims a job
    /// and then "dies": it never renews).
    private func withQueue<T: Sendable>(_ database: TestDatabase, maxAttempts: Int = 3, lease: Double,
                                        _ body: @Sendable (PostgresJobQueue) async throws -> T) async throws -> T {
        try await database.withClient { client in
            let queue = PostgresJobQueue(client: client, logger: Logger(label: "test-queue"), leaseSeconds: lease, maxAttempts: maxAttempts)
            try await queue.migrate()
            return try await body(queue)
        }
    }

    @Test func aJobSubmittedToOneInstanceIsRunByAnotherAndAnsweredByEither() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await TestDatabase.with { database in
            // A takes requests only (no export slots); B runs the jobs.
            try await environment.withServer(instance(environment, database, name: "a", exports: 0)) { a in
                try await environment.withServer(instance(environment, database, name: "b", exports: 1)) { b in
                    let inspected = try await a.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("av.mp4"))
                    let upload = try #require(try inspected.json()["uploadID"] as? String)
                    let started = try await a.execute(uri: "/export", method: .post, body: try json([
                        "source": upload, "preset": "AVAssetExportPresetLowQuality", "from": 0, "to": 1.5,
                    ]))
                    #expect(started.status == .accepted, "\(started.text)")
                    let id = try #require(try started.json()["id"] as? String)

                    let report = try await finished(a, id)
                    #expect(report["status"] as? String == "completed", "\(report)")
                    #expect(report["attempts"] as? Int == 1, "\(report)")
                    #expect(report["progress"] as? Double == 1)
                    let owners = try await database.strings("SELECT coalesce(lease_owner, '-') || ' ' || state FROM media_jobs")
                    #expect(owners == ["- completed"], "the lease is let go when the job ends: \(owners)")
                    // A ran nothing, yet its metrics count the queue's jobs, and its health reaches the database.
                    let metrics = try await a.execute(uri: "/metrics", method: .get).text
                    #expect(ObservabilityTests.value(metrics, "media_server_export_jobs", ["state": "completed"]) == 1, "\(metrics)")
                    #expect(ObservabilityTests.value(metrics, "media_server_export_slots_in_use") == nil, "A never held a slot")
                    #expect(try await a.execute(uri: "/health", method: .get).status == .ok)

                    // Either instance serves the output from the shared directory.
                    for client in [a, b] {
                        let output = try await client.execute(uri: "/jobs/\(id)/output", method: .get)
                        #expect(output.status == .ok, "\(output.text.prefix(200))")
                        #expect(output.body.readableBytes > 1000 && output.body.readableBytes == report["outputBytes"] as? Int)
                    }
                    let outputs = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
                    #expect(outputs == ["\(id).mp4"], "one output, no partial file: \(outputs)")
                    let asset = AVURLAsset(url: environment.configuration.exportDirectory.appendingPathComponent("\(id).mp4"))
                    #expect(abs(try await asset.load(.duration).seconds - 1.5) < 0.1)

                    #expect(try await b.execute(uri: "/jobs/\(id)", method: .delete).status == .noContent)
                    #expect(try await a.execute(uri: "/jobs/\(id)", method: .get).status == .notFound)
                    #expect(try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path).isEmpty)
                }
            }
        }
    }

    @Test func anHLSPackagingIsQueuedRunByAnotherInstanceAndServedByEither() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await TestDatabase.with { database in
            try await environment.withServer(instance(environment, database, name: "front", exports: 0)) { front in
                try await environment.withServer(instance(environment, database, name: "worker", exports: 1)) { worker in
                    let (id, report) = try await HLSTests.package(front, ["source": "frames-h264.mp4", "heights": [144], "segmentSeconds": 1])
                    #expect(report["status"] as? String == "completed", "\(report)")
                    #expect(report["kind"] as? String == "hls" && report["attempts"] as? Int == 1, "\(report)")
                    for client in [front, worker] {
                        let master = try await client.execute(uri: "/hls/\(id)/index.m3u8", method: .get)
                        #expect(master.status == .ok && master.text.contains("144p/index.m3u8"), "\(master.text)")
                    }
                    let outputs = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
                    #expect(outputs == ["\(id).hls"], "one published directory, no partial one: \(outputs)")
                    #expect(try await worker.execute(uri: "/jobs/\(id)", method: .delete).status == .noContent)
                    #expect(try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path).isEmpty)
                }
            }
        }
    }

    @Test func aQueuedJobKeepsItsUploadPastTheUploadsLifetime() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await TestDatabase.with { database in
            // No instance runs jobs while the job waits; then the upload is two hours old.
            let (id, upload) = try await environment.withServer(instance(environment, database, name: "front", exports: 0)) { front in
                let inspected = try await front.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("av.mp4"))
                let upload = try #require(try inspected.json()["uploadID"] as? String)
                let started = try await front.execute(uri: "/export", method: .post, body: try json([
                    "source": upload, "preset": "AVAssetExportPresetLowQuality", "to": 1,
                ]))
                return (try #require(try started.json()["id"] as? String), upload)
            }
            let uploadFile = environment.uploads.appendingPathComponent("\(upload).upload")
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: uploadFile.path)
            let files = try environment.uploadFiles()
            #expect(files.contains("\(id).pin"), "the waiting job pinned its upload: \(files)")

            // The worker's housekeeping removes the expired upload at start; the job still reads it.
            try await environment.withServer(instance(environment, database, name: "worker", exports: 1)) { worker in
                let report = try await finished(worker, id)
                #expect(report["status"] as? String == "completed", "\(report)")
                try await until("the pin to go with the job's end") { try !environment.uploadFiles().contains("\(id).pin") }
            }
            #expect(!FileManager.default.fileExists(atPath: uploadFile.path), "the upload itself expired")
        }
    }

    @Test func aJobWhoseInstanceDiedIsTakenAgainAndItsPartialFileRemoved() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try FileManager.default.createDirectory(at: environment.configuration.exportDirectory, withIntermediateDirectories: true)
        try await TestDatabase.with { database in
            let id = UUID()
            let claim = try await withQueue(database, lease: 1) { queue in
                try await queue.submit(id: id, request: #"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "to": 1}"#,
                                       preset: "AVAssetExportPresetLowQuality", fileType: "mp4")
                return try #require(try await queue.claim(owner: "dead"))
            }
            #expect(claim.attempt == 1)
            // What the dead instance was writing.
            let partial = environment.configuration.exportDirectory
                .appendingPathComponent(".\(id.uuidString.lowercased()).\(claim.token.uuidString.lowercased()).partial.mp4")
            try Data("half a movie".utf8).write(to: partial)

            try await environment.withServer(instance(environment, database, name: "survivor", exports: 1)) { client in
                let report = try await finished(client, id.uuidString.lowercased())
                #expect(report["status"] as? String == "completed", "\(report)")
                #expect(report["attempts"] as? Int == 2, "taken again once the dead lease ran out: \(report)")
            }
            let outputs = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
            #expect(outputs == ["\(id.uuidString.lowercased()).mp4"], "the dead instance's partial file is gone: \(outputs)")
        }
    }

    @Test func aJobOutOfAttemptsFailsWithTheReason() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await TestDatabase.with { database in
            let id = UUID()
            try await withQueue(database, maxAttempts: 1, lease: 0.5) { queue in
                try await queue.submit(id: id, request: #"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality"}"#,
                                       preset: "AVAssetExportPresetLowQuality", fileType: "mp4")
                _ = try #require(try await queue.claim(owner: "dead"))
            }
            var configuration = instance(environment, database, name: "survivor", exports: 1)
            configuration.maxJobAttempts = 1
            try await environment.withServer(configuration) { client in
                let report = try await finished(client, id.uuidString.lowercased())
                #expect(report["status"] as? String == "failed", "\(report)")
                #expect(report["attempts"] as? Int == 1, "never started again: \(report)")
                let error = report["error"] as? String ?? ""
                #expect(error.contains("started once") && error.contains("not tried again"), "\(error)")
            }
        }
    }

    @Test func aCancelThroughOneInstanceStopsTheExportOnAnother() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }  // the fixture server is on loopback
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await TestDatabase.with { database in
                try await environment.withServer(instance(environment, database, name: "worker", exports: 1)) { _ in
                    try await environment.withServer(instance(environment, database, name: "front", exports: 0)) { front in
                        let started = try await front.execute(uri: "/export", method: .post, body: try json([
                            "source": "\(base)/slow/av.mp4", "preset": "AVAssetExportPresetLowQuality",
                        ]))
                        #expect(started.status == .accepted, "\(started.text)")
                        let id = try #require(try started.json()["id"] as? String)
                        try await until("the worker to start the export") {
                            try await front.execute(uri: "/jobs/\(id)", method: .get).json()["status"] as? String == "exporting"
                        }
                        let cancelled = try await front.execute(uri: "/jobs/\(id)", method: .delete)
                        #expect(cancelled.status == .ok, "\(cancelled.text)")
                        #expect(try cancelled.json()["status"] as? String == "cancelled", "the worker stopped within 5 s: \(cancelled.text)")
                        try await until("the partial output to be removed") {
                            try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path).isEmpty
                        }
                    }
                }
            }
        }
    }

    @Test func aGracefulStopPutsRunningJobsBackWithoutCountingTheAttempt() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await TestDatabase.with { database in
                let id = try await environment.withServer(instance(environment, database, name: "leaving", exports: 1)) { client in
                    let started = try await client.execute(uri: "/export", method: .post, body: try json([
                        "source": "\(base)/slow/av.mp4", "preset": "AVAssetExportPresetLowQuality",
                    ]))
                    let id = try #require(try started.json()["id"] as? String)
                    try await until("the export to start") {
                        try await client.execute(uri: "/jobs/\(id)", method: .get).json()["status"] as? String == "exporting"
                    }
                    return id
                }
                // The server stopped gracefully at the end of its test closure.
                let rows = try await database.strings("SELECT state || ' ' || attempts || ' ' || coalesce(lease_owner, '-') FROM media_jobs")
                #expect(rows == ["queued 0 -"], "back in the queue, the attempt not counted: \(rows) (job \(id))")
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
                #expect(leftovers.isEmpty, "no partial output left: \(leftovers)")
            }
        }
    }

    @Test func oldUploadsAndFinishedJobsExpireFromTheSharedStorage() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        let uploads = environment.configuration.uploadDirectory
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        // Stored by some instance a minute ago, and one just now; and a file that is not an upload.
        let old = uploads.appendingPathComponent("\(UUID().uuidString.lowercased()).upload")
        let fresh = uploads.appendingPathComponent("\(UUID().uuidString.lowercased()).upload")
        let other = uploads.appendingPathComponent("notes.txt")
        for file in [old, fresh, other] { try Data("bytes".utf8).write(to: file) }
        // An output whose job row is gone (a removal that stopped between the row and the file).
        try FileManager.default.createDirectory(at: environment.configuration.exportDirectory, withIntermediateDirectories: true)
        let orphan = environment.configuration.exportDirectory.appendingPathComponent("\(UUID().uuidString.lowercased()).mp4")
        try Data("left over".utf8).write(to: orphan)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: old.path)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: other.path)
        try await TestDatabase.with { database in
            var configuration = instance(environment, database, name: "keeper", exports: 1)
            configuration.uploadLifetime = 30
            configuration.jobRetention = 0.5
            configuration.jobLeaseDuration = 1  // housekeeping every second
            try await environment.withServer(configuration) { client in
                let started = try await client.execute(uri: "/export", method: .post, body: try json([
                    "source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "to": 1,
                ]))
                let id = try #require(try started.json()["id"] as? String)
                #expect(try await finished(client, id)["status"] as? String == "completed")
                try await until("the finished job and its output to expire") {
                    try await client.execute(uri: "/jobs/\(id)", method: .get).status == .notFound
                }
                try await until("the output file to go") {
                    try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path).isEmpty
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: old.path), "an upload past its lifetime is removed")
        #expect(FileManager.default.fileExists(atPath: fresh.path), "a young upload stays")
        #expect(FileManager.default.fileExists(atPath: other.path), "a file not named as an upload is left alone")
        #expect(!FileManager.default.fileExists(atPath: orphan.path), "an output without a job is removed")
    }

    @Test func whenTheDatabaseGoesAwayRequestsAre503AndMetricsStillAnswer() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await TestDatabase.with { database in
            var configuration = instance(environment, database, name: "stranded", exports: 1)
            configuration.databaseTimeout = 2
            try await environment.withServer(configuration) { client in
                #expect(ObservabilityTests.value(try await client.execute(uri: "/metrics", method: .get).text, "media_server_database_up") == 1)
                try await database.admin("DROP DATABASE \(database.name) WITH (FORCE)")
                let health = try await client.execute(uri: "/health", method: .get)
                #expect(health.status == .serviceUnavailable, "\(health.text)")
                let job = try await client.execute(uri: "/jobs/\(UUID().uuidString)", method: .get)
                #expect(job.status == .serviceUnavailable && job.headers[.retryAfter] == "5", "\(job.text)")
                let metrics = try await client.execute(uri: "/metrics", method: .get)
                #expect(metrics.status == .ok)
                #expect(ObservabilityTests.value(metrics.text, "media_server_database_up") == 0, "\(metrics.text)")
                #expect(ObservabilityTests.value(metrics.text, "http_requests_total", ["route": "/health", "status": "503"]) == 1)
            }
        }
    }

    @Test func theSchemaMigratesOnceWhenInstancesStartTogether() async throws {
        try await TestDatabase.with { database in
            try await database.withClient { client in
                let queues = (0..<3).map { _ in PostgresJobQueue(client: client, logger: Logger(label: "test"), leaseSeconds: 1, maxAttempts: 1) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for queue in queues { group.addTask { try await queue.migrate() } }
                    try await group.waitForAll()
                }
                try await queues[0].migrate()
            }
            let versions = try await database.strings("SELECT version::text FROM media_server_migrations ORDER BY version")
            #expect(versions == (1...PostgresJobQueue.migrations.count).map(String.init), "\(versions)")
        }
    }
}

/// The `--database-url` forms accepted and refused, and a start against a database that is not
/// there (no database needed).
@Suite("Database configuration")
struct DatabaseConfigurationTests {
    /// A database that accepts connections and never answers (a hung server), and one that refuses
    /// them: the server does not start, and says why, within its database timeout.
    @Test(arguments: [true, false])
    func aDatabaseThatDoesNotAnswerStopsTheStartWithinItsTimeout(silent: Bool) async throws {
        let listener = try SilentListener()
        let port = silent ? listener.port : 1
        let environment = try TestEnvironment {
            $0.databaseURL = "postgres://nobody@127.0.0.1:\(port)/none?sslmode=disable"
            $0.databaseTimeout = 1
        }
        defer { environment.remove() }
        let app = try MediaServer.buildApplication(configuration: environment.configuration)
        let started = ContinuousClock.now
        let failure = try await withDeadline(seconds: 20 * testTimeScale) { () -> String? in
            do {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            } catch {
                return String(describing: error)
            }
        }
        #expect(failure?.contains("did not answer within 1.0 s") == true, "\(failure ?? "started")")
        #expect(ContinuousClock.now - started < .seconds(10 * testTimeScale), "the start failed within its timeout")
        withExtendedLifetime(listener) {}
    }

    @Test func databaseURLs() throws {
        let plain = try DatabaseURL("postgres://user:p%40ss@db.example:6543/jobs?sslmode=disable")
        #expect(plain.configuration.host == "db.example" && plain.configuration.port == 6543)
        #expect(plain.configuration.username == "user" && plain.configuration.password == "p@ss" && plain.configuration.database == "jobs")
        #expect(!plain.redacted.contains("p%40ss") && plain.redacted.contains("***"))
        let socket = try DatabaseURL("postgresql://me@/media?host=/run/postgresql")
        #expect(socket.configuration.unixSocketPath == "/run/postgresql/.s.PGSQL.5432" && socket.configuration.database == "media")
        #expect(try DatabaseURL("postgres://me@host").configuration.database == "me")
        #expect(try DatabaseURL("postgres://me:100%25@host/db").configuration.password == "100%", "decoded once")
        for bad in ["mysql://me@host/db", "postgres://host/db", "postgres://me@/db", "postgres://me@host/db?sslmode=verify-full", "not a url"] {
            #expect(throws: DatabaseURL.Invalid.self, "\(bad)") { try DatabaseURL(bad) }
        }
    }
}
