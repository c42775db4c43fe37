import Foundation

/// Reads the frames of an ID3v2 tag (versions 2.3 and 2.4) into metadata items of the ID3 key space,
/// as timed metadata carries them: one tag a sample, in an MPEG-TS or HLS metadata stream.
///
/// Everything is bounded by the bytes given: sizes that run past the tag end the reading, compressed
/// or encrypted frames are left out, and at most `maximumFrames` frames are read.
enum ID3Tag {
    static let maximumFrames = 1_000

    /// The items of the tag in `data`, each at `time` for `duration`; empty when `data` holds no tag.
    ///
    /// FFmpeg 5.1's MPEG-TS reader drops the first five bytes of every packet of a metadata stream
    /// (stream type 0x15; later versions drop them only for KLV in a metadata stream), so a packet
    /// that does not start with "ID3" but starts with a flags byte and a syncsafe size that matches
    /// the bytes after them is taken as an ID3v2.4 tag missing "ID3", its version and its revision.
    static func items(in data: Data, time: CMTime, duration: CMTime) -> [AVMetadataItem] {
        let bytes = [UInt8](data)
        guard let (version, body) = body(of: bytes) else { return [] }
        return frames(in: body, version: version).map { frame in
            var fields = AVMetadataItem.Fields()
            fields.key = frame.id as NSString
            fields.keySpace = .id3
            fields.commonKey = MetadataMapping.commonKey(forKey: frame.id, space: .id3)
            fields.time = time
            fields.duration = duration
            switch frame.value {
            case .text(let text):
                fields.value = text as NSString
                fields.dataType = MetadataValues.dataTypeUTF8
            case .data(let data):
                fields.value = data as NSData
                fields.dataType = MetadataValues.dataTypeRaw
            }
            if let info = frame.info { fields.extraAttributes = [.info: info] }
            if let locale = MetadataValues.locale(forISO639: frame.language) {
                fields.locale = locale
                fields.extendedLanguageTag = locale.identifier
            }
            return AVMetadataItem(fields: fields)
        }
    }

    /// What a frame holds, as an item's value.
    enum Value: Equatable {
        case text(String)
        case data(Data)
    }

    /// One frame: its identifier ("TIT2"), its value, the description or owner it names (TXXX, WXXX,
    /// COMM, USLT, PRIV) and its language (COMM, USLT).
    struct Frame: Equatable {
        var id: String
        var value: Value
        var info: String?
        var language: String?
    }

    /// The tag's major version and the bytes of its frames (after the header and any extended header,
    /// unsynchronisation undone); nil when `bytes` is not a tag of version 2.3 or 2.4.
    static func body(of bytes: [UInt8]) -> (version: UInt8, body: ArraySlice<UInt8>)? {
        let version: UInt8, flags: UInt8, size: Int, start: Int
        if bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {
            guard let s = syncsafe(bytes[6..<10]) else { return nil }
            (version, flags, size, start) = (bytes[3], bytes[5], s, 10)
        } else if bytes.count >= 5, let s = syncsafe(bytes[1..<5]), s == bytes.count - 5 {
            (version, flags, size, start) = (4, bytes[0], s, 5)
        } else {
            return nil
        }
        guard version == 3 || version == 4 else { return nil }
        var body = Array(bytes[start..<min(bytes.count, start + size)])
        if flags & 0x80 != 0 { body = resynchronised(body[...]) }
        var offset = 0
        if flags & 0x40 != 0 {
            // The extended header: v2.4 counts its own size field, v2.3 does not.
            guard body.count >= 4 else { return nil }
            let extended = version == 4 ? syncsafe(body[0..<4]) : Int(bigEndian: body[0..<4]).map { $0 + 4 }
            guard let extended, extended <= body.count else { return nil }
            offset = extended
        }
        return (version, body[offset...])
    }

