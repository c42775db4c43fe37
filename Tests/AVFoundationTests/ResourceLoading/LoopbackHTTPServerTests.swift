import FixtureSupport
import Foundation
import Locking
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The loopback HTTP server the network tests stand on: ranges, statuses, redirects and misbehaviour,
/// checked with URLSession (libcurl on Linux) as the client, and with a raw socket where URLSession
/// would hide what the server does (keep-alive, pipelining, header limits).
@Suite("Loopback HTTP server")
struct LoopbackHTTPServerTests {
    /// 10,000 bytes that differ from their neighbours, so a wrong offset shows.
    static let bytes = pattern(10_000) { $0 &* 31 &+ $0 >> 8 }

    /// `count` bytes, byte i being `value(i)` truncated: filled in place, as a debug build's `map` over a
    /// million elements would hold a thread of the cooperative pool for seconds.
    static func pattern(_ count: Int, _ value: (Int) -> Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for i in 0..<count { bytes[i] = UInt8(truncatingIfNeeded: value(i)) }
        }
        return data
    }

    /// A session of its own per test (no connection shared between tests), invalidated afterwards.
    private static func withSession<T>(_ body: (URLSession) async throws -> T) async rethrows -> T {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        return try await body(session)
    }

    private static func request(_ url: URL, method: String = "GET", headers: [String: String] = [:],
                                timeout: Double = 10) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    private static func fetch(_ request: URLRequest, in session: URLSession) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }

    /// A temporary file holding `data`, removed by `body`'s end.
    private static func withTemporaryFile<T>(_ data: Data, _ body: (URL) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-\(UUID().uuidString).bin")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(url)
    }

    @Test func servesDataWhole() async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes, contentType: "video/mp4")])
        defer { server.stop() }
        try await Self.withSession { session in
            let (data, response) = try await Self.fetch(Self.request(server.url("/data")), in: session)
            #expect(response.statusCode == 200)
            #expect(same(data, Self.bytes))
            #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "10000")
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "video/mp4")
        }
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
    }

    @Test(arguments: [
        ("bytes=100-199", 100..<200),
        ("bytes=9990-", 9990..<10_000),
        ("bytes=-16", 9984..<10_000),
        ("bytes=-20000", 0..<10_000),
        ("bytes=9000-20000", 9000..<10_000),
        ("bytes=0-0", 0..<1),
    ])
    func servesByteRanges(header: String, expected: Range<Int>) async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            let (data, response) = try await Self.fetch(Self.request(server.url("/data"), headers: ["Range": header]), in: session)
            #expect(response.statusCode == 206)
            #expect(same(data, Self.bytes.subdata(in: expected)))
            #expect(response.value(forHTTPHeaderField: "Content-Range")
                == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/10000")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "\(expected.count)")
        }
    }

    @Test(arguments: ["bytes=10000-", "bytes=20000-20010", "bytes=-0"])
    func unsatisfiableRangeIs416(header: String) async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            let (_, response) = try await Self.fetch(Self.request(server.url("/data"), headers: ["Range": header]), in: session)
            #expect(response.statusCode == 416)
            #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes */10000")
        }
    }

    @Test(arguments: ["bytes=abc", "bytes=5-2", "items=0-10", "bytes=0-1,5-6"])
    func malformedOrMultipleRangesGetTheWholeBody(header: String) async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            let (data, response) = try await Self.fetch(Self.request(server.url("/data"), headers: ["Range": header]), in: session)
            #expect(response.statusCode == 200)
            #expect(same(data, Self.bytes))
        }
    }

    @Test func headGivesHeadersWithoutBody() async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            let (data, response) = try await Self.fetch(Self.request(server.url("/data"), method: "HEAD"), in: session)
            #expect(response.statusCode == 200)
            #expect(data.isEmpty)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "10000")
            #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")

            let (ranged, partial) = try await Self.fetch(
                Self.request(server.url("/data"), method: "HEAD", headers: ["Range": "bytes=10-19"]), in: session)
            #expect(partial.statusCode == 206)
            #expect(ranged.isEmpty)
            #expect(partial.value(forHTTPHeaderField: "Content-Range") == "bytes 10-19/10000")
            #expect(partial.value(forHTTPHeaderField: "Content-Length") == "10")
            // The HEAD requests must not have left the connection out of step: a GET after them is whole.
            let (whole, _) = try await Self.fetch(Self.request(server.url("/data")), in: session)
            #expect(same(whole, Self.bytes))
        }
        #expect(server.requests.map(\.method) == ["HEAD", "HEAD", "GET"])
    }

    @Test func unknownPathIs404AndStatusRouteAnswersItsStatus() async throws {
        let server = try LoopbackHTTPServer(routes: ["/broken": .status(500), "/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            let (missingBody, missing) = try await Self.fetch(Self.request(server.url("/nothing-here")), in: session)
            #expect(missing.statusCode == 404)
            #expect(String(decoding: missingBody, as: UTF8.self) == "404 Not Found\n")
            let (_, broken) = try await Self.fetch(Self.request(server.url("/broken")), in: session)
            #expect(broken.statusCode == 500)
            // The query string is not part of the path matched.
            let (data, queried) = try await Self.fetch(Self.request(server.url("/data?token=1&x=2")), in: session)
            #expect(queried.statusCode == 200)
            #expect(same(data, Self.bytes))
        }
        #expect(server.requests.map(\.path) == ["/nothing-here", "/broken", "/data"])
        #expect(server.requests.last?.target == "/data?token=1&x=2")
    }

    @Test func redirectIsFollowedToTheData() async throws {
        let target = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { target.stop() }
        let server = try LoopbackHTTPServer(routes: [
            "/data": .data(Self.bytes),
            "/moved": .redirect(to: "/data"),
            "/gone-elsewhere": .redirect(to: target.url("/data").absoluteString, status: 307),
        ])
        defer { server.stop() }
        try await Self.withSession { session in
            let (data, response) = try await Self.fetch(Self.request(server.url("/moved")), in: session)
            #expect(response.statusCode == 200)
            #expect(same(data, Self.bytes))
            #expect(response.url == server.url("/data"))

            let (elsewhere, other) = try await Self.fetch(Self.request(server.url("/gone-elsewhere")), in: session)
            #expect(other.statusCode == 200)
            #expect(same(elsewhere, Self.bytes))
            #expect(other.url == target.url("/data"))
        }
        #expect(server.requests.map(\.path) == ["/moved", "/data", "/gone-elsewhere"])
        #expect(target.requests.map(\.path) == ["/data"])
    }

    @Test func hangingRouteEndsInAClientTimeout() async throws {
        let server = try LoopbackHTTPServer(routes: ["/hang": .hang])
        defer { server.stop() }
        let start = ContinuousClock.now
        await Self.withSession { session in
            do {
                _ = try await Self.fetch(Self.request(server.url("/hang"), timeout: 1), in: session)
                Issue.record("a route that never answers must not give a response")
            } catch let error as URLError {
                #expect(error.code == .timedOut, "\(error)")
            } catch {
                Issue.record("expected a URLError, got \(error)")
            }
        }
        #expect(ContinuousClock.now - start < TestTiming.bound(10), "the 1 s client timeout, not a hang")
        #expect(server.requests.map(\.path) == ["/hang"])
    }

    @Test func stopEndsAHangingRequest() async throws {
        let server = try LoopbackHTTPServer(routes: ["/hang": .hang])
        let start = ContinuousClock.now
        await Self.withSession { session in
            let pending = Task { try await Self.fetch(Self.request(server.url("/hang"), timeout: 60), in: session) }
            #expect(await server.waitForRequests(1))
            server.stop()
            let outcome = await pending.result
            #expect(throws: URLError.self) { try outcome.get() }
            // Nothing listens any more.
            await #expect(throws: URLError.self) {
                try await Self.fetch(Self.request(server.url("/hang"), timeout: 5), in: session)
            }
        }
        #expect(ContinuousClock.now - start < TestTiming.bound(20, hang: 60), "the stop, not the 60 s timeout (a busy machine took 12 s)")
        #expect(server.requests.count == 1)
    }

    @Test func closeMidBodyCutsTheTransfer() async throws {
        let payload = Self.pattern(100_000) { $0 &* 7 }
        try await Self.withTemporaryFile(payload) { file in
            let server = try LoopbackHTTPServer(routes: ["/cut": .closeMidBody(file, afterBytes: 1000)])
            defer { server.stop() }
            try await Self.withSession { session in
                do {
                    let (data, response) = try await Self.fetch(Self.request(server.url("/cut")), in: session)
                    // A client that does not check Content-Length sees a short body.
                    #expect(data.count < payload.count, "status \(response.statusCode), \(data.count) bytes")
                } catch let error as URLError {
                    // libcurl's "transfer closed with N bytes remaining to read" (CURLE_PARTIAL_FILE) comes
                    // out of URLSession on Linux as NSURLErrorUnknown (-1), not networkConnectionLost.
                    #expect([.unknown, .networkConnectionLost, .cannotParseResponse].contains(error.code), "\(error)")
                }
                // The cut honours ranges too; a raw read shows the headers promise more than is sent.
                let raw = try await RawClient.exchange(
                    port: server.port, "GET /cut HTTP/1.1\r\nHost: x\r\nRange: bytes=50000-\r\n\r\n")
                #expect(raw.head.hasPrefix("HTTP/1.1 206 "))
                #expect(raw.head.contains("Content-Range: bytes 50000-99999/100000\r\n"))
                #expect(raw.head.contains("Content-Length: 50000\r\n"))
                #expect(same(raw.body, payload.subdata(in: 50000..<51000)))
            }
        }
    }

    @Test func requireHeaderForbidsWithoutIt() async throws {
        let server = try LoopbackHTTPServer(routes: [
            "/secret": .requireHeader("Authorization", "Bearer sesame", .data(Self.bytes)),
        ])
        defer { server.stop() }
        try await Self.withSession { session in
            let (_, denied) = try await Self.fetch(Self.request(server.url("/secret")), in: session)
            #expect(denied.statusCode == 403)
            let (_, wrong) = try await Self.fetch(
                Self.request(server.url("/secret"), headers: ["Authorization": "Bearer other"]), in: session)
            #expect(wrong.statusCode == 403)
            let (data, allowed) = try await Self.fetch(
                Self.request(server.url("/secret"), headers: ["Authorization": "Bearer sesame"]), in: session)
            #expect(allowed.statusCode == 200)
            #expect(same(data, Self.bytes))
        }
    }

    @Test func recordsRequestsWithTheirHeaders() async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            _ = try await Self.fetch(Self.request(server.url("/data?q=1"), headers: ["X-Avocet-Test": "hello there"]),
                                     in: session)
        }
        let recorded = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(recorded.method == "GET")
        #expect(recorded.path == "/data")
        #expect(recorded.target == "/data?q=1")
        #expect(recorded.headers["x-avocet-test"] == "hello there")
        #expect(recorded.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(recorded.connection == 1)
        #expect(server.connectionCount == 1)
    }

    @Test func servesALargeFileInChunksWithRanges() async throws {
        // Larger than the server's 256 KiB chunk, and not a multiple of it.
        let payload = Self.pattern(1_000_000 + 123) { $0 &* 13 &+ $0 >> 9 }
        try await Self.withTemporaryFile(payload) { file in
            let server = try LoopbackHTTPServer(routes: ["/big.mp4": .file(file, contentType: "video/mp4"),
                                                         "/plain": .noRanges(file)])
            defer { server.stop() }
            try await Self.withSession { session in
                let (whole, response) = try await Self.fetch(Self.request(server.url("/big.mp4")), in: session)
                #expect(response.statusCode == 200)
                #expect(same(whole, payload))
                #expect(response.value(forHTTPHeaderField: "Content-Type") == "video/mp4")

                // Across the first chunk boundary.
                let (part, partial) = try await Self.fetch(
                    Self.request(server.url("/big.mp4"), headers: ["Range": "bytes=262000-263000"]), in: session)
                #expect(partial.statusCode == 206)
                #expect(same(part, payload.subdata(in: 262_000..<263_001)))
                #expect(partial.value(forHTTPHeaderField: "Content-Range") == "bytes 262000-263000/1000123")

                // .noRanges ignores the Range header.
                let (plain, plainResponse) = try await Self.fetch(
                    Self.request(server.url("/plain"), headers: ["Range": "bytes=0-9"]), in: session)
                #expect(plainResponse.statusCode == 200)
                #expect(same(plain, payload))
                #expect(plainResponse.value(forHTTPHeaderField: "Accept-Ranges") == nil)
            }
        }
    }

    @Test func slowRouteTricklesTheWholeBody() async throws {
        let payload = Self.bytes.prefix(5000)
        try await Self.withTemporaryFile(payload) { file in
            let server = try LoopbackHTTPServer(routes: ["/slow": .slow(file, bytesPerChunk: 1000, delay: 0.03)])
            defer { server.stop() }
            let start = ContinuousClock.now
            try await Self.withSession { session in
                let (data, response) = try await Self.fetch(Self.request(server.url("/slow")), in: session)
                #expect(response.statusCode == 200)
                #expect(same(data, payload))
            }
            // Four pauses between five chunks.
            #expect(ContinuousClock.now - start >= .milliseconds(120))
        }
    }

    @Test func keepsConnectionsAliveAndAnswersPipelinedRequests() async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Data("hello".utf8), contentType: "text/plain")])
        defer { server.stop() }
        let raw = try await RawClient.exchange(port: server.port, """
            GET /data HTTP/1.1\r\nHost: x\r\n\r\n\
            HEAD /data HTTP/1.1\r\nHost: x\r\n\r\n\
            GET /data HTTP/1.1\r\nHost: x\r\nRange: bytes=1-2\r\nConnection: close\r\n\r\n
            """)
        let text = raw.head + String(decoding: raw.body, as: UTF8.self)
        #expect(text.components(separatedBy: "HTTP/1.1 200 OK\r\n").count - 1 == 2)
        #expect(text.contains("HTTP/1.1 206 Partial Content\r\n"))
        #expect(text.hasSuffix("Connection: close\r\n\r\nel"))
        #expect(server.requests.map(\.method) == ["GET", "HEAD", "GET"])
        #expect(server.requests.map(\.connection) == [1, 1, 1])
        #expect(server.connectionCount == 1)
    }

    @Test func oversizedHeadersAreRefused() async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        let filler = String(repeating: "a", count: 70 * 1024)
        let raw = try await RawClient.exchange(port: server.port, "GET /data HTTP/1.1\r\nHost: x\r\nX-Big: \(filler)\r\n\r\n")
        #expect(raw.head.hasPrefix("HTTP/1.1 431 "))
        #expect(server.requests.isEmpty)
    }

    @Test func sessionReusesItsConnection() async throws {
        let server = try LoopbackHTTPServer(routes: ["/data": .data(Self.bytes)])
        defer { server.stop() }
        try await Self.withSession { session in
            for _ in 0..<3 {
                let (data, _) = try await Self.fetch(Self.request(server.url("/data")), in: session)
                #expect(same(data, Self.bytes))
            }
        }
        #expect(server.requests.count == 3)
        #expect(server.connectionCount == 1, "requests came on connections \(server.requests.map(\.connection))")
    }
}

