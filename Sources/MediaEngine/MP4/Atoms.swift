/// The atoms (boxes) of MP4 and QuickTime bytes held in memory: each a 32-bit big-endian size that
/// counts its 8-byte header, a four-character type, then its body. Pure; bounded by the bytes given.
package enum Atoms {
    /// The atoms of `bytes` as (type, body), in order; the walk stops at the first atom whose size does
    /// not fit (less than its header, or past the end).
    package static func list(in bytes: ArraySlice<UInt8>) -> [(type: UInt32, body: ArraySlice<UInt8>)] {
        var found: [(type: UInt32, body: ArraySlice<UInt8>)] = []
        var at = bytes.startIndex
        while bytes.endIndex - at >= 8 {
            // Int(exactly:): a 32-bit platform's Int does not hold every atom size.
            guard let size = Int(exactly: bigEndian(bytes[at..<at + 4])), size >= 8, size <= bytes.endIndex - at else { break }
            found.append((bigEndian(bytes[at + 4..<at + 8]), bytes[at + 8..<at + size]))
            at += size
        }
        return found
    }

    /// The bodies of the atoms of `type` among `bytes`' atoms, in order.
    package static func bodies(_ type: String, in bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        let code = fourCC(type)
        return list(in: bytes).filter { $0.type == code }.map(\.body)
    }

    /// Up to four bytes as a big-endian number.
    package static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// A four-character code's number ("mebx").
    package static func fourCC(_ code: String) -> UInt32 { code.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
}