    /// The frames of a tag's body, in order.
    static func frames(in body: ArraySlice<UInt8>, version: UInt8) -> [Frame] {
        var frames: [Frame] = []
        var at = body.startIndex
        while body.endIndex - at >= 10, frames.count < maximumFrames {
            let header = body[at..<at + 10]
            let idBytes = header.prefix(4)
            // Padding, or bytes that are not a frame: the tag ends.
            guard idBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }),
                  let id = String(bytes: idBytes, encoding: .ascii) else { break }
            let sizeBytes = header.dropFirst(4).prefix(4)
            guard let size = version == 4 ? syncsafe(sizeBytes) : Int(bigEndian: sizeBytes),
                  size <= body.endIndex - at - 10 else { break }
            let formatFlags = header[header.startIndex + 9]
            var content = body[(at + 10)..<(at + 10 + size)]
            at += 10 + size
            if let usable = contents(content, flags: formatFlags, version: version) { content = usable } else { continue }
            if let frame = frame(id, content) { frames.append(frame) }
        }
        return frames
    }

    /// A frame's content with its flags applied: grouping and length bytes skipped, unsynchronisation
    /// undone; nil for compressed or encrypted frames.
    private static func contents(_ content: ArraySlice<UInt8>, flags: UInt8, version: UInt8) -> ArraySlice<UInt8>? {
        var content = content
        if version == 3 {
            if flags & 0xC0 != 0 { return nil }
            if flags & 0x20 != 0 { content = content.dropFirst(1) }
            return content
        }
        if flags & 0x0C != 0 { return nil }
        if flags & 0x40 != 0 { content = content.dropFirst(1) }
        if flags & 0x01 != 0 { content = content.dropFirst(4) }
        if flags & 0x02 != 0 { return resynchronised(content)[...] }
        return content
    }

    private static func frame(_ id: String, _ content: ArraySlice<UInt8>) -> Frame? {
        switch id {
        case "TXXX", "WXXX":
            guard let encoding = content.first else { return nil }
            let (description, rest) = string(content.dropFirst(), encoding: encoding, terminated: true)
            // WXXX's URL is always ISO-8859-1.
            let value = id == "WXXX" ? string(rest, encoding: 0, terminated: false).text
                                     : string(rest, encoding: encoding, terminated: false).text
            return Frame(id: id, value: .text(value), info: description, language: nil)
        case "COMM", "USLT":
            guard let encoding = content.first, content.count >= 4 else { return nil }
            let language = String(bytes: content.dropFirst().prefix(3), encoding: .isoLatin1)
            let (description, rest) = string(content.dropFirst(4), encoding: encoding, terminated: true)
            let text = string(rest, encoding: encoding, terminated: false).text
            return Frame(id: id, value: .text(text), info: description.isEmpty ? nil : description, language: language)
        case "PRIV":
            let (owner, rest) = string(content, encoding: 0, terminated: true)
            return Frame(id: id, value: .data(Data(rest)), info: owner, language: nil)
        default:
            if id.hasPrefix("T"), let encoding = content.first {
                return Frame(id: id, value: .text(string(content.dropFirst(), encoding: encoding, terminated: false).text))
            }
            if id.hasPrefix("W") {
                return Frame(id: id, value: .text(string(content, encoding: 0, terminated: false).text))
            }
            return Frame(id: id, value: .data(Data(content)))
        }
    }

    /// Text in one of ID3's encodings (0 ISO-8859-1, 1 UTF-16 with a byte order mark, 2 UTF-16BE,
    /// 3 UTF-8). Terminated: up to the first terminator, and the bytes after it. Not terminated: all
    /// of it, the values of a multi-valued v2.4 frame joined with "/", trailing terminators dropped.
    static func string(_ bytes: ArraySlice<UInt8>, encoding: UInt8, terminated: Bool) -> (text: String, rest: ArraySlice<UInt8>) {
        let wide = encoding == 1 || encoding == 2
        var end = bytes.endIndex
        var rest = bytes[bytes.endIndex...]
        if terminated {
            var i = bytes.startIndex
            while i < bytes.endIndex {
                if wide {
                    if i + 1 < bytes.endIndex, bytes[i] == 0, bytes[i + 1] == 0 { end = i; rest = bytes[(i + 2)...]; break }
                    i += 2
                } else {
                    if bytes[i] == 0 { end = i; rest = bytes[(i + 1)...]; break }
                    i += 1
                }
            }
        }
        let raw = bytes[bytes.startIndex..<end]
        let text: String?
        switch encoding {
        case 1: text = String(bytes: raw, encoding: .utf16)
        case 2: text = String(bytes: raw, encoding: .utf16BigEndian)
        case 3: text = String(bytes: raw, encoding: .utf8)
        default: text = String(bytes: raw, encoding: .isoLatin1)
        }
        var value = text ?? ""
        if !terminated {
            while value.hasSuffix("\0") { value.removeLast() }
            value = value.replacingOccurrences(of: "\0", with: "/")
        }
        return (value, rest)
    }

    /// The number in four syncsafe bytes (seven bits each); nil when a byte has its top bit set.
    static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return bytes.reduce(0) { $0 << 7 | Int($1) }
    }

    /// Bytes with ID3's unsynchronisation undone: the zero after each 0xFF goes.
    static func resynchronised(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0) { out.append(byte) }
            previous = byte
        }
        return out
    }
}

private extension Int {
    /// A big-endian 32-bit number of four bytes; nil for another count.
    init?(bigEndian bytes: ArraySlice<UInt8>) {
        guard bytes.count == 4 else { return nil }
        self = bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
