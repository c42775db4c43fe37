import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback port where every connection is refused: a socket bound to 127.0.0.1 on a port the
/// kernel picks, never listening. Holding the bound socket keeps the port from being handed to
/// another listener (a stopped server's port can be, by a test running beside it), so a connection
/// to it is refused for as long as this lives.
package final class RefusingPort: @unchecked Sendable {
    // @unchecked Sendable: `fd` and `port` are set once in init; `close` runs once, in deinit.
    package let port: Int
    private let fd: Int32

    package init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LoopbackHTTPServer.SocketError(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { let code = errno; close(fd); throw LoopbackHTTPServer.SocketError(operation: "bind", code: code) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { let code = errno; close(fd); throw LoopbackHTTPServer.SocketError(operation: "getsockname", code: code) }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// `http://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path))!
    }
}
