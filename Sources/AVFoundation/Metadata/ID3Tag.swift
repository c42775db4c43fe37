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
    /// the bytes after them is taken as a tag missing "ID3", its version and its revision: read as
    /// version 2.4, or as 2.3 when that reads more of it (`frames(inTag:)`).
    static func items(in data: Data, time: CMTime, duration: CMTime) -> [AVMetadataItem] {
        frames(inTag: [UInt8](data)).map { frame in
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

    /// How a tag's frames are read: the major version whose frame flags apply, whether frame sizes are
    /// syncsafe (v2.4) or plain 32-bit numbers (v2.3), and whether the tag header marks every frame
    /// unsynchronised (v2.4's header flag; v2.3's applies to the whole body, undone before the frames).
    struct Layout: Equatable {
        var version: UInt8
        var syncsafeSizes: Bool
        var unsynchronisedFrames: Bool
    }

    /// The frames of the tag `bytes`, in order; empty when it is not a tag of version 2.3 or 2.4.
    ///
    /// A v2.4 tag's frame sizes are syncsafe. When reading them fails or stops short of the body's end
    /// (or its padding), the frames are read again with plain 32-bit sizes and the reading of more
    /// frames wins (on a tie, the second if it reaches the end): some encoders write v2.4 tags with plain sizes, and a tag FFmpeg cut (see
    /// `items(in:time:duration:)`) may have been a v2.3 one, whose sizes are plain, as a frame of 128
    /// bytes or more shows.
    static func frames(inTag bytes: [UInt8]) -> [Frame] {
        let readings = readings(of: bytes)
        guard let first = readings.first.map({ frames(in: $0.body, layout: $0.layout) }) else { return [] }
        guard !first.complete, readings.count > 1 else { return first.frames }
        let second = frames(in: readings[1].body, layout: readings[1].layout)
        return second.read > first.read || (second.read == first.read && second.complete) ? second.frames : first.frames
    }

    /// The ways to read the tag `bytes`, the likelier first: each a layout and the bytes of the frames
    /// (after the header and any extended header). A v2.3 tag has one; a v2.4 tag a second with plain
    /// frame sizes; a tag cut by FFmpeg is read as v2.4, then as v2.3. Empty when `bytes` is not a tag
    /// of version 2.3 or 2.4.
    static func readings(of bytes: [UInt8]) -> [(layout: Layout, body: ArraySlice<UInt8>)] {
        if bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {
            let version = bytes[3], flags = bytes[5]
            guard version == 3 || version == 4, let size = syncsafe(bytes[6..<10]),
                  let body = body(bytes[10..<min(bytes.count, 10 + size)], version: version, flags: flags) else { return [] }
            if version == 3 { return [(Layout(version: 3, syncsafeSizes: false, unsynchronisedFrames: false), body)] }
            let unsynchronised = flags & 0x80 != 0
            return [(Layout(version: 4, syncsafeSizes: true, unsynchronisedFrames: unsynchronised), body),
                    (Layout(version: 4, syncsafeSizes: false, unsynchronisedFrames: unsynchronised), body)]
        }
        guard bytes.count >= 5, let size = syncsafe(bytes[1..<5]), size == bytes.count - 5 else { return [] }
        let flags = bytes[0]
        var readings: [(layout: Layout, body: ArraySlice<UInt8>)] = []
        if let body = body(bytes[5...], version: 4, flags: flags) {
            readings.append((Layout(version: 4, syncsafeSizes: true, unsynchronisedFrames: flags & 0x80 != 0), body))
        }
        if let body = body(bytes[5...], version: 3, flags: flags) {
            readings.append((Layout(version: 3, syncsafeSizes: false, unsynchronisedFrames: false), body))
        }
        return readings
    }

    /// The bytes of a tag's frames: `bytes` after the header with v2.3's unsynchronisation undone (v2.4
    /// undoes it frame by frame) and any extended header skipped; nil when the extended header does not
    /// fit.
    private static func body(_ bytes: ArraySlice<UInt8>, version: UInt8, flags: UInt8) -> ArraySlice<UInt8>? {
        var body = bytes
        if version == 3, flags & 0x80 != 0 { body = resynchronised(body)[...] }
        guard flags & 0x40 != 0 else { return body }
        guard body.count >= 4 else { return nil }
        // The extended header: v2.4 counts its own size field, v2.3 does not.
        let field = body.prefix(4)
        let extended = version == 4 ? syncsafe(field) : plainSize(field).flatMap { $0 <= body.count - 4 ? $0 + 4 : nil }
        guard let extended, extended <= body.count else { return nil }
        return body.dropFirst(extended)
    }

    /// The frames of a tag's body read with `layout`, in order; how many frames were read (compressed
    /// and encrypted ones count, though left out); and whether the reading ended at the body's end or
    /// at its padding (zeros), or took `maximumFrames`.
    static func frames(in body: ArraySlice<UInt8>, layout: Layout) -> (frames: [Frame], read: Int, complete: Bool) {
        var frames: [Frame] = []
        var read = 0
        var at = body.startIndex
        while body.endIndex - at >= 10, read < maximumFrames {
            let header = body[at..<at + 10]
            let idBytes = header.prefix(4)
            // Padding, or bytes that are not a frame: the tag ends.
            guard idBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }),
                  let id = String(bytes: idBytes, encoding: .ascii) else { break }
            let sizeBytes = header.dropFirst(4).prefix(4)
            guard let size = layout.syncsafeSizes ? syncsafe(sizeBytes) : plainSize(sizeBytes),
                  size <= body.endIndex - at - 10 else { break }
            var formatFlags = header[header.startIndex + 9]
            if layout.unsynchronisedFrames { formatFlags |= 0x02 }
            let content = body[(at + 10)..<(at + 10 + size)]
            at += 10 + size
            read += 1
            if let usable = contents(content, flags: formatFlags, version: layout.version), let frame = frame(id, usable) {
                frames.append(frame)
            }
        }
        return (frames, read, read >= maximumFrames || body[at...].allSatisfy { $0 == 0 })
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
    /// of it, the values of a multi-valued v2.4 frame joined with "/" (each decoded on its own: in
    /// UTF-16 each value has its own byte order mark), trailing terminators dropped.
    static func string(_ bytes: ArraySlice<UInt8>, encoding: UInt8, terminated: Bool) -> (text: String, rest: ArraySlice<UInt8>) {
        if terminated {
            let (value, rest) = firstValue(bytes, encoding: encoding)
            return (decoded(value, encoding: encoding), rest ?? bytes[bytes.endIndex...])
        }
        // Each value ends at a terminator or at the end, so each turn takes at least one byte.
        var values: [String] = []
        var remaining = bytes
        while !remaining.isEmpty {
            let (value, rest) = firstValue(remaining, encoding: encoding)
            values.append(decoded(value, encoding: encoding))
            remaining = rest ?? remaining[remaining.endIndex...]
        }
        while values.last?.isEmpty == true { values.removeLast() }
        return (values.joined(separator: "/"), bytes[bytes.endIndex...])
    }

    /// The bytes before the first terminator (two zero bytes at an even offset in UTF-16, a zero byte
    /// otherwise) and those after it; all of them and nil when there is none.
    private static func firstValue(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> (value: ArraySlice<UInt8>, rest: ArraySlice<UInt8>?) {
        let wide = encoding == 1 || encoding == 2
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if wide {
                if bytes.endIndex - i >= 2, bytes[i] == 0, bytes[i + 1] == 0 { return (bytes[bytes.startIndex..<i], bytes[(i + 2)...]) }
                i += 2
            } else {
                if bytes[i] == 0 { return (bytes[bytes.startIndex..<i], bytes[(i + 1)...]) }
                i += 1
            }
        }
        return (bytes, nil)
    }

    /// One value's text; empty when its bytes are not text in `encoding`.
    private static func decoded(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> String {
        let text: String?
        switch encoding {
        case 1: text = String(bytes: bytes, encoding: .utf16)
        case 2: text = String(bytes: bytes, encoding: .utf16BigEndian)
        case 3: text = String(bytes: bytes, encoding: .utf8)
        default: text = String(bytes: bytes, encoding: .isoLatin1)
        }
        return text ?? ""
    }

    /// The number in four syncsafe bytes (seven bits each); nil when a byte has its top bit set.
    static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return bytes.reduce(0) { $0 << 7 | Int($1) }
    }

    /// The number in four big-endian bytes (v2.3's sizes); nil for another count, or when this
    /// platform's Int does not hold it (a 32-bit one).
    static func plainSize(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 4 else { return nil }
        return Int(exactly: bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
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
