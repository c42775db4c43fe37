import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for loopback tests: it serves files and bytes with byte
/// ranges, and misbehaves on request (hangs, drops the connection mid-body, trickles bytes, redirects,
/// answers errors), so network code can be tested without the network.
///
/// It runs on threads of its own (one accepting, one per connection), never on Swift's cooperative
/// pool nor on Dispatch's global queues, so a hung or slow route blocks nothing else. Connections are
/// persistent (HTTP/1.1 keep-alive, pipelining) until the client closes or asks for `Connection: close`.
/// `stop()` (also run on deinit) closes the listening socket and shuts down every open connection, so
/// hung routes end and their clients see the connection close.
package final class LoopbackHTTPServer: Sendable {
    /// What a path answers.
    package enum Route: Sendable {
        /// A file, for GET and HEAD, with byte ranges (`bytes=a-b`, `bytes=a-`, `bytes=-n`): 206 with
        /// `Content-Range`, 416 when unsatisfiable, else 200 with `Accept-Ranges: bytes`. Read in 256 KiB
        /// chunks as it is sent; a missing file answers 404, another method 405.
        case file(URL, contentType: String = "application/octet-stream")
        /// Bytes in memory, served as `.file` serves a file.
        case data(Data, contentType: String = "application/octet-stream")
        /// A file served whole whatever the request's `Range`, without `Accept-Ranges`.
        case noRanges(URL)
        /// That status (404, 500, ...) with a short text body.
        case status(Int)
        /// A redirect to another path on this server, or an absolute URL.
        case redirect(to: String, status: Int = 302)
        /// Reads the request and never answers, until the client closes or the server stops.
        case hang
        /// Sends the headers with the full `Content-Length` (ranges honoured as `.file` does), then
        /// closes the connection after `afterBytes` bytes of body.
        case closeMidBody(URL, afterBytes: Int)
        /// As `.file`, but sends `bytesPerChunk` bytes at a time and sleeps `delay` seconds between them.
        case slow(URL, bytesPerChunk: Int, delay: Double)
        /// 403 unless the request has the header (name in any case) with exactly this value; then the route.
        indirect case requireHeader(String, String, Route)
        /// Each request takes one of these routes, chosen at random: a flaky server (list a route
        /// several times to weight it).
        indirect case flaky([Route])
    }

    /// A request as the server read it, for assertions.
    package struct RecordedRequest: Sendable, Equatable {
        package var method: String
        /// The path, without query string or fragment.
        package var path: String
        /// The request target as sent (path and query, or an absolute URL).
        package var target: String
        /// The headers, names lowercased; repeated headers joined with ", ".
        package var headers: [String: String]
        /// Which accepted connection it came on, counting from 1: equal numbers mean a reused connection.
        package var connection: Int
    }

    /// A socket call that failed while setting the server up.
    package struct SocketError: Error, CustomStringConvertible {
        package var operation: String
        package var code: Int32
        package var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// The port the kernel chose.
    package let port: Int
    /// `http://127.0.0.1:PORT`.
    package let baseURL: URL
    private let core: Core

    /// Binds `address` (127.0.0.1 unless another loopback address is given, for tests that need two
    /// hosts) on a port the kernel picks, or `port`, and starts serving `routes` (keyed by path, as
    /// "/movie.mp4"; a key without a leading "/" gets one). Unknown paths answer 404.
    package init(routes: [String: Route], address bindAddress: String = "127.0.0.1", port requestedPort: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requestedPort.bigEndian
        guard inet_pton(AF_INET, bindAddress, &address.sin_addr) == 1 else {
            close(fd)
            throw SocketError(operation: "inet_pton \(bindAddress)", code: EINVAL)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { let code = errno; close(fd); throw SocketError(operation: "bind", code: code) }
        guard listen(fd, 128) == 0 else { let code = errno; close(fd); throw SocketError(operation: "listen", code: code) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { let code = errno; close(fd); throw SocketError(operation: "getsockname", code: code) }

        port = Int(UInt16(bigEndian: address.sin_port))
        baseURL = URL(string: "http://\(bindAddress):\(port)")!
        var normalized: [String: Route] = [:]
        for (path, route) in routes { normalized[path.hasPrefix("/") ? path : "/" + path] = route }
        core = Core(listenFD: fd, routes: normalized)
        let core = self.core
        let thread = Thread { core.acceptLoop() }
        thread.name = "LoopbackHTTPServer accept :\(port)"
        thread.start()
    }

    deinit { stop() }

    /// Routes serving every file under `root` at `prefix` + its path below `root` ("/hls/low/index.m3u8"
    /// for prefix "/hls"), playlists as HLS playlists and the rest as MPEG-TS.
    package static func routes(serving root: URL, at prefix: String = "") -> [String: Route] {
        var routes: [String: Route] = [:]
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if file.hasDirectoryPath { continue }
            let relative = String(file.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count))
            routes[prefix + relative] = .file(file, contentType: file.pathExtension == "m3u8" ? "application/vnd.apple.mpegurl" : "video/mp2t")
        }
        return routes
    }

    /// The URL of `path` on this server ("/a.mp4", "a.mp4" or "/a.mp4?x=1").
    package func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// Stops accepting and shuts down every open connection (hung and slow routes end). Does not wait
    /// for the server's threads; calling it again does nothing.
    package func stop() { core.stop() }

    /// Every request read so far, in the order they were read.
    package var requests: [RecordedRequest] { core.state.withLock { $0.requests } }

    /// How many connections were accepted so far.
    package var connectionCount: Int { core.state.withLock { $0.connections } }

    /// Waits (without blocking a thread) until at least `count` requests were read, for up to
    /// `timeout` seconds times `TestTiming.scale`; false if they did not come in time.
    package func waitForRequests(_ count: Int, timeout: Double = 10) async -> Bool {
        await poll(timeout: timeout) { core.state.withLock { $0.requests.count } >= count }
    }
}

// MARK: - Accepting and serving connections

extension LoopbackHTTPServer {
    /// The sockets and what the threads share. Only the accepting thread closes the listening socket
    /// and only a connection's thread closes its socket, each inside the lock, so `stop()` (which shuts
    /// them down inside the lock) never touches a descriptor number that was closed and reused.
    private final class Core: Sendable {
        struct State {
            var stopped = false
            var listening = true
            var connections = 0
            /// Open connections' sockets by connection number.
            var open: [Int: Int32] = [:]
            var requests: [RecordedRequest] = []
        }

        let listenFD: Int32
        let routes: [String: Route]
        let state = Locked(State())

        init(listenFD: Int32, routes: [String: Route]) {
            self.listenFD = listenFD
            self.routes = routes
        }

        var isStopped: Bool { state.withLock { $0.stopped } }

        func stop() {
            state.withLock { state in
                guard !state.stopped else { return }
                state.stopped = true
                // shutdown (not close) wakes a thread blocked in accept or recv on Linux.
                if state.listening { _ = shutdown(listenFD, Int32(SHUT_RDWR)) }
                for fd in state.open.values { _ = shutdown(fd, Int32(SHUT_RDWR)) }
            }
        }

        func acceptLoop() {
            while true {
                // Glibc's module has no accept4; a child process spawned in the moment before
                // FD_CLOEXEC is set could inherit the socket, which only delays its close.
                let fd = accept(listenFD, nil, nil)
                if fd < 0 {
                    let code = errno
                    if code == EINTR || code == ECONNABORTED { continue }
                    if isStopped { break }
                    if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                        Thread.sleep(forTimeInterval: 0.01)
                        continue
                    }
                    break
                }
                let id: Int? = state.withLock { state in
                    guard !state.stopped else { return nil }
                    state.connections += 1
                    state.open[state.connections] = fd
                    return state.connections
                }
                guard let id else { close(fd); break }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                var one: Int32 = 1
                // Headers and body go in separate writes: without this, Nagle and delayed ACKs cost 40 ms.
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let thread = Thread { [self] in serve(connection: id, fd: fd) }
                thread.name = "LoopbackHTTPServer connection \(id)"
                thread.start()
            }
            state.withLock { state in
                state.listening = false
                close(listenFD)
            }
        }

        private func serve(connection id: Int, fd: Int32) {
            defer {
                state.withLock { state in
                    state.open[id] = nil
                    close(fd)
                }
            }
            let socket = Socket(fd: fd)
            var reader = RequestReader(socket: socket)
            while true {
                switch reader.next() {
                case .closed:
                    return
                case .malformed:
                    socket.refuse(Response.text(400, keepAlive: false))
                    return
                case .tooLarge:
                    socket.refuse(Response.text(431, keepAlive: false))
                    return
                case .request(let request):
                    state.withLock {
                        $0.requests.append(RecordedRequest(method: request.method, path: request.path, target: request.target,
                                                           headers: request.headers, connection: id))
                    }
                    let route = routes[request.path] ?? request.path.removingPercentEncoding.flatMap { routes[$0] }
                    guard respond(to: request, with: route, on: socket), request.keepAlive else { return }
                }
            }
        }

        /// Answers one request; false when the connection must close.
        private func respond(to request: Request, with route: Route?, on socket: Socket) -> Bool {
            let keepAlive = request.keepAlive
            switch route {
            case nil:
                return socket.send(Response.text(404, head: request.isHead, keepAlive: keepAlive))
            case .status(let code):
                return socket.send(Response.text(code, head: request.isHead, keepAlive: keepAlive))
            case .redirect(let location, let code):
                return socket.send(Response.text(code, extra: [("Location", location)], head: request.isHead, keepAlive: keepAlive))
            case .hang:
                socket.drain()
                return false
            case .flaky(let routes):
                return respond(to: request, with: routes.randomElement(), on: socket)
            case .requireHeader(let name, let value, let then):
                guard request.headers[name.lowercased()] == value else {
                    return socket.send(Response.text(403, head: request.isHead, keepAlive: keepAlive))
                }
                return respond(to: request, with: then, on: socket)
            case .data(let data, let contentType):
                return serve(.data(data), contentType: contentType, ranges: true, to: request, on: socket)
            case .file(let url, let contentType):
                return serveFile(url, contentType: contentType, ranges: true, to: request, on: socket)
            case .noRanges(let url):
                return serveFile(url, contentType: "application/octet-stream", ranges: false, to: request, on: socket)
            case .closeMidBody(let url, let afterBytes):
                _ = serveFile(url, contentType: "application/octet-stream", ranges: true, to: request, on: socket,
                              limit: max(0, afterBytes))
                return false
            case .slow(let url, let bytesPerChunk, let delay):
                return serveFile(url, contentType: "application/octet-stream", ranges: true, to: request, on: socket,
                                 chunk: max(1, bytesPerChunk), delay: delay)
            }
        }

        private func serveFile(_ url: URL, contentType: String, ranges: Bool, to request: Request, on socket: Socket,
                               chunk: Int = Content.chunk, delay: Double = 0, limit: Int? = nil) -> Bool {
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            var info = stat()
            guard fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                if fd >= 0 { close(fd) }
                return socket.send(Response.text(404, head: request.isHead, keepAlive: request.keepAlive))
            }
            defer { close(fd) }
            return serve(.file(fd, size: Int(info.st_size)), contentType: contentType, ranges: ranges, to: request,
                         on: socket, chunk: chunk, delay: delay, limit: limit)
        }

        /// Answers GET or HEAD with `content` or the range asked for; the body is cut after `limit` bytes.
        private func serve(_ content: Content, contentType: String, ranges: Bool, to request: Request, on socket: Socket,
                           chunk: Int = Content.chunk, delay: Double = 0, limit: Int? = nil) -> Bool {
            guard request.method == "GET" || request.isHead else {
                return socket.send(Response.text(405, extra: [("Allow", "GET, HEAD")], head: false, keepAlive: request.keepAlive))
            }
            let total = content.count
            var status = 200
            var range = 0..<total
            var headers = [("Content-Type", contentType)]
            if ranges {
                headers.append(("Accept-Ranges", "bytes"))
                switch request.headers["range"].map({ ByteRange.parse($0, total: total) }) ?? .ignore {
                case .ignore:
                    break
                case .unsatisfiable:
                    return socket.send(Response.text(416, extra: [("Content-Range", "bytes */\(total)")],
                                                     head: request.isHead, keepAlive: request.keepAlive))
                case .range(let asked):
                    status = 206
                    range = asked
                    headers.append(("Content-Range", "bytes \(asked.lowerBound)-\(asked.upperBound - 1)/\(total)"))
                }
            }
            headers.append(("Content-Length", "\(range.count)"))
            guard socket.send(Response.head(status, headers, keepAlive: request.keepAlive && limit == nil)) else { return false }
            if request.isHead { return true }
            let end = limit.map { min(range.upperBound, range.lowerBound + $0) } ?? range.upperBound
            var offset = range.lowerBound
            var buffer = [UInt8]()
            while offset < end {
                if offset > range.lowerBound, delay > 0, !pause(delay) { return false }
                let count = min(chunk, end - offset)
                let sent: Bool
                switch content {
                case .data(let data):
                    sent = data.withUnsafeBytes { socket.send(UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
                case .file(let fd, _):
                    if buffer.count < count { buffer = [UInt8](repeating: 0, count: count) }
                    sent = buffer.withUnsafeMutableBytes { raw in
                        var filled = 0
                        while filled < count {
                            let n = pread(fd, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
                            if n < 0, errno == EINTR { continue }
                            guard n > 0 else { return false }
                            filled += n
                        }
                        return socket.send(UnsafeRawBufferPointer(rebasing: raw[0..<count]))
                    }
                }
                guard sent else { return false }
                offset += count
            }
            return end == range.upperBound
        }

        /// Sleeps `seconds`, waking early to return false when the server stops.
        private func pause(_ seconds: Double) -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            while !isStopped {
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { return true }
                Thread.sleep(forTimeInterval: min(left, 0.02))
            }
            return false
        }
    }

    /// What a file or bytes route sends.
    private enum Content {
        /// The most read and sent at once.
        static let chunk = 256 * 1024
        case data(Data)
        case file(Int32, size: Int)

        var count: Int {
            switch self {
            case .data(let data): data.count
            case .file(_, let size): size
            }
        }
    }
}

// MARK: - Sockets, requests and responses

extension LoopbackHTTPServer {
    /// A connected socket; only its connection's thread uses it.
    private struct Socket {
        let fd: Int32

        /// Sends everything; false when the peer is gone. MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE.
        func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let n = Glibc.send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }

        func send(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { send($0) } }

        /// Reads up to `capacity` bytes into `buffer`; 0 at end of stream or on error.
        func receive(into buffer: inout [UInt8], capacity: Int = 16 * 1024) -> Int {
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: capacity))
            let n = buffer.withUnsafeMutableBytes { raw in
                while true {
                    let n = recv(fd, raw.baseAddress! + start, capacity, 0)
                    if n < 0, errno == EINTR { continue }
                    return max(0, n)
                }
            }
            buffer.removeLast(capacity - n)
            return n
        }

        /// Answers a request the server cannot read, then closes gently: closing with the client's bytes
        /// still unread would send a reset, which can destroy the answer before the client reads it.
        func refuse(_ response: [UInt8]) {
            guard send(response) else { return }
            _ = shutdown(fd, Int32(SHUT_WR))
            var limit = timeval(tv_sec: 2, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            drain()
        }

        /// Reads and discards until the peer closes or the socket is shut down.
        func drain() {
            var scratch = [UInt8]()
            while receive(into: &scratch) > 0 { scratch.removeAll(keepingCapacity: true) }
        }
    }

    private struct Request {
        var method: String
        var target: String
        var path: String
        var headers: [String: String]
        var keepAlive: Bool
        var isHead: Bool { method == "HEAD" }
    }

    /// Reads requests one after another from a connection, keeping bytes that came early (pipelining).
    private struct RequestReader {
        enum Outcome {
            case request(Request)
            case closed
            case malformed
            case tooLarge
        }

        static let maxHeaderBytes = 64 * 1024
        let socket: Socket
        var buffer: [UInt8] = []
        /// Where the search for the blank line resumes.
        var scanned = 0

        init(socket: Socket) { self.socket = socket }

        mutating func next() -> Outcome {
            while true {
                // Empty lines before a request line are allowed (RFC 9112 §2.2).
                if let start = buffer.firstIndex(where: { $0 != 13 && $0 != 10 }), start > 0 {
                    buffer.removeFirst(start)
                    scanned = 0
                } else if !buffer.isEmpty, buffer.allSatisfy({ $0 == 13 || $0 == 10 }) {
                    buffer.removeAll()
                    scanned = 0
                }
                if let end = headerEnd() {
                    guard end <= Self.maxHeaderBytes else { return .tooLarge }
                    let text = String(decoding: buffer[0..<end], as: UTF8.self)
                    buffer.removeFirst(end)
                    scanned = 0
                    guard let request = Self.parse(text) else { return .malformed }
                    return discardBody(of: request)
                }
                if buffer.count > Self.maxHeaderBytes { return .tooLarge }
                if socket.receive(into: &buffer) == 0 { return .closed }
            }
        }

        /// The index just past the blank line ending the headers ("\r\n\r\n" or a bare "\n\n").
        private mutating func headerEnd() -> Int? {
            var i = scanned
            while i < buffer.count {
                if buffer[i] == 10 {
                    if i + 1 >= buffer.count { break }
                    if buffer[i + 1] == 10 { return i + 2 }
                    if buffer[i + 1] == 13 {
                        if i + 2 >= buffer.count { break }
                        if buffer[i + 2] == 10 { return i + 3 }
                    }
                }
                i += 1
            }
            scanned = i
            return nil
        }

        /// Skips a request body (GET and HEAD ones are ignored too); with one whose end the server cannot
        /// find (chunked), answers and then closes.
        private mutating func discardBody(of request: Request) -> Outcome {
            var request = request
            if request.headers["transfer-encoding"] != nil { request.keepAlive = false }
            guard let value = request.headers["content-length"] else { return .request(request) }
            guard var remaining = Int(value.trimmingCharacters(in: .whitespaces)), remaining >= 0 else { return .malformed }
            let buffered = min(remaining, buffer.count)
            buffer.removeFirst(buffered)
            remaining -= buffered
            var scratch = [UInt8]()
            while remaining > 0 {
                let n = socket.receive(into: &scratch, capacity: min(remaining, 64 * 1024))
                if n == 0 { return .closed }
                remaining -= n
                scratch.removeAll(keepingCapacity: true)
            }
            return .request(request)
        }

        static func parse(_ text: String) -> Request? {
            // "\r\n" is one Character in Swift, so split on newlines, not on "\n".
            var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            while lines.last?.isEmpty == true { lines.removeLast() }
            guard let first = lines.first else { return nil }
            let parts = first.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
            var headers: [String: String] = [:]
            var last: String?
            for line in lines.dropFirst() {
                if let lead = line.first, lead == " " || lead == "\t", let name = last {
                    // An obsolete folded line continues the previous header.
                    headers[name, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
                    continue
                }
                guard let colon = line.firstIndex(of: ":") else { return nil }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                guard !name.isEmpty else { return nil }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
                last = name
            }
            let method = String(parts[0]), target = String(parts[1])
            let tokens = Set((headers["connection"] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            })
            let keepAlive = parts[2] == "HTTP/1.0" ? tokens.contains("keep-alive") : !tokens.contains("close")
            return Request(method: method, target: target, path: path(of: target), headers: headers, keepAlive: keepAlive)
        }

        /// The path of a request target: origin form ("/a?q") or absolute form ("http://host/a?q").
        static func path(of target: String) -> String {
            var path = Substring(target)
            if let scheme = path.range(of: "://"), !path.hasPrefix("/") {
                let authority = path[scheme.upperBound...]
                path = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }).map { authority[$0...] } ?? "/"
            }
            if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
            return path.isEmpty ? "/" : String(path)
        }
    }

    /// A `Range` header's meaning for a body of `total` bytes.
    private enum ByteRange: Equatable {
        /// Absent, malformed or several ranges: the whole body, 200.
        case ignore
        case unsatisfiable
        case range(Range<Int>)

        static func parse(_ header: String, total: Int) -> ByteRange {
            let value = header.trimmingCharacters(in: .whitespaces)
            guard value.lowercased().hasPrefix("bytes=") else { return .ignore }
            let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
            guard !spec.contains(",") else { return .ignore }
            let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return .ignore }
            let first = parts[0].trimmingCharacters(in: .whitespaces), last = parts[1].trimmingCharacters(in: .whitespaces)
            if first.isEmpty {
                // bytes=-n: the last n bytes.
                guard let n = number(last) else { return .ignore }
                guard n > 0, total > 0 else { return .unsatisfiable }
                return .range(max(0, total - n)..<total)
            }
            guard let start = number(first) else { return .ignore }
            var end = total - 1
            if !last.isEmpty {
                guard let asked = number(last), asked >= start else { return .ignore }
                end = min(asked, total - 1)
            }
            guard start < total else { return .unsatisfiable }
            return .range(start..<(end + 1))
        }

        /// Decimal digits only; too large a number is `Int.max`.
        private static func number(_ text: String) -> Int? {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return Int(text) ?? Int.max
        }
    }

    private enum Response {
        static func head(_ status: Int, _ headers: [(String, String)], keepAlive: Bool) -> [UInt8] {
            var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            if !keepAlive { text += "Connection: close\r\n" }
            text += "\r\n"
            return Array(text.utf8)
        }

        /// A whole response with a one-line text body ("404 Not Found"); no body for HEAD, 204 and 304.
        static func text(_ status: Int, extra: [(String, String)] = [], head isHead: Bool = false, keepAlive: Bool) -> [UInt8] {
            let body = status == 204 || status == 304 ? "" : "\(status) \(reason(status))\n"
            var headers = extra
            if !body.isEmpty { headers.append(("Content-Type", "text/plain; charset=utf-8")) }
            headers.append(("Content-Length", "\(body.utf8.count)"))
            return head(status, headers, keepAlive: keepAlive) + (isHead ? [] : Array(body.utf8))
        }

        static func reason(_ status: Int) -> String {
            switch status {
            case 200: "OK"
            case 204: "No Content"
            case 206: "Partial Content"
            case 301: "Moved Permanently"
            case 302: "Found"
            case 303: "See Other"
            case 304: "Not Modified"
            case 307: "Temporary Redirect"
            case 308: "Permanent Redirect"
            case 400: "Bad Request"
            case 401: "Unauthorized"
            case 403: "Forbidden"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 408: "Request Timeout"
            case 416: "Range Not Satisfiable"
            case 429: "Too Many Requests"
            case 431: "Request Header Fields Too Large"
            case 500: "Internal Server Error"
            case 502: "Bad Gateway"
            case 503: "Service Unavailable"
            case 504: "Gateway Timeout"
            default: "Status \(status)"
            }
        }
    }
}
