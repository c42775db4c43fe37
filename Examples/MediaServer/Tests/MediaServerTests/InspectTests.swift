import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `POST /inspect`: uploads streamed to disk, Avocet's facts back, and every kind of bad upload
/// refused with a JSON error and no file left behind.
@Suite("POST /inspect")
struct InspectTests {
    @Test func aMovieUploadIsAnsweredWithItsFactsAndKeptForLater() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/inspect", method: .post, headers: [.contentType: "video/mp4"],
                                                    body: try Fixtures.buffer("av.mp4"))
            #expect(response.status == .ok, "\(response.text)")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let json = try response.json()
            // Fixtures/facts.json: av.mp4 is 2 s, H.264 320x240 at 25 fps and AAC, titled "Avocet Test Pattern".
            #expect(json["duration"] as? Double == 2.0)
            #expect(json["size"] as? Int == 119_619)
            let tracks = try #require(json["tracks"] as? [[String: Any]])
            #expect(tracks.count == 2)
            let video = try #require(tracks.first { $0["mediaType"] as? String == "vide" })
            #expect(video["codec"] as? String == "avc1")
            let size = try #require(video["naturalSize"] as? [String: Any])
            #expect(size["width"] as? Double == 320 && size["height"] as? Double == 240)
            #expect(video["nominalFrameRate"] as? Double == 25)
            #expect((video["estimatedDataRate"] as? Double ?? 0) > 0)
            let range = try #require(video["timeRange"] as? [String: Any])
            #expect(range["start"] as? Double == 0 && range["duration"] as? Double == 2)
            let audio = try #require(tracks.first { $0["mediaType"] as? String == "soun" })
            #expect(audio["codec"] as? String == "aac")
            let metadata = try #require(json["metadata"] as? [[String: Any]])
            #expect(metadata.contains { $0["key"] as? String == "title" && $0["value"] as? String == "Avocet Test Pattern" })
            #expect(metadata.contains { $0["key"] as? String == "artwork" && $0["bytes"] as? Int == 1687 })

            let id = try #require(json["uploadID"] as? String)
            #expect(try environment.uploadFiles() == ["\(id).upload"], "the upload stays on disk under its id")
            let stored = try Data(contentsOf: environment.uploads.appendingPathComponent("\(id).upload"))
            #expect(stored == (try Fixtures.data("av.mp4")), "the stored file is the upload, byte for byte")

            // Removing it.
            #expect(try await client.execute(uri: "/uploads/\(id)", method: .delete).status == .noContent)
            #expect(try environment.uploadFiles().isEmpty)
            #expect(try await client.execute(uri: "/uploads/\(id)", method: .delete).status == .notFound)
        }
    }

    @Test(arguments: [
        ("not-media.mp4", "not a media file"),
        ("truncated.mp4", "truncated"),
        ("truncated-header.mp4", "truncated"),
    ])
    func badMediaIsRefusedWith422AndTheUploadIsDropped(fixture: String, reason: String) async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer(fixture))
            #expect(response.status == .unprocessableContent, "\(fixture): \(response.text)")
            let message = try #require(response.errorMessage, "a JSON error body: \(response.text)")
            #expect(message.contains(reason), "\(fixture): \(message)")
            #expect(message.contains("upload "), "the message names the upload: \(message)")
            #expect(!message.contains(environment.root.path), "no server path in the message: \(message)")
            #expect(try environment.uploadFiles().isEmpty, "a refused upload is not kept")
        }
    }

    @Test func anEmptyUploadIsRefusedWith422() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/inspect", method: .post, body: ByteBuffer())
            #expect(response.status == .unprocessableContent, "\(response.text)")
            #expect(response.errorMessage != nil)
        }
    }

    /// A file is only itself: a playlist or concat script uploaded as a movie is refused, and nothing it
    /// names is fetched (the fixture server counts requests for `/secret`).
    @Test(arguments: ["hls", "concat"])
    func aDisguisedPlaylistIsRefusedAndNothingItNamesIsFetched(kind: String) async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        let fixtures = FixtureHTTPServer()
        try await fixtures.run { base in
            let text = kind == "hls"
                ? "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n\(base)/secret\n#EXT-X-ENDLIST\n"
                : "ffconcat version 1.0\nfile '\(base)/secret'\nfile '/etc/passwd'\n"
            try await environment.withServer { client in
                let response = try await client.execute(uri: "/inspect", method: .post, headers: [.contentType: "video/mp4"],
                                                        body: ByteBuffer(string: text))
                #expect(response.status == .unprocessableContent, "\(kind): \(response.text)")
                let message = try #require(response.errorMessage)
                #expect(message.contains("not fetched") || message.contains("not a media file"), "\(message)")
                #expect(!message.contains("secret") && !message.contains("passwd"), "the message never repeats what the file names: \(message)")
                #expect(try environment.uploadFiles().isEmpty)
            }
            // A negative check, after the answer: the work on the file has ended, so nothing it
            // named can be fetched later; a slow machine can only make this pass, never fail.
            #expect(fixtures.forbiddenHits == 0, "\(kind): the server fetched what the playlist names")
        }
    }

    @Test func anUploadDeclaredTooLargeIs413AtOnceAndNothingIsKept() async throws {
        let environment = try TestEnvironment { $0.maxUploadBytes = 64 * 1024 }
        defer { environment.remove() }
        try await environment.withServer { client in
            let started = Date()
            let response = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("av.mp4"))
            #expect(response.status == .contentTooLarge, "\(response.text)")
            #expect(response.errorMessage?.contains("65536") == true, "\(response.text)")
            #expect(response.headers[.connection] == "close", "the connection is closed: the body was not read")
            #expect(Date().timeIntervalSince(started) < 5 * testTimeScale)
            #expect(try environment.uploadFiles().isEmpty, "no partial file")
        }
    }

    /// A chunked upload (no length given) is cut off once past the limit: 413 while the client is still
    /// sending, the partial file dropped, and the connection closed after a bounded linger.
    @Test func aStreamedUploadPastTheLimitIs413AndThePartialFileIsDropped() async throws {
        let environment = try TestEnvironment { $0.maxUploadBytes = 256 * 1024 }
        defer { environment.remove() }
        try await environment.withServer { client in
            let port = try #require(client.port)
            let chunk = Data(repeating: 0x41, count: 32 * 1024)
            let started = Date()
            let reply = try await RawHTTPClient.send(
                port: port,
                head: "POST /inspect HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked",
                chunks: Array(repeating: chunk, count: 64))   // 2 MiB, eight times the limit
            #expect(reply.status == 413, "\(reply.head)\n\(reply.body)")
            #expect(reply.body.contains("262144"), "\(reply.body)")
            #expect(Date().timeIntervalSince(started) < 8 * testTimeScale, "the connection is closed after the linger, not left open")
            #expect(try environment.uploadFiles().isEmpty, "the partial upload is dropped")

            // The server still serves others.
            let after = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("frames-h264.mp4"))
            #expect(after.status == .ok, "\(after.text)")
        }
    }

    /// `Expect: 100-continue` is answered at once within the limit, and not at all past it (413 instead,
    /// before any body is sent).
    @Test func expectContinue() async throws {
        let environment = try TestEnvironment { $0.maxUploadBytes = 256 * 1024 }
        defer { environment.remove() }
        try await environment.withServer { client in
            let port = try #require(client.port)
            let movie = try Fixtures.data("frames-h264.mp4")
            let accepted = try await RawHTTPClient.send(
                port: port,
                head: "POST /inspect HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: \(movie.count)",
                chunks: [movie], chunked: false)
            #expect(accepted.sawContinue && accepted.status == 200, "\(accepted.head)\n\(accepted.body)")

            let started = Date()
            let refused = try await RawHTTPClient.send(
                port: port,
                head: "POST /inspect HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 10000000",
                chunks: [], chunked: false)
            #expect(!refused.sawContinue && refused.status == 413, "\(refused.head)\n\(refused.body)")
            #expect(Date().timeIntervalSince(started) < 5 * testTimeScale, "the server closes the connection itself")
        }
    }

    @Test func onlyTheNewestUploadsAreKept() async throws {
        let environment = try TestEnvironment { $0.maxStoredUploads = 2 }
        defer { environment.remove() }
        try await environment.withServer { client in
            var ids: [String] = []
            for _ in 0..<3 {
                let response = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("frames-h264.mp4"))
                ids.append(try #require(try response.json()["uploadID"] as? String))
            }
            #expect(try environment.uploadFiles() == ids.dropFirst().map { "\($0).upload" }.sorted(), "the oldest upload's file is removed")
            let oldest = try await client.execute(uri: "/thumbnail?url=\(ids[0])", method: .get)
            #expect(oldest.status == .notFound, "\(oldest.text)")
            let newest = try await client.execute(uri: "/thumbnail?url=\(ids[2])", method: .get)
            #expect(newest.status == .ok)
        }
    }

    @Test func aStreamedUploadWithinTheLimitIsAccepted() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let port = try #require(client.port)
            let movie = try Fixtures.data("frames-h264.mp4")
            let chunks = stride(from: 0, to: movie.count, by: 1000).map { movie.subdata(in: $0..<min($0 + 1000, movie.count)) }
            let reply = try await RawHTTPClient.send(
                port: port,
                head: "POST /inspect HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nTransfer-Encoding: chunked",
                chunks: chunks)
            #expect(reply.status == 200, "\(reply.head)\n\(reply.body)")
            #expect(reply.body.contains("\"uploadID\""), "\(reply.body)")
            #expect(try environment.uploadFiles().count == 1)
        }
    }
}
