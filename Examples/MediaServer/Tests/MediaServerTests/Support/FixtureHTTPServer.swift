import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization

/// A small HTTP server on loopback that serves Avocet's fixtures to the media server under test
/// (Hummingbird too, on a port of its own), and counts requests for what must never be fetched.
///
/// - `GET /files/NAME`: the fixture, with byte ranges (206) as Avocet asks for them.
/// - `GET /slow/NAME`: the same, but past the first 64 KiB of the file only 2 KiB every 100 ms.
/// - `GET /disguised.mp4`: an HLS playlist naming `/secret` on this server, served as a movie.
/// - `GET /to?url=URL`: a 302 redirect to URL.
/// - `GET /secret` and `GET /list.m3u8`: counted in `forbiddenHits`; a correct server never asks.
///
/// Every request, whatever its path, is counted in `requestCount`.
final class FixtureHTTPServer: Sendable {
    private let hits = Mutex(0)
    private let requests = Mutex(0)
    /// The loopback address it listens on.
    let address: String

    init(address: String = "127.0.0.1") {
        self.address = address
    }

    /// Requests for `/secret` or `/list.m3u8` so far.
    var forbiddenHits: Int { hits.withLock { $0 } }

    /// Requests of any path so far.
    var requestCount: Int { requests.withLock { $0 } }

    /// Runs `body` with the server's base URL (`http://localhost:PORT` on 127.0.0.1, else
    /// `http://ADDRESS:PORT`).
    func run<Value: Sendable>(_ body: @escaping @Sendable (String) async throws -> Value) async throws -> Value {
        let app = Application(router: router(), configuration: .init(address: .hostname(address, port: 0)))
        let host = address == "127.0.0.1" ? "localhost" : address
        return try await app.test(.live) { client in
            guard let port = client.port else { throw URLError(.badURL) }
            return try await body("http://\(host):\(port)")
        }
    }

    private func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: Counter { [self] in requests.withLock { $0 += 1 } })
        router.get("/to") { request, _ in
            guard let target = request.uri.queryParameters.get("url") else { throw HTTPError(.badRequest) }
            return Response(status: .found, headers: [.location: target])
        }
        router.get("/files/:name") { request, context in
            try Self.serve(try context.parameters.require("name"), request: request, throttled: false)
        }
        router.get("/slow/:name") { request, context in
            try Self.serve(try context.parameters.require("name"), request: request, throttled: true)
        }
        router.get("/disguised.mp4") { request, _ in
            let host = request.head.authority ?? "localhost"
            let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\nhttp://\(host)/secret\n#EXT-X-ENDLIST\n"
            return Response(status: .ok, headers: [.contentType: "video/mp4"], body: ResponseBody(byteBuffer: ByteBuffer(string: playlist)))
        }
        router.get("/secret") { [self] _, _ in
            hit()
            return "secret"
        }
        router.get("/list.m3u8") { [self] _, _ in
            hit()
            return "#EXTM3U\n"
        }
        return router
    }

    /// Counts every request before routing.
    private struct Counter: RouterMiddleware {
        typealias Context = BasicRequestContext
        let count: @Sendable () -> Void
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            count()
            return try await next(request, context)
        }
    }

    private func hit() {
        hits.withLock { $0 += 1 }
    }

    /// A fixture's bytes, whole or the range asked for.
    private static func serve(_ name: String, request: Request, throttled: Bool) throws -> Response {
        guard !name.contains("/"), !name.hasPrefix("."), let data = try? Fixtures.data(name) else { throw HTTPError(.notFound) }
        let total = data.count
        var range = 0..<total
        var status = HTTPResponse.Status.ok
        var headers: HTTPFields = [.acceptRanges: "bytes", .contentType: "application/octet-stream"]
        if let header = request.headers[.range], header.hasPrefix("bytes=") {
            let spec = header.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
            guard spec.count == 2, let start = Int(spec[0]) else { throw HTTPError(.badRequest) }
            guard start < total else {
                return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(total)"])
            }
            let end = spec[1].isEmpty ? total - 1 : min(Int(spec[1]) ?? total - 1, total - 1)
            range = start..<(end + 1)
            status = .partialContent
            headers[.contentRange] = "bytes \(start)-\(end)/\(total)"
        }
        headers[.contentLength] = String(range.count)
        let bytes = data.subdata(in: range)
        let offset = range.lowerBound
        guard throttled else { return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes))) }
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: bytes.count) { writer in
            var position = 0
            while position < bytes.count {
                let fast = offset + position < 64 * 1024
                let length = min(bytes.count - position, fast ? 64 * 1024 - (offset + position) : 2048)
                try await writer.write(ByteBuffer(bytes: bytes[bytes.startIndex + position ..< bytes.startIndex + position + length]))
                position += length
                if !fast { try await Task.sleep(nanoseconds: 100_000_000) }
            }
            try await writer.finish(nil)
        })
    }
}
