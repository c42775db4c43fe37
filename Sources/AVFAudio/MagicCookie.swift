import Foundation
internal import MediaEngine

/// A codec's magic cookie as FFmpeg's decoders take it (their extradata). Avocet's formats carry
/// FFmpeg's extradata already; cookies made by Apple's frameworks wrap it differently, and are
/// unwrapped here: an AAC elementary stream descriptor (`esds`, with or without its box header)
/// gives its AudioSpecificConfig, a bare 24-byte ALAC configuration gets its `alac` atom header (and
/// a `frma` + `alac` cookie gives its atom), and a FLAC STREAMINFO block with a block header, or a
/// `dfLa` box, gets FLAC's `fLaC` marker. Anything else passes unchanged. Every index is checked.
enum MagicCookie {
    static func extradata(_ cookie: Data?, for codec: Codec) -> Data? {
        guard let cookie, !cookie.isEmpty else { return nil }
        let bytes = [UInt8](cookie)
        switch codec {
        case .aac:
            if bytes.count > 12, Array(bytes[4..<8]) == Array("esds".utf8), let config = audioSpecificConfig(Array(bytes[12...])) {
                return Data(config)
            }
            if bytes[0] == 0x03, let config = audioSpecificConfig(bytes) { return Data(config) }
            return cookie
        case .alac:
            if bytes.count == 24 {
                return Data([0, 0, 0, 36] + Array("alac".utf8) + [0, 0, 0, 0] + bytes)
            }
            if let start = atom("alac", in: bytes), start + 36 <= bytes.count { return Data(bytes[start..<(start + 36)]) }
            return cookie
        case .flac:
            if bytes.count > 12, Array(bytes[4..<8]) == Array("dfLa".utf8) { return Data(Array("fLaC".utf8) + bytes[12...]) }
            if bytes.count == 38, bytes[0] & 0x7F == 0 { return Data(Array("fLaC".utf8) + bytes) }
            return cookie
        default:
            return cookie
        }
    }

    /// Where the atom of type `type` and 36 bytes starts in `bytes` (an ALAC cookie that begins with
    /// a `frma` atom has it second).
    private static func atom(_ type: String, in bytes: [UInt8]) -> Int? {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if Array(bytes[(offset + 4)..<(offset + 8)]) == Array(type.utf8) { return size == 36 ? offset : nil }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    /// The DecoderSpecificInfo (AudioSpecificConfig) inside an ES_Descriptor: tag 3, its fields,
    /// then a DecoderConfigDescriptor (tag 4) whose 13 bytes of fields precede tag 5.
    private static func audioSpecificConfig(_ bytes: [UInt8]) -> [UInt8]? {
        var i = 0
        func descriptor(_ tag: UInt8) -> Int? {
            guard i < bytes.count, bytes[i] == tag else { return nil }
            i += 1
            var length = 0
            for _ in 0..<4 {
                guard i < bytes.count else { return nil }
                let b = bytes[i]
                i += 1
                length = length << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { break }
            }
            return length
        }
        guard descriptor(0x03) != nil, i + 3 <= bytes.count else { return nil }
        let flags = bytes[i + 2]
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0 {
            guard i < bytes.count else { return nil }
            i += 1 + Int(bytes[i])
        }
        if flags & 0x20 != 0 { i += 2 }
        guard descriptor(0x04) != nil else { return nil }
        i += 13
        guard let length = descriptor(0x05), length > 0, i + length <= bytes.count else { return nil }
        return Array(bytes[i..<(i + length)])
    }
}
