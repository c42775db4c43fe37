import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare HTTP/1.1 client over a blocking socket, for what Hummingbird's test client cannot send: a
/// body in chunks of unknown total length that keeps coming after the server has answered.
///
/// Each call runs on a Dispatch thread of its own (never on Swift's cooperative pool) and gives up
/// after its timeout.
enum RawHTTPClient {
    struct Reply: Sendable {
        var status: Int
        var head: String
        var body: String
        /// Whether an interim `100 Continue` came before the final response.
        var sawContinue: Bool
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends `head` (request line and header fields, without the blank line), then `chunks` (in
    /// chunked framing when `chunked`, else as they are), then reads the reply until the server closes
    /// the connection or the timeout passes. Write errors after the server has answered are expected
    /// and ignored.
    static func send(port: Int, head: String, chunks: [Data], chunked: Bool = true, timeout: TimeInterval = 10) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingSend(port: port, head: head, chunks: chunks, chunked: chunked, timeout: timeout) })
            }
        }
    }

    /// A connected socket to `localhost:port`, trying each address the name resolves to (the test
    /// server binds "localhost", which may be 127.0.0.1 or ::1).
    private static func connectToLocalhost(port: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("localhost", String(port), &hints, &list) == 0, let first = list else {
            throw Failure(description: "cannot resolve localhost")
        }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
                close(fd)
            }
            entry = info.pointee.ai_next
        }
        throw Failure(description: "cannot connect to localhost:\(port)")
    }

    private static func blockingSend(port: Int, head: String, chunks: [Data], chunked: Bool, timeout: TimeInterval) throws -> Reply {
        let fd = try connectToLocalhost(port: port)
        defer { close(fd) }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))

        func write(_ data: Data) -> Bool {
            data.withUnsafeBytes { raw -> Bool in
                guard var pointer = raw.baseAddress else { return true }
                var left = raw.count
                while left > 0 {
                    let sent = Glibc.send(fd, pointer, left, Int32(MSG_NOSIGNAL))
                    if sent <= 0 { return false }
                    pointer += sent
                    left -= sent
                }
                return true
            }
        }

        guard write(Data((head + "\r\n\r\n").utf8)) else { throw Failure(description: "could not send the head") }
        for chunk in chunks {
            let framed = chunked ? Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8) : chunk
            guard write(framed) else { break }
        }
        if chunked { _ = write(Data("0\r\n\r\n".utf8)) }

        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        var text = String(decoding: received, as: UTF8.self)
        let interim = "HTTP/1.1 100 Continue\r\n\r\n"
        let sawContinue = text.hasPrefix(interim)
        if sawContinue { text.removeFirst(interim.count) }
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no reply head in \(text.prefix(200))") }
        let headText = String(text[..<split.lowerBound])
        let parts = headText.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line: \(headText.prefix(100))") }
        return Reply(status: status, head: headText, body: String(text[split.upperBound...]), sawContinue: sawContinue)
    }
}

/// A TCP listener on loopback that never answers: connections complete (the kernel's backlog) and
/// then hear nothing, as from a server that hangs.
final class SilentListener: @unchecked Sendable {
    // @unchecked Sendable: the descriptor is set once in init and only closed in deinit.
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPClient.Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw RawHTTPClient.Failure(description: "bind or listen: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = fd
    }

    deinit { close(descriptor) }
}
