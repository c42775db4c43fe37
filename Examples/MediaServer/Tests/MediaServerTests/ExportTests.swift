import AVFoundation
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /export` and `/jobs/{id}`: background exports that complete, fail, are cancelled, or are
/// refused (bad request, incompatible preset, the concurrent-job limit).
@Suite("Export jobs")
struct ExportTests {
    private func body(_ object: [String: Any]) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))
    }

    /// Starts an export of the fixture server's slow movie (it keeps the job running for seconds); its id.
    private func startSlowExport(_ client: any TestClientProtocol, from base: String) async throws -> String {
        let started = try await client.execute(uri: "/export", method: .post, body: try body([
            "source": "\(base)/slow/av.mp4", "preset": "AVAssetExportPresetLowQuality",
        ]))
        #expect(started.status == .accepted, "\(started.text)")
        return try #require(try started.json()["id"] as? String)
    }

    /// Polls the job until `done` holds of its JSON, for at most `seconds` (scaled); the last JSON seen.
    private func poll(_ client: any TestClientProtocol, _ id: String, seconds: Double = 60,
                      until done: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        var progressSeen: [Double] = []
        try await until("job \(id) to reach the state asked", seconds: seconds) {
            let response = try await client.execute(uri: "/jobs/\(id)", method: .get)
            #expect(response.status == .ok, "\(response.text)")
            last = try response.json()
            if let progress = last["progress"] as? Double { progressSeen.append(progress) }
            return done(last)
        }
        #expect(progressSeen == progressSeen.sorted(), "progress never goes back: \(progressSeen)")
        #expect(progressSeen.allSatisfy { (0...1).contains($0) })
        return last
    }

    @Test func anExportCompletesAndItsOutputIsTheRequestedPart() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let inspected = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("av.mp4"))
            let upload = try #require(try inspected.json()["uploadID"] as? String)

            let started = try await client.execute(uri: "/export", method: .post, headers: [.contentType: "application/json"], body: try body([
                "source": upload, "preset": "AVAssetExportPresetLowQuality", "fileType": "mp4", "from": 0, "to": 1.5,
            ]))
            #expect(started.status == .accepted, "\(started.text)")
            let id = try #require(try started.json()["id"] as? String)
            #expect(started.headers[.location] == "/jobs/\(id)")

            let final = try await poll(client, id) { ($0["status"] as? String).map { ["completed", "failed", "cancelled"].contains($0) } ?? false }
            #expect(final["status"] as? String == "completed", "\(final)")
            #expect(final["progress"] as? Double == 1.0, "progress reaches 1: \(final)")
            #expect(final["error"] is NSNull, "\(final)")

            let output = try await client.execute(uri: "/jobs/\(id)/output", method: .get)
            #expect(output.status == .ok, "\(output.text.prefix(200))")
            #expect(output.headers[.contentType] == "video/mp4")
            #expect(output.body.readableBytes > 1000 && output.body.readableBytes == final["outputBytes"] as? Int)
            let file = environment.root.appendingPathComponent("downloaded.mp4")
            try Data(output.body.readableBytesView).write(to: file)
            let asset = AVURLAsset(url: file)
            let (duration, tracks) = try await asset.load(.duration, .tracks)
            #expect(abs(duration.seconds - 1.5) < 0.1, "the exported part is 1.5 s: \(duration.seconds)")
            let video = try #require(tracks.first { $0.mediaType == .video })
            let size = try await video.load(.naturalSize)
            #expect(size.width <= 224 && size.height <= 168, "the low-quality preset's size: \(size)")

            // A finished job is removed with its output.
            #expect(try await client.execute(uri: "/jobs/\(id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/jobs/\(id)", method: .get).status == .notFound)
        }
    }

    @Test func anExportOfAFileInTheMediaDirectoryWithPassthroughToMatroska() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let started = try await client.execute(uri: "/export", method: .post, body: try body([
                "source": "frames-h264.mp4", "preset": "AVAssetExportPresetPassthrough", "fileType": "mkv", "from": 1,
            ]))
            #expect(started.status == .accepted, "\(started.text)")
            let id = try #require(try started.json()["id"] as? String)
            let final = try await poll(client, id) { $0["status"] as? String == "completed" || $0["status"] as? String == "failed" }
            #expect(final["status"] as? String == "completed", "\(final)")
            let output = try await client.execute(uri: "/jobs/\(id)/output", method: .get)
            #expect(output.status == .ok)
            #expect(output.headers[.contentType] == "video/x-matroska")
        }
    }

    /// A slow source keeps the job running; DELETE cancels it, and then its output is not available.
    @Test func anExportIsCancelled() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }  // the fixture server is on loopback
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await environment.withServer { client in
                let id = try await startSlowExport(client, from: base)
                let running = try await client.execute(uri: "/jobs/\(id)", method: .get)
                let status = try running.json()["status"] as? String
                #expect(status == "waiting" || status == "exporting", "\(running.text)")

                let output = try await client.execute(uri: "/jobs/\(id)/output", method: .get)
                #expect(output.status == .conflict, "no output while running: \(output.text)")
                #expect(output.errorMessage != nil)

                let cancelled = try await client.execute(uri: "/jobs/\(id)", method: .delete)
                #expect(cancelled.status == .ok, "\(cancelled.text)")
                #expect(try cancelled.json()["status"] as? String == "cancelled", "\(cancelled.text)")
                let after = try await client.execute(uri: "/jobs/\(id)", method: .get)
                #expect(try after.json()["status"] as? String == "cancelled")
                #expect(try await client.execute(uri: "/jobs/\(id)/output", method: .get).status == .conflict)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
                #expect(leftovers.isEmpty, "the partial output is removed: \(leftovers)")
            }
        }
    }

    /// An export of a remote source stops at `remoteExportTimeout` and fails with the reason; its
    /// partial output is removed.
    @Test func aRemoteExportThatTakesTooLongFails() async throws {
        let environment = try TestEnvironment {
            $0.allowsPrivateNetworks = true  // the fixture server is on loopback
            $0.remoteExportTimeout = 1
        }
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await environment.withServer { client in
                let id = try await startSlowExport(client, from: base)
                let ended = try await poll(client, id, seconds: 30) { ($0["status"] as? String).map { ["completed", "failed", "cancelled"].contains($0) } ?? false }
                #expect(ended["status"] as? String == "failed", "\(ended)")
                #expect((ended["error"] as? String)?.contains("took longer than 1 s") == true, "\(ended)")
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
                #expect(leftovers.isEmpty, "the partial output is removed: \(leftovers)")
            }
        }
    }

    /// With one job allowed, a second while the first runs is refused with 429 (not queued), and
    /// accepted again once the first has ended.
    @Test func theConcurrentJobLimitAnswers429() async throws {
        let environment = try TestEnvironment {
            $0.maxConcurrentExports = 1
            $0.allowsPrivateNetworks = true
        }
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await environment.withServer { client in
                let id = try await startSlowExport(client, from: base)

                let refused = try await client.execute(uri: "/export", method: .post, body: try body([
                    "source": "av.mp4", "preset": "AVAssetExportPresetLowQuality",
                ]))
                #expect(refused.status == .tooManyRequests, "\(refused.text)")
                #expect(refused.headers[.retryAfter] != nil)
                #expect(refused.errorMessage != nil)

                _ = try await client.execute(uri: "/jobs/\(id)", method: .delete)
                let accepted = try await client.execute(uri: "/export", method: .post, body: try body([
                    "source": "av.mp4", "preset": "AVAssetExportPresetLowQuality",
                ]))
                #expect(accepted.status == .accepted, "a slot is free again: \(accepted.text)")
            }
        }
    }

    @Test(arguments: [
        ("not json", "not"),
        ("[]", "JSON object"),
        (#"{"preset": "AVAssetExportPresetLowQuality"}"#, "source"),
        (#"{"source": "av.mp4"}"#, "preset"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetPotato"}"#, "Unknown preset"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "fileType": "gif"}"#, "Unknown fileType"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "from": -1}"#, "from"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "from": 1, "to": 1}"#, "to"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "from": "zero"}"#, "from"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "from": 5}"#, "before the end"),
        (#"{"source": "frames-h264.mp4", "preset": "AVAssetExportPresetAppleM4A"}"#, "cannot export"),
        (#"{"source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "fileType": "m4a"}"#, "cannot export"),
        (#"{"source": "ftp://example.com/a.mp4", "preset": "AVAssetExportPresetLowQuality"}"#, "scheme"),
    ])
    func badExportRequestsAre400(json: String, expected: String) async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/export", method: .post, body: ByteBuffer(string: json))
            #expect(response.status == .badRequest, "\(json): \(response.status) \(response.text)")
            let message = try #require(response.errorMessage, "\(json): \(response.text)")
            #expect(message.contains(expected), "\(json): \(message)")
        }
    }

    @Test func exportSourcesAreCheckedLikeThumbnails() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let escaping = try await client.execute(uri: "/export", method: .post, body: try body([
                "source": "../outside/secret.mp4", "preset": "AVAssetExportPresetPassthrough",
            ]))
            #expect(escaping.status == .forbidden, "\(escaping.text)")
            let bad = try await client.execute(uri: "/export", method: .post, body: try body([
                "source": "not-media.mp4", "preset": "AVAssetExportPresetPassthrough",
            ]))
            #expect(bad.status == .unprocessableContent, "\(bad.text)")
            let large = try await client.execute(uri: "/export", method: .post,
                                                 body: ByteBuffer(string: "{\"source\": \"" + String(repeating: "a", count: 20_000) + "\"}"))
            #expect(large.status == .contentTooLarge, "\(large.text)")
        }
    }

    @Test func unknownJobsAre404() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            for (uri, method) in [("/jobs/nope", HTTPRequest.Method.get), ("/jobs/\(UUID().uuidString)", .get),
                                  ("/jobs/nope/output", .get), ("/jobs/nope", .delete)] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == .notFound, "\(method) \(uri): \(response.text)")
                #expect(response.errorMessage != nil, "\(method) \(uri): \(response.text)")
            }
            let route = try await client.execute(uri: "/no/such/route", method: .get)
            #expect(route.status == .notFound)
            #expect(route.errorMessage != nil, "even Hummingbird's own 404 is JSON: \(route.text)")
        }
    }

    @Test func healthAnswers() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(try response.json()["status"] as? String == "ok")
        }
    }
}
