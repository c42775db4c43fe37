import Foundation
internal import MediaEngine

/// An IPv4 or IPv6 address, and the kind of network it belongs to (Avocet's addition: Apple's
/// AVFoundation has no such type). What an ``AvocetURLPolicy`` is shown for each connection: the
/// addresses the URL's host resolved to.
///
/// Parsing and classification are pure computations on the address's bytes; nothing is looked up.
public struct AvocetIPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The kind of network an address belongs to, by the IANA special-purpose registries (RFC 6890
    /// and its updates).
    public enum Category: String, Hashable, Sendable, CaseIterable {
        /// An address on the public internet: none of the others.
        case publicInternet
        /// This host: 127.0.0.0/8, ::1.
        case loopback
        /// A private network: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7 (unique local),
        /// fec0::/10 (the deprecated site-local).
        case privateNetwork
        /// The local link: 169.254.0.0/16 (where cloud metadata services answer), fe80::/10.
        case linkLocal
        /// Carrier-grade NAT's shared address space: 100.64.0.0/10.
        case sharedAddressSpace
        /// Multicast: 224.0.0.0/4, ff00::/8.
        case multicast
        /// The limited broadcast address 255.255.255.255.
        case broadcast
        /// "This network": 0.0.0.0/8, and ::/128. Connecting to 0.0.0.0 reaches this host on Linux.
        case unspecified
        /// Reserved, documentation, benchmarking and protocol ranges that no public server uses:
        /// 192.0.0.0/24, 192.0.2.0/24, 192.88.99.0/24, 198.18.0.0/15, 198.51.100.0/24, 203.0.113.0/24,
        /// 240.0.0.0/4; IPv6 outside 2000::/3, and 2001::/23 (Teredo, ORCHID, ...), 2001:db8::/32 and
        /// 3fff::/20 (documentation), 100::/64.
        case reserved
    }

    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// An address from its bytes in network order.
    ///
    /// - Parameter bytes: 4 bytes for IPv4, 16 for IPv6; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// An address from its numeric text in the strict forms. Parses only; nothing is looked up.
    ///
    /// - Parameter text: A dotted quad (`203.0.113.7`) or IPv6 (`2001:db8::1`, brackets allowed). Nil
    ///   for a host name or a loose form such as `127.1`: a URL's host is resolved by the system
    ///   instead (``AvocetURLPolicy`` does), which reads those forms too.
    public init?(_ text: String) {
        guard let bytes = HostResolver.numeric(text) else { return nil }
        self.bytes = bytes
    }

    /// Whether this is an IPv4 address (4 bytes).
    public var isIPv4: Bool { bytes.count == 4 }

    /// The address as text: `127.0.0.1`, `::1`.
    public var description: String { HostResolver.text(bytes) ?? bytes.map(String.init).joined(separator: ".") }

    /// The IPv4 address an IPv6 address carries, where the carrying says where packets go: IPv4-mapped
    /// (::ffff:0:0/96), IPv4-compatible (::/96, deprecated), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
    /// Nil for IPv4 addresses and other IPv6 ones.
    public var embeddedIPv4: AvocetIPAddress? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        let firstTen = b[0..<10].allSatisfy { $0 == 0 }
        if firstTen && b[10] == 0xFF && b[11] == 0xFF { return AvocetIPAddress(bytes: Array(b[12..<16])) }
        // ::a.b.c.d, but not :: and ::1 themselves (nor the rest of ::/112, which is no IPv4 address).
        if firstTen && b[10] == 0 && b[11] == 0 && (b[12] != 0 || b[13] != 0) { return AvocetIPAddress(bytes: Array(b[12..<16])) }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && b[4..<12].allSatisfy({ $0 == 0 }) {
            return AvocetIPAddress(bytes: Array(b[12..<16]))
        }
        if b[0] == 0x20 && b[1] == 0x02 { return AvocetIPAddress(bytes: Array(b[2..<6])) }
        return nil
    }

    /// The kind of network the address belongs to. An IPv6 address that carries an IPv4 one (see
    /// ``embeddedIPv4``) has the category of the address it carries.
    public var category: Category {
        if let inner = embeddedIPv4 { return inner.category }
        return bytes.count == 4 ? Self.category(v4: bytes) : Self.category(v6: bytes)
    }

    private static func category(v4 b: [UInt8]) -> Category {
        let (a, c) = (b[0], b[1])
        switch a {
        case 0: return .unspecified
        case 10: return .privateNetwork
        case 100 where c & 0xC0 == 64: return .sharedAddressSpace
        case 127: return .loopback
        case 169 where c == 254: return .linkLocal
        case 172 where c & 0xF0 == 16: return .privateNetwork
        case 192 where c == 168: return .privateNetwork
        case 192 where c == 0 && (b[2] == 0 || b[2] == 2): return .reserved
        case 192 where c == 88 && b[2] == 99: return .reserved
        case 198 where c & 0xFE == 18: return .reserved
        case 198 where c == 51 && b[2] == 100: return .reserved
        case 203 where c == 0 && b[2] == 113: return .reserved
        case 224...239: return .multicast
        case 255 where b[1...3].allSatisfy({ $0 == 255 }): return .broadcast
        case 240...255: return .reserved
        default: return .publicInternet
        }
    }

    private static func category(v6 b: [UInt8]) -> Category {
        if b[0..<15].allSatisfy({ $0 == 0 }) {
            switch b[15] {
            case 0: return .unspecified
            case 1: return .loopback
            default: return .reserved
            }
        }
        if b[0] == 0xFF { return .multicast }
        if b[0] & 0xFE == 0xFC { return .privateNetwork }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .privateNetwork }
        // Only 2000::/3 is the global unicast space; the rest is unassigned or special.
        guard b[0] & 0xE0 == 0x20 else { return .reserved }
        // 2001::/23: IETF protocol assignments (Teredo, benchmarking, ORCHID); 2001:db8::/32: documentation.
        if b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02 { return .reserved }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .reserved }
        // 3fff::/20: documentation (RFC 9637).
        if b[0] == 0x3F && b[1] == 0xFF && b[2] & 0xF0 == 0 { return .reserved }
        return .publicInternet
    }
}
