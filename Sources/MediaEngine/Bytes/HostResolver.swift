import Dispatch
import Foundation
internal import Locking
#if canImport(Glibc)
import Glibc
#endif

/// The system's name resolution (`getaddrinfo`, with `/etc/hosts`, DNS and the numeric forms the C
/// library accepts: `127.1`, `2130706433`, `0x7f000001`), as plain byte arrays: 4 bytes for IPv4, 16
/// for IPv6, in network order. What an HTTP connection's address policy checks.
package enum HostResolver {
    /// Why a host gave no address.
    package struct Failure: Error, Sendable, Equatable {
        /// `getaddrinfo`'s reason, as `gai_strerror` words it.
        package var reason: String
    }

    /// The most lookups in flight at once in the process; one more fails at once. Each holds a thread
    /// of its own while DNS answers (or for the resolver's own timeouts, up to half a minute, when a
    /// name server never does), so a flood of names whose servers hang costs at most this many threads.
    package static let maximumLookups = 16

    private static let lookups = Locked(0)

    /// Resolves `host` on a thread of its own, never Dispatch's or Swift's shared pools (a lookup may
    /// block for as long as the resolver's timeouts), and calls `completion` once, on that thread or
    /// on a Dispatch timer: with the addresses, or with a failure when the resolver fails, when
    /// `seconds` pass first (the lookup's thread then runs on, unobserved, until the resolver gives up),
    /// or at once when `maximumLookups` are already in flight.
    package static func resolve(_ host: String, within seconds: Double,
                                completion: @escaping @Sendable (Result<[[UInt8]], Failure>) -> Void) {
        let admitted = lookups.withLock { count -> Bool in
            guard count < maximumLookups else { return false }
            count += 1
            return true
        }
        guard admitted else {
            return completion(.failure(Failure(reason: "too many host names are being resolved at once")))
        }
        let once = Locked(false)
        let finish = { @Sendable (result: Result<[[UInt8]], Failure>) in
            let first = once.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { completion(result) }
        }
        let limit = seconds.isFinite ? min(max(seconds, 0), 3600) : 3600
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
            finish(.failure(Failure(reason: "the host name was not resolved within \(Int(limit.rounded(.up))) s")))
        }
        let thread = Thread {
            let result = resolve(host)
            lookups.withLock { $0 -= 1 }
            finish(result)
        }
        thread.name = "avocet.resolve"
        thread.start()
    }

    /// Every address `host` resolves to for a TCP connection, in the resolver's order, without repeats.
    /// Blocks while the resolver asks DNS (seconds at worst, the resolver's own timeouts): call it on a
    /// thread of its own (as `resolve(_:within:completion:)` does), never on a shared pool.
    ///
    /// - Parameter host: a name or a numeric address, IPv6 with or without brackets (a zone, `%eth0`, is
    ///   accepted and dropped from the result).
    package static func resolve(_ host: String) -> Result<[[UInt8]], Failure> {
        let name = unbracketed(host)
        guard !name.isEmpty, !name.utf8.contains(0) else { return .failure(Failure(reason: "the host name is empty")) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else {
            return .failure(Failure(reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var found: [[UInt8]] = []
        var next = list
        while let entry = next {
            if let bytes = Self.bytes(of: entry.pointee), !found.contains(bytes) { found.append(bytes) }
            next = entry.pointee.ai_next
        }
        guard !found.isEmpty else { return .failure(Failure(reason: "the host has no IPv4 or IPv6 address")) }
        return .success(found)
    }

    /// The address of a numeric host in the strict forms (`inet_pton`: dotted quad, or IPv6 text
    /// without brackets); nil for a name or a loose form. Does not block.
    package static func numeric(_ text: String) -> [UInt8]? {
        let name = unbracketed(text)
        guard !name.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// A host without the brackets an IPv6 address wears in a URL (`[::1]` is `::1`).
    package static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2 ? String(host.dropFirst().dropLast()) : host
    }

    /// The text form of an address (`inet_ntop`): `127.0.0.1`, `::1`. Nil for a length other than 4 or 16.
    package static func text(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = bytes.withUnsafeBytes { raw in
            buffer.withUnsafeMutableBufferPointer { out in
                inet_ntop(family, raw.baseAddress, out.baseAddress, socklen_t(out.count))
            }
        }
        guard written != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func bytes(of entry: addrinfo) -> [UInt8]? {
        guard let address = entry.ai_addr else { return nil }
        switch entry.ai_family {
        case AF_INET where Int(entry.ai_addrlen) >= MemoryLayout<sockaddr_in>.size:
            var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return withUnsafeBytes(of: &v4) { Array($0) }
        case AF_INET6 where Int(entry.ai_addrlen) >= MemoryLayout<sockaddr_in6>.size:
            var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return withUnsafeBytes(of: &v6) { Array($0) }
        default:
            return nil
        }
    }
}
