import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// Assets over HTTP from a loopback server: range requests, redirects, headers, and every way a server
/// fails, each ending in a clear error within a bounded time.
@Suite("HTTP assets")
struct HTTPAssetTests {
    static var quick: [String: Any] { [AvocetURLAssetHTTPConnectTimeoutKey: TestTiming.scale, AvocetURLAssetHTTPReadTimeoutKey: TestTiming.scale] }
    /// For tests of what a server answers (not of timeouts): room for a loaded two-core machine.
    static var patient: [String: Any] { [AvocetURLAssetHTTPConnectTimeoutKey: 4 * TestTiming.scale, AvocetURLAssetHTTPReadTimeoutKey: 4 * TestTiming.scale] }

    func file(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }

    /// Loads `.duration` and returns the AVError it fails with, and how long that took.
    func failure(_ url: URL, options: [String: Any] = quick) async throws -> (AVError, Duration) {
        let start = ContinuousClock.now
        do {
            let duration = try await AVURLAsset(url: url, options: options).load(.duration)
            Issue.record("\(url): loaded \(duration.seconds) s, expected a failure")
            throw CancellationError()
        } catch let error as AVError {
            return (error, ContinuousClock.now - start)
        }
    }

    func underlying(_ error: AVError) -> NSError? { (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError }

    @Test func theMovieAtTheEndIsFoundWithRangeRequests() async throws {
        let server = try LoopbackHTTPServer(routes: ["/m.mp4": .file(file("moov-at-end.mp4"))])
        let (duration, tracks) = try await AVURLAsset(url: server.url("/m.mp4")).load(.duration, .tracks)
        let (fileDuration, fileTracks) = try await AVURLAsset(url: file("moov-at-end.mp4")).load(.duration, .tracks)
        #expect(duration == fileDuration)
        #expect(tracks.map(\.mediaType) == fileTracks.map(\.mediaType))
        #expect(server.requests.allSatisfy { $0.headers["range"]?.hasPrefix("bytes=") == true }, "every request asks for a range")
    }

    @Test func redirectsAreFollowed() async throws {
        let server = try LoopbackHTTPServer(routes: ["/old.mkv": .redirect(to: "/new.mkv"), "/new.mkv": .file(file("multi.mkv"))])
        let tracks = try await AVURLAsset(url: server.url("/old.mkv")).load(.tracks)
        #expect(tracks.count == (try await AVURLAsset(url: file("multi.mkv")).load(.tracks)).count)
        #expect(server.requests.contains { $0.path == "/new.mkv" })
    }

    @Test func headerFieldsGoWithEveryRequest() async throws {
        let server = try LoopbackHTTPServer(routes: [
            "/private.mp4": .requireHeader("authorization", "Bearer secret", .file(file("av.mp4"))),
        ])
        let (denied, _) = try await failure(server.url("/private.mp4"), options: Self.patient)
        #expect(denied.code == .failedToLoadMediaData)
        #expect(denied.localizedDescription.contains("403"))
        let asset = AVURLAsset(url: server.url("/private.mp4"),
                               options: [AVURLAssetHTTPHeaderFieldsKey: ["Authorization": "Bearer secret"],
                                         AVURLAssetHTTPUserAgentKey: "AvocetTests/1"])
        #expect(try await asset.load(.duration).seconds > 0)
        #expect(server.requests.last?.headers["user-agent"] == "AvocetTests/1")
    }

    @Test func aServerWithoutRangesStillServesAFile() async throws {
        let server = try LoopbackHTTPServer(routes: ["/a.flac": .noRanges(file("tagged.flac"))])
        let tracks = try await AVURLAsset(url: server.url("/a.flac")).load(.tracks)
        #expect(tracks.map(\.mediaType) == [.audio])
    }

    @Test(arguments: [404, 500])
    func anErrorStatusFailsClearly(_ status: Int) async throws {
        let server = try LoopbackHTTPServer(routes: ["/x.mp4": .status(status)])
        let (error, elapsed) = try await failure(server.url("/x.mp4"), options: Self.patient)
        #expect(error.code == .failedToLoadMediaData)
        #expect(error.localizedDescription.contains("\(status)"))
        #expect(error.localizedDescription.contains(server.url("/x.mp4").absoluteString))
        #expect(underlying(error)?.domain == NSURLErrorDomain)
        #expect(elapsed < TestTiming.bound(10), "promptly, not after a 30 s read timeout: \(elapsed)")
    }

    @Test func aRefusedConnectionFailsClearly() async throws {
        // A bound port that never listens, rather than a stopped server's: another test's server may
        // take a port let go (a clean-clone CI run saw this test reach some other listener).
        let port = try RefusingPort()
        let url = port.url("/gone.mp4")
        let (error, elapsed) = try await failure(url)
        #expect(error.code == .failedToLoadMediaData)
        #expect(error.localizedDescription.contains("refused") || underlying(error)?.code == NSURLErrorCannotConnectToHost)
        #expect(elapsed < TestTiming.bound(10), "promptly, not after a 30 s read timeout: \(elapsed)")
        withExtendedLifetime(port) {}
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let server = try LoopbackHTTPServer(routes: ["/hang.mp4": .hang])
        let (error, elapsed) = try await failure(server.url("/hang.mp4"))
        #expect(error.code == .failedToLoadMediaData)
        #expect(["did not answer", "no data arrived"].contains { error.localizedDescription.contains($0) }, "\(error)")
        #expect(elapsed < TestTiming.bound(10), "a 1 s connect timeout, not a 30 s hang: \(elapsed)")
    }

    @Test func aServerThatClosesMidBodyFailsClearly() async throws {
        let server = try LoopbackHTTPServer(routes: ["/cut.mp4": .closeMidBody(file("av.mp4"), afterBytes: 3000)])
        let (error, elapsed) = try await failure(server.url("/cut.mp4"))
        #expect([.failedToLoadMediaData, .fileFailedToParse].contains(error.code), "\(error)")
        #expect(elapsed < TestTiming.bound(10), "promptly, not after a 30 s read timeout: \(elapsed)")
    }

    @Test func cancellingALoadFromAHungServerEndsItAtOnce() async throws {
        let server = try LoopbackHTTPServer(routes: ["/hang.mp4": .hang])
        let asset = AVURLAsset(url: server.url("/hang.mp4"))
        let load = Task { try await asset.load(.duration) }
        await until("the request at the hung server") { server.requests.count >= 1 }
        let start = ContinuousClock.now
        load.cancel()
        await #expect(throws: (any Error).self) { try await load.value }
        #expect(ContinuousClock.now - start < TestTiming.bound(10), "not when the read timeout gives up")
    }

    /// TLS is libcurl's: a server whose certificate nobody vouches for (self-signed, made here with the
    /// openssl command) fails the load with the reason, at once, and no byte of it is used.
    @Test func anUntrustedCertificateFailsClearly() async throws {
        let openssl = ["/usr/bin/openssl", "/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let openssl else {
            Issue.record("the openssl command is missing (ca-certificates brings it)")
            return
        }
        let directory = try Fixtures.temporaryDirectory()
        let key = directory.appendingPathComponent("key.pem").path, cert = directory.appendingPathComponent("cert.pem").path
        let made = try await ChildProcess.run(URL(fileURLWithPath: openssl), [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], timeout: 30 * TestTiming.scale)
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.copyItem(atPath: Fixtures.path("av.mp4"), toPath: directory.appendingPathComponent("av.mp4").path)
        // A free port: the kernel picks one for a server that then closes; openssl takes it over.
        let probe = try LoopbackHTTPServer(routes: [:])
        let port = probe.port
        probe.stop()
        let url = try #require(URL(string: "https://127.0.0.1:\(port)/av.mp4"))
        let arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-WWW", "-quiet"]
        let (error, elapsed) = try await ChildProcess.whileRunning(URL(fileURLWithPath: openssl), arguments, in: directory) {
            // The server listens once a connection to its port is taken.
            await until("openssl s_server listening on port \(port)") { Self.accepts(port: port) }
            // Room for the TLS handshake of a loaded machine (the quick 1 s read timeout once ran out
            // during it); the certificate error itself comes as soon as the handshake does.
            return try await failure(url, options: Self.patient)
        }
        #expect(error.code == .failedToLoadMediaData)
        #expect(error.localizedDescription.lowercased().contains("certificate"), "\(error.localizedDescription)")
        #expect(elapsed < TestTiming.bound(10), "promptly, not after a 30 s read timeout: \(elapsed)")
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted (it is closed at once).
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