/// `a == b` as a plain Bool: `#expect(a == b)` on unequal Data makes Swift Testing diff the bytes,
/// which for a megabyte takes many minutes.
private func same(_ a: Data, _ b: Data) -> Bool { a == b }

/// A blocking socket client run on a thread of its own: sends bytes as given and reads until the server
/// closes, for what URLSession would hide.
private enum RawClient {
    struct Reply: Sendable {
        /// The first response's head (through its blank line), as text.
        var head: String
        /// Everything after it.
        var body: Data
    }

    struct Failure: Error { var what: String }

    static func exchange(port: Int, _ request: String, timeout: Int = 5) async throws -> Reply {
        try await withThrowingHandOffContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try exchangeBlocking(port: port, request, timeout: timeout) })
            }.start()
        }
    }

    private static func exchangeBlocking(port: Int, _ request: String, timeout: Int) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(what: "socket") }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(what: "connect") }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (431) and close before taking everything.
            guard n > 0 else { break }
            sent += n
        }
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw Failure(what: "timed out reading") }
            guard n > 0 else { break }
            received += chunk[0..<n]
        }
        let blank: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, received.count - 3)).first(where: { Array(received[$0..<($0 + 4)]) == blank }) else {
            return Reply(head: String(decoding: received, as: UTF8.self), body: Data())
        }
        return Reply(head: String(decoding: received[0..<(end + 4)], as: UTF8.self), body: Data(received[(end + 4)...]))
    }
}
