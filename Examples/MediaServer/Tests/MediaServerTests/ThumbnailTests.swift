import AVFoundation
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

/// `GET /thumbnail`: pictures from uploads, http URLs and the media directory; bad arguments, paths
/// escaping the media directory and unreachable servers answered with JSON errors.
@Suite("GET /thumbnail")
struct ThumbnailTests {
    /// Decodes a JPEG answer with Avocet's decoder.
    private func image(_ response: TestResponse) throws -> CGImage {
        #expect(response.headers[.contentType] == "image/jpeg")
        let data = Data(response.body.readableBytesView)
        #expect(data.starts(with: [0xFF, 0xD8, 0xFF]), "a JPEG file")
        return try CGImage.decoded(from: data)
    }

    @Test func aThumbnailOfAnUploadAtMostWPixelsWide() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let inspected = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("frames-h264.mp4"))
            let id = try #require(try inspected.json()["uploadID"] as? String)
            let response = try await client.execute(uri: "/thumbnail?url=\(id)&t=2&w=160", method: .get)
            #expect(response.status == .ok, "\(response.text)")
            let picture = try image(response)
            #expect(picture.width == 160 && picture.height == 120, "\(picture.width)x\(picture.height)")
            let actualTime = try #require(HTTPField.Name("X-Actual-Time"))
            #expect(response.headers[actualTime] == "2.000000", "a keyframe sits at 2 s")

            let full = try await client.execute(uri: "/thumbnail?url=\(id.uppercased())", method: .get)
            #expect(full.status == .ok, "upload ids are case-insensitive: \(full.text)")
            #expect(try image(full).width == 320, "no w: the video's own size")
        }
    }

    /// The default tolerance (1 s each side) takes the nearest keyframe; `exact=1` the picture showing.
    @Test func toleranceAndExact() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let name = try #require(HTTPField.Name("X-Actual-Time"))
            let near = try await client.execute(uri: "/thumbnail?url=frames-h264.mp4&t=1.48", method: .get)
            #expect(near.status == .ok, "\(near.text)")
            #expect(near.headers[name] == "1.000000", "the keyframe nearest 1.48 s (one per second): \(near.headers[name] ?? "-")")
            let exact = try await client.execute(uri: "/thumbnail?url=frames-h264.mp4&t=1.48&exact=1", method: .get)
            #expect(exact.status == .ok, "\(exact.text)")
            #expect(exact.headers[name] == "1.480000", "frame 37 starts at 1.48 s: \(exact.headers[name] ?? "-")")
        }
    }

    @Test func aFileInTheMediaDirectoryByRelativePathAbsolutePathFileURLAndInsideLink() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        let media = try #require(environment.configuration.mediaDirectory)
        try await environment.withServer { client in
            // A portrait phone movie comes out upright: 160 wide, taller than wide.
            let portrait = try await client.execute(uri: "/thumbnail?url=clips/iphone.mov&w=160", method: .get)
            #expect(portrait.status == .ok, "\(portrait.text)")
            let picture = try image(portrait)
            #expect(picture.width == 160 && picture.height == 284, "\(picture.width)x\(picture.height)")

            for value in [media.appendingPathComponent("av.mp4").path, "file://" + media.appendingPathComponent("av.mp4").path, "alias.mp4", "./clips/../av.mp4"] {
                let response = try await client.execute(uri: "/thumbnail?url=\(value.queryEscaped)&t=0.5&w=64", method: .get)
                #expect(response.status == .ok, "\(value): \(response.text)")
            }
        }
    }

    @Test func aThumbnailOfAnHTTPURLFetchedByAvocet() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }  // its servers are on loopback
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await environment.withServer { client in
                let url = "\(base)/files/frames-h264.mp4"
                let response = try await client.execute(uri: "/thumbnail?url=\(url.queryEscaped)&t=3&w=100", method: .get)
                #expect(response.status == .ok, "\(response.text)")
                let picture = try image(response)
                #expect(picture.width == 100 && picture.height == 75)

                let missing = try await client.execute(uri: "/thumbnail?url=\("\(base)/files/none.mp4".queryEscaped)", method: .get)
                #expect(missing.status == .badGateway, "the remote server said 404: \(missing.text)")
                #expect(missing.errorMessage != nil)
            }
        }
    }

    @Test(arguments: [
        ("", "url argument is missing"),
        ("url=", "url argument is missing"),
        ("url=av.mp4&t=-1", "t argument"),
        ("url=av.mp4&t=nan", "t argument"),
        ("url=av.mp4&t=NaN", "t argument"),
        ("url=av.mp4&t=inf", "t argument"),
        ("url=av.mp4&t=1e999", "t argument"),
        ("url=av.mp4&t=abc", "t argument"),
        ("url=av.mp4&w=0", "w argument"),
        ("url=av.mp4&w=-5", "w argument"),
        ("url=av.mp4&w=8193", "w argument"),
        ("url=av.mp4&w=1.5", "w argument"),
        ("url=av.mp4&w=abc", "w argument"),
        ("url=av.mp4&w=", "w argument"),
        ("url=av.mp4&w=99999999999999999999", "w argument"),
        ("url=av.mp4&exact=maybe", "exact argument"),
        ("url=ftp%3A%2F%2Fexample.com%2Fa.mp4", "scheme ftp:"),
        ("url=gopher%3A%2F%2Fx", "scheme gopher:"),
        ("url=data%3Avideo%2Fmp4%3Bbase64%2CAAAA", "scheme data:"),
        ("url=http%3A%2F%2F", "malformed"),
        ("url=media%2F%00x", "NUL"),
    ])
    func badArgumentsAre400WithAJSONError(query: String, expected: String) async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/thumbnail?\(query)", method: .get)
            #expect(response.status == .badRequest, "\(query): \(response.status) \(response.text)")
            let message = try #require(response.errorMessage, "\(query): a JSON error: \(response.text)")
            #expect(message.contains(expected), "\(query): \(message)")
        }
    }

    @Test func pathsEscapingTheMediaDirectoryAre403() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        let outside = environment.outsideFile.path
        try await environment.withServer { client in
            for value in ["../outside/secret.mp4", "clips/../../outside/secret.mp4", outside, "file://" + outside, "file:///etc/passwd",
                          "/etc/passwd", "escape.mp4", "../../../../../../etc/passwd", "/"] {
                let response = try await client.execute(uri: "/thumbnail?url=\(value.queryEscaped)", method: .get)
                #expect(response.status == .forbidden, "\(value): \(response.status) \(response.text)")
                let message = try #require(response.errorMessage, "\(value): \(response.text)")
                #expect(message.contains("outside the media directory"), "\(value): \(message)")
            }
        }
    }

    @Test func namesOfNothingAre404AndADirectoryIs400() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let missing = try await client.execute(uri: "/thumbnail?url=missing.mp4", method: .get)
            #expect(missing.status == .notFound, "\(missing.text)")
            let upload = try await client.execute(uri: "/thumbnail?url=\(UUID().uuidString)", method: .get)
            #expect(upload.status == .notFound, "an unknown upload id: \(upload.text)")
            let directory = try await client.execute(uri: "/thumbnail?url=clips", method: .get)
            #expect(directory.status == .badRequest, "\(directory.text)")
        }
    }

    @Test func badMediaAndNoPictureAre422() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            for (query, reason) in [("url=not-media.mp4", "not a media file"), ("url=tone.wav", "no video"), ("url=av.mp4&t=100", "no picture")] {
                let response = try await client.execute(uri: "/thumbnail?\(query)", method: .get)
                #expect(response.status == .unprocessableContent, "\(query): \(response.text)")
                let message = try #require(response.errorMessage)
                #expect(message.lowercased().contains(reason), "\(query): \(message)")
                #expect(!message.contains(environment.root.path), "no server path: \(message)")
            }
        }
    }

    @Test func noMediaDirectoryMeansNoPaths() async throws {
        let environment = try TestEnvironment { $0.mediaDirectory = nil }
        defer { environment.remove() }
        try await environment.withServer { client in
            let response = try await client.execute(uri: "/thumbnail?url=av.mp4", method: .get)
            #expect(response.status == .forbidden, "\(response.text)")
        }
    }

    /// Avocet reads an http(s) URL ending in .m3u8 as a playlist and would fetch what it names: refused
    /// before anything is fetched. A playlist served under a movie's name is refused by Avocet itself.
    @Test func playlistsOverHTTPAreRefusedAndNothingTheyNameIsFetched() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }  // its servers are on loopback
        defer { environment.remove() }
        let fixtures = FixtureHTTPServer()
        try await fixtures.run { base in
            try await environment.withServer { client in
                let m3u8 = try await client.execute(uri: "/thumbnail?url=\("\(base)/list.m3u8".queryEscaped)", method: .get)
                #expect(m3u8.status == .badRequest, "\(m3u8.text)")
                #expect(m3u8.errorMessage?.contains("playlist") == true)

                let disguised = try await client.execute(uri: "/thumbnail?url=\("\(base)/disguised.mp4".queryEscaped)", method: .get)
                #expect(disguised.status == .unprocessableContent, "\(disguised.text)")
                #expect(disguised.errorMessage != nil)
            }
            // A negative check, after the answers: the work on both URLs has ended.
            #expect(fixtures.forbiddenHits == 0, "nothing a playlist names was fetched")
        }
    }

    @Test func remoteURLsCanBeTurnedOffOrLimitedToHosts() async throws {
        let off = try TestEnvironment { $0.allowsRemoteURLs = false }
        defer { off.remove() }
        try await off.withServer { client in
            let response = try await client.execute(uri: "/thumbnail?url=\("http://localhost:1/a.mp4".queryEscaped)", method: .get)
            #expect(response.status == .forbidden, "\(response.text)")
        }
        let limited = try TestEnvironment { $0.allowedRemoteHosts = ["media.example"] }
        defer { limited.remove() }
        try await limited.withServer { client in
            let response = try await client.execute(uri: "/thumbnail?url=\("http://localhost:1/a.mp4".queryEscaped)", method: .get)
            #expect(response.status == .forbidden, "\(response.text)")
            #expect(response.errorMessage?.contains("localhost") == true)
        }
    }

    /// An unreachable server is an error within a bounded time, never a hang: a refused connection at
    /// once, a server that accepts and never answers after Avocet's timeouts (2 s here).
    @Test func anUnreachableURLIsAJSONErrorWithinBoundedTime() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }  // its servers are on loopback
        defer { environment.remove() }
        let silent = try SilentListener()
        try await environment.withServer { client in
            for url in ["http://127.0.0.1:1/clip.mp4", "http://127.0.0.1:\(silent.port)/clip.mp4"] {
                let started = Date()
                let response = try await client.execute(uri: "/thumbnail?url=\(url.queryEscaped)", method: .get)
                let elapsed = Date().timeIntervalSince(started)
                #expect((400..<600).contains(response.status.code), "\(url): \(response.status)")
                #expect(response.errorMessage != nil, "\(url): a JSON error: \(response.text)")
                #expect(elapsed < 12 * testTimeScale, "\(url): answered after \(elapsed) s")
            }
        }
    }

    @Test func theServersDeadlineCancelsSlowWork() async throws {
        let environment = try TestEnvironment {
            $0.mediaWorkTimeout = 1
            $0.allowsPrivateNetworks = true
            $0.remoteConnectTimeout = 30
            $0.remoteReadTimeout = 30
        }
        defer { environment.remove() }
        let silent = try SilentListener()
        try await environment.withServer { client in
            let started = Date()
            let response = try await client.execute(uri: "/thumbnail?url=\("http://127.0.0.1:\(silent.port)/clip.mp4".queryEscaped)", method: .get)
            #expect(response.status == .gatewayTimeout, "\(response.text)")
            #expect(response.errorMessage != nil)
            #expect(Date().timeIntervalSince(started) < 8 * testTimeScale)
        }
    }
}
