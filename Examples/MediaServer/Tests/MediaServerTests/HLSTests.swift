import AVFoundation
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /hls` and `GET /hls/{id}/...`: an HLS packaging job whose renditions play in Avocet's own
/// HLS reading and in ffprobe; bad requests; paths that lead nowhere; cancellation.
@Suite("HLS packaging")
struct HLSTests {
    static func json(_ object: [String: Any]) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))
    }

    /// Submits a packaging through `client` and waits for it to finish; its id and final report.
    static func package(_ client: any TestClientProtocol, _ body: [String: Any], seconds: Double = 90) async throws -> (String, [String: Any]) {
        let started = try await client.execute(uri: "/hls", method: .post, body: try json(body))
        #expect(started.status == .accepted, "\(started.text)")
        let id = try #require(try started.json()["id"] as? String)
        var report: [String: Any] = [:]
        try await until("HLS job \(id) to finish", seconds: seconds) {
            report = try await client.execute(uri: "/jobs/\(id)", method: .get).json()
            return ["completed", "failed", "cancelled"].contains(report["status"] as? String ?? "")
        }
        return (id, report)
    }

    /// ffprobe's duration of `url`, in seconds (nil when it cannot read it).
    static func ffprobeDuration(_ url: String) throws -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func aMovieIsPackagedInTwoSizesAndPlaysInAvocetAndFFprobe() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            // 480 is above the source's 240 lines: dropped, never upscaled.
            let (id, report) = try await Self.package(client, ["source": "av.mp4", "heights": [240, 144, 480], "segmentSeconds": 1])
            #expect(report["status"] as? String == "completed", "\(report)")
            #expect(report["kind"] as? String == "hls")
            #expect(report["playlist"] as? String == "/hls/\(id)/index.m3u8")
            #expect((report["outputBytes"] as? Int ?? 0) > 10_000)

            let master = try await client.execute(uri: "/hls/\(id)/index.m3u8", method: .get)
            #expect(master.status == .ok)
            #expect(master.headers[.contentType] == "application/vnd.apple.mpegurl")
            let lines = master.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("144p/index.m3u8") && lines.contains("240p/index.m3u8") && !lines.contains("480p/index.m3u8"), "\(master.text)")
            #expect(master.text.contains("RESOLUTION=192x144") && master.text.contains("RESOLUTION=320x240"), "\(master.text)")

            let media = try await client.execute(uri: "/hls/\(id)/240p/index.m3u8", method: .get)
            let segments = media.text.split(separator: "\n").filter { $0.hasSuffix(".m4s") }
            #expect(segments.count >= 2, "a 2 s movie in 1 s segments: \(media.text)")
            let initSegment = try await client.execute(uri: "/hls/\(id)/240p/init.mp4", method: .get)
            #expect(initSegment.status == .ok && initSegment.headers[.contentType] == "video/mp4")
            let first = try await client.execute(uri: "/hls/\(id)/240p/\(segments[0])", method: .get)
            #expect(first.status == .ok && first.headers[.contentType] == "video/iso.segment" && first.body.readableBytes > 1000)

            // Avocet's own HLS reading, and ffprobe, over HTTP from this server.
            let port = try #require(client.port)
            let playlist = "http://127.0.0.1:\(port)/hls/\(id)/index.m3u8"
            let asset = AVURLAsset(url: try #require(URL(string: playlist)))
            let (duration, tracks) = try await asset.load(.duration, .tracks)
            #expect(abs(duration.seconds - 2) < 0.25, "\(duration.seconds)")
            #expect(tracks.contains { $0.mediaType == .video } && tracks.contains { $0.mediaType == .audio })
            let probed = try #require(try Self.ffprobeDuration(playlist))
            #expect(abs(probed - 2) < 0.25, "ffprobe: \(probed)")

            // An HLS job has no single output file; paths that lead out or to hidden files are not served.
            #expect(try await client.execute(uri: "/jobs/\(id)/output", method: .get).status == .conflict)
            for path in ["/hls/\(id)/..%2F..%2Fuploads", "/hls/\(id)/.hidden.m3u8", "/hls/\(id)/240p/../../x.m3u8",
                         "/hls/\(id)/index.txt", "/hls/not-a-job/index.m3u8", "/hls/\(id)/360p/index.m3u8"] {
                #expect(try await client.execute(uri: path, method: .get).status == .notFound, "\(path)")
            }

            #expect(try await client.execute(uri: "/jobs/\(id)", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/hls/\(id)/index.m3u8", method: .get).status == .notFound)
            let left = try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path)
            #expect(left.isEmpty, "the packaging's directory is removed with its job: \(left)")
        }
    }

    @Test func soundAloneIsOneAudioRendition() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let (id, report) = try await Self.package(client, ["source": "tone.wav"])
            #expect(report["status"] as? String == "completed", "\(report)")
            let master = try await client.execute(uri: "/hls/\(id)/index.m3u8", method: .get).text
            #expect(master.contains("audio/index.m3u8") && !master.contains("RESOLUTION"), "\(master)")
        }
    }

    @Test func badRequestsAreRefusedWithTheReason() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            for (body, mention) in [
                (["heights": [360]] as [String: Any], "source"),
                (["source": "av.mp4", "heights": [100]], "height"),
                (["source": "av.mp4", "heights": [144, 240, 360, 480, 720]], "At most"),
                (["source": "av.mp4", "segmentSeconds": 0.5], "segmentSeconds"),
                (["source": "../outside/secret.mp4"], "outside"),
            ] {
                let answer = try await client.execute(uri: "/hls", method: .post, body: try Self.json(body))
                #expect(answer.status == .badRequest || answer.status == .forbidden, "\(body): \(answer.text)")
                #expect(answer.errorMessage?.contains(mention) == true, "\(body): \(answer.text)")
            }
            let notMedia = try await client.execute(uri: "/hls", method: .post, body: try Self.json(["source": "not-media.mp4"]))
            #expect(notMedia.status == .unprocessableContent, "\(notMedia.text)")
        }
    }

    @Test func aPackagingIsCancelledAndLeavesNothing() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }  // the fixture server is on loopback
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await environment.withServer { client in
                let started = try await client.execute(uri: "/hls", method: .post, body: try Self.json(["source": "\(base)/slow/av.mp4"]))
                let id = try #require(try started.json()["id"] as? String)
                // Mid-way: the pumps are running (the source's first 64 KiB come at once, then slowly).
                try await until("the packaging to make progress", seconds: 30) {
                    (try await client.execute(uri: "/jobs/\(id)", method: .get).json()["progress"] as? Double ?? 0) > 0
                }
                let cancelled = try await client.execute(uri: "/jobs/\(id)", method: .delete)
                #expect(try cancelled.json()["status"] as? String == "cancelled", "\(cancelled.text)")
                try await until("the partial directory to be removed") {
                    try FileManager.default.contentsOfDirectory(atPath: environment.configuration.exportDirectory.path).isEmpty
                }
                #expect(try await client.execute(uri: "/hls/\(id)/index.m3u8", method: .get).status == .notFound)
            }
        }
    }
}
