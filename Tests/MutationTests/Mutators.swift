import FixtureSupport
import Foundation

// The mutants: a fixed set per fixture, from a fixed-seed generator and the fixture's own structure
// (MP4 boxes, EBML elements, RIFF chunks, FLAC blocks, Ogg pages, ID3 frames). Nothing here trusts the
// fixture's bytes: every read is bounds-checked and a structure that does not parse is simply skipped.

// MARK: - Random numbers

extension SplitMix64 {
    /// Uniform in `0..<bound`; 0 when `bound` is 0 or 1.
    mutating func below(_ bound: Int) -> Int {
        bound <= 1 ? 0 : Int(next() % UInt64(bound))
    }

    /// Uniform in `range` (which must not be empty; an empty one gives its lower bound).
    mutating func int(in range: Range<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// `items` in a random order (Fisher-Yates, written out so the order never depends on the library's).
    mutating func shuffled<T>(_ items: [T]) -> [T] {
        var result = items
        for i in result.indices.dropLast() { result.swapAt(i, i + below(result.count - i)) }
        return result
    }

    /// Up to `count` of `items`, chosen without replacement, in their original order.
    mutating func sample<T>(_ items: [T], count: Int) -> [T] {
        guard items.count > count else { return items }
        var indices = Array(items.indices)
        for i in 0..<count {
            indices.swapAt(i, i + below(indices.count - i))
        }
        return indices.prefix(count).sorted().map { items[$0] }
    }
}

/// FNV-1a: a seed from a name that is the same in every process (Swift's `Hasher` is not).
func stableHash(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01B3
    }
    return hash
}

// MARK: - Bytes

extension Array where Element == UInt8 {
    /// The big-endian unsigned integer of `width` bytes at `offset`, or nil when out of bounds.
    func bigEndian(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width > 0, width <= 8, offset <= count - width else { return nil }
        return self[offset..<offset + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    func littleEndian(at offset: Int, width: Int) -> UInt64? {
        guard offset >= 0, width > 0, width <= 8, offset <= count - width else { return nil }
        return self[offset..<offset + width].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Writes `value` big-endian into `width` bytes at `offset`; does nothing when out of bounds.
    mutating func putBigEndian(_ value: UInt64, at offset: Int, width: Int) {
        guard offset >= 0, width > 0, width <= 8, offset <= count - width else { return }
        for i in 0..<width { self[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - i))) }
    }

    mutating func putLittleEndian(_ value: UInt64, at offset: Int, width: Int) {
        guard offset >= 0, width > 0, width <= 8, offset <= count - width else { return }
        for i in 0..<width { self[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
    }

    /// Fills `range` (clamped to the array) with `byte`.
    mutating func fill(_ range: Range<Int>, with byte: UInt8) {
        let lower = Swift.max(0, Swift.min(range.lowerBound, count)), upper = Swift.max(lower, Swift.min(range.upperBound, count))
        for i in lower..<upper { self[i] = byte }
    }

    /// Replaces `range` (clamped) with `bytes`; the file grows or shrinks.
    mutating func splice(_ range: Range<Int>, with bytes: [UInt8]) {
        let lower = Swift.max(0, Swift.min(range.lowerBound, count)), upper = Swift.max(lower, Swift.min(range.upperBound, count))
        replaceSubrange(lower..<upper, with: bytes)
    }

    /// Four printable bytes at `offset` as a string (© counts as printable, as in iTunes atoms).
    func fourCC(at offset: Int) -> String? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        let bytes = self[offset..<offset + 4]
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0xA9 }) else { return nil }
        return String(decoding: bytes.map { $0 == 0xA9 ? UInt8(ascii: "@") : $0 }, as: UTF8.self)
    }

    func hasPrefix(_ ascii: String, at offset: Int = 0) -> Bool {
        let pattern = Array(ascii.utf8)
        guard offset >= 0, offset <= count - pattern.count else { return false }
        return self[offset..<offset + pattern.count].elementsEqual(pattern)
    }

    /// Offsets where `ascii` occurs, searching `range` (clamped).
    func occurrences(of ascii: String, in range: Range<Int>? = nil) -> [Int] {
        let pattern = Array(ascii.utf8)
        guard let first = pattern.first else { return [] }
        let lower = Swift.max(0, range?.lowerBound ?? 0), upper = Swift.min(count, range?.upperBound ?? count)
        var result: [Int] = []
        var i = lower
        while i + pattern.count <= upper {
            if self[i] == first, self[i..<i + pattern.count].elementsEqual(pattern) { result.append(i) }
            i += 1
        }
        return result
    }
}

func hex(_ value: Int) -> String { "0x" + String(value, radix: 16) }

// MARK: - A structural target: something with a header, a size field and maybe text

/// One editable place in a fixture, found by a format's parser.
struct Edit {
    /// "box-size-ffffffff", "ebml-value", ... (the mutant's kind) and where/what ("moov-0x20").
    let kind: String
    let detail: String
    /// Whether this edit is among those the issue names explicitly (kept before sampling the rest).
    let priority: Bool
    let apply: @Sendable (inout [UInt8]) -> Void
}

/// A text field (a tag value) that can be overwritten in place, keeping its length.
struct TextField {
    let label: String
    let range: Range<Int>
    /// 0 for the values of keys that are parsed as numbers, dates or times; 1 for values that look
    /// numeric; 2 for the rest. Lower ranks are mutated first.
    let rank: Int
    /// Run after the text is replaced (Ogg fixes its page checksum).
    let fixup: (@Sendable (inout [UInt8]) -> Void)?

    /// Keys whose values are parsed (Matroska, Vorbis comment, ID3, iTunes and RIFF INFO spellings).
    static let parsedKeys: Set<String> = ["DURATION", "DATE", "YEAR", "TRACKNUMBER", "TRACK", "DATE_RELEASED", "DATE_RECORDED",
                                          "CREATION_TIME", "TDRC", "TYER", "TDAT", "TRCK", "TLEN", "TORY", "@DAY", "ICRD", "ITRK"]

    init(label: String, range: Range<Int>, key: String, text: ArraySlice<UInt8>, fixup: (@Sendable (inout [UInt8]) -> Void)? = nil) {
        self.label = label
        self.range = range
        self.fixup = fixup
        let numeric = text.contains { (0x30...0x39).contains($0) } && text.allSatisfy { (0x20...0x7E).contains($0) }
        rank = TextField.parsedKeys.contains(key.uppercased()) ? 0 : numeric ? 1 : 2
    }
}

/// What a format parser finds in a fixture.
struct Structure {
    var sizeEdits: [Edit] = []
    var fieldEdits: [Edit] = []
    var textFields: [TextField] = []
    /// Ranges that hold structure rather than media payload; most random mutations land here.
    var hot: [Range<Int>] = []
    /// Offsets where a structure begins (truncation points).
    var boundaries: [Int] = []
}

// MARK: - MP4 / QuickTime boxes

enum MP4 {
    struct Box {
        let type: String
        let offset: Int
        let size: Int
        let headerSize: Int
        let parent: String
        var payload: Int { offset + headerSize }
        var end: Int { offset + size }
    }

    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "udta", "edts", "dinf", "mvex", "moof",
                                          "traf", "ilst", "tref", "sinf", "schi", "mfra", "gmhd", "wave", "clip", "matt"]
    static let videoEntries: Set<String> = ["avc1", "avc3", "hvc1", "hev1", "mp4v", "encv", "vp09", "av01", "jpeg", "png "]
    static let audioEntries: Set<String> = ["mp4a", "enca", "Opus", "fLaC", "ac-3", "ec-3", "alac", "lpcm", "sowt", "twos"]
    /// The boxes the issue names: their sizes are set huge first.
    static let named: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "stsz", "stco", "stts", "stsd", "udta", "meta",
                                     "mdat", "moof", "ilst", "traf", "trun", "tfdt", "mvhd", "mdhd", "elst", "ctts", "stsc"]

    static func boxes(_ b: [UInt8]) -> [Box] {
        var result: [Box] = []
        func walk(_ start: Int, _ end: Int, parent: String, depth: Int) {
            var offset = start
            while offset + 8 <= end, result.count < 4000, depth < 12 {
                guard let size32 = b.bigEndian(at: offset, width: 4), let type = b.fourCC(at: offset + 4) else { return }
                var size = Int(size32), headerSize = 8
                if size32 == 1 {
                    guard let size64 = b.bigEndian(at: offset + 8, width: 8), size64 <= UInt64(end - offset) else { return }
                    size = Int(size64)
                    headerSize = 16
                } else if size32 == 0 {
                    size = end - offset
                }
                guard size >= headerSize, size <= end - offset else { return }
                let box = Box(type: type, offset: offset, size: size, headerSize: headerSize, parent: parent)
                result.append(box)
                var children: Int?
                if containers.contains(type) || parent == "ilst" {
                    children = box.payload
                } else if type == "meta" {
                    // MP4's meta is a full box (4 zero bytes of version and flags); QuickTime's is not.
                    children = box.payload + (b.bigEndian(at: box.payload, width: 4) == 0 ? 4 : 0)
                } else if type == "stsd" {
                    children = box.payload + 8
                } else if videoEntries.contains(type), parent == "stsd" {
                    children = box.payload + 78
                } else if audioEntries.contains(type), parent == "stsd" {
                    let version = b.bigEndian(at: box.payload + 8, width: 2) ?? 0
                    children = box.payload + 28 + (version == 1 ? 16 : version == 2 ? 36 : 0)
                }
                if let children, children < box.end { walk(children, box.end, parent: type, depth: depth + 1) }
                offset += size
            }
        }
        walk(0, b.count, parent: "", depth: 0)
        return result
    }

    static func structure(_ b: [UInt8]) -> Structure {
        var s = Structure()
        let boxes = boxes(b)
        s.hot = [0..<Swift.min(b.count, 64)]
        for box in boxes {
            s.boundaries.append(box.offset)
            if box.type == "mdat" {
                s.hot.append(box.offset..<box.payload)
            } else if box.parent.isEmpty {
                s.hot.append(box.offset..<box.end)
            }
            let at = box.offset, label = "\(box.type)-\(hex(at))".replacingOccurrences(of: " ", with: "_")
            let priority = named.contains(box.type)
            s.sizeEdits.append(Edit(kind: "box-size-ffffffff", detail: label, priority: priority) {
                $0.putBigEndian(0xFFFF_FFFF, at: at, width: 4)
            })
            s.sizeEdits.append(Edit(kind: "box-size-64bit-huge", detail: label, priority: priority) {
                $0.putBigEndian(1, at: at, width: 4)
                $0.putBigEndian(0x7FFF_FFFF_FFFF_FFF0, at: at + 8, width: 8)
            })
            if box.parent.isEmpty {
                // At the top level, a size of 0 means "to the end of the file"; a negative one is nonsense.
                s.sizeEdits.append(Edit(kind: "box-size-64bit-negative", detail: label, priority: true) {
                    $0.putBigEndian(1, at: at, width: 4)
                    $0.putBigEndian(0xFFFF_FFFF_FFFF_FFFF, at: at + 8, width: 8)
                })
                s.sizeEdits.append(Edit(kind: "box-size-zero", detail: label, priority: true) {
                    $0.putBigEndian(0, at: at, width: 4)
                })
            }
            s.fieldEdits += fieldEdits(box, b)
            if box.type == "data", box.parent != "ilst", box.size > box.headerSize + 8 {
                let range = box.payload + 8..<box.end
                let text = b[range]
                s.textFields.append(TextField(label: "\(box.parent)-\(hex(range.lowerBound))".replacingOccurrences(of: " ", with: "_"),
                                              range: range, key: box.parent, text: text))
            }
        }
        return s
    }

    /// Numeric fields whose values the demuxer computes with: timescales, durations, counts, offsets.
    private static func fieldEdits(_ box: Box, _ b: [UInt8]) -> [Edit] {
        let p = box.payload, label = "\(box.type)-\(hex(box.offset))".replacingOccurrences(of: " ", with: "_")
        var edits: [Edit] = []
        func set(_ field: String, _ offset: Int, _ width: Int, _ value: UInt64, priority: Bool = true) {
            guard offset + width <= box.end else { return }
            edits.append(Edit(kind: "box-field", detail: "\(label)-\(field)", priority: priority) {
                $0.putBigEndian(value, at: offset, width: width)
            })
        }
        let version = b.bigEndian(at: p, width: 1) ?? 0
        switch box.type {
        case "mvhd", "mdhd":
            let (timescale, duration, width) = version == 1 ? (p + 20, p + 24, 8) : (p + 12, p + 16, 4)
            set("timescale-0", timescale, 4, 0)
            set("timescale-max", timescale, 4, 0xFFFF_FFFF)
            set("duration-max", duration, width, width == 8 ? 0x7FFF_FFFF_FFFF_FFFF : 0xFFFF_FFFF)
        case "tkhd":
            set("duration-max", version == 1 ? p + 28 : p + 20, version == 1 ? 8 : 4, version == 1 ? 0x7FFF_FFFF_FFFF_FFFF : 0xFFFF_FFFF, priority: false)
            set("width-max", box.end - 8, 4, 0xFFFF_FFFF, priority: false)
        case "stts":
            set("count-max", p + 4, 4, 0xFFFF_FFFF)
            set("delta-max", p + 12, 4, 0xFFFF_FFFF)
            set("samples-max", p + 8, 4, 0xFFFF_FFFF)
        case "ctts":
            set("count-max", p + 4, 4, 0xFFFF_FFFF)
            set("offset-max", p + 12, 4, 0x7FFF_FFFF)
            set("offset-min", p + 12, 4, 0x8000_0000)
        case "stsz":
            set("uniform-max", p + 4, 4, 0xFFFF_FFFF)
            set("count-max", p + 8, 4, 0xFFFF_FFFF)
            set("first-max", p + 12, 4, 0xFFFF_FFFF)
        case "stco":
            set("count-max", p + 4, 4, 0xFFFF_FFFF)
            set("first-max", p + 8, 4, 0xFFFF_FFFF)
        case "co64":
            set("first-max", p + 8, 8, 0x7FFF_FFFF_FFFF_FFFF)
        case "stsc":
            set("count-max", p + 4, 4, 0xFFFF_FFFF)
            set("first-chunk-0", p + 8, 4, 0)
            set("per-chunk-max", p + 12, 4, 0xFFFF_FFFF)
        case "stss":
            set("count-max", p + 4, 4, 0xFFFF_FFFF, priority: false)
        case "stsd":
            set("count-0", p + 4, 4, 0, priority: false)
            set("count-max", p + 4, 4, 0xFFFF_FFFF, priority: false)
        case "elst":
            if version == 1 {
                set("duration-max", p + 8, 8, 0x7FFF_FFFF_FFFF_FFFF)
                set("media-time-max", p + 16, 8, 0x7FFF_FFFF_FFFF_FFFF)
            } else {
                set("duration-max", p + 8, 4, 0xFFFF_FFFF)
                set("media-time-max", p + 12, 4, 0x7FFF_FFFF)
            }
            set("count-max", p + 4, 4, 0xFFFF_FFFF)
        case "tfdt":
            if version == 1 {
                set("time-max", p + 4, 8, 0x7FFF_FFFF_FFFF_FFFF)
                set("time-min", p + 4, 8, 0x8000_0000_0000_0000)
            } else {
                set("time-max", p + 4, 4, 0xFFFF_FFFF)
            }
        case "trun":
            set("count-max", p + 4, 4, 0xFFFF_FFFF)
        case "mehd":
            set("duration-max", p + 4, version == 1 ? 8 : 4, version == 1 ? 0x7FFF_FFFF_FFFF_FFFF : 0xFFFF_FFFF)
        case "hdlr":
            // The handler decides the track's media type: swap it.
            let handler = b.fourCC(at: p + 8)
            let swapped: UInt64 = handler == "vide" ? 0x736F_756E : handler == "soun" ? 0x7669_6465 : 0x7465_7874
            set("handler-swapped", p + 8, 4, swapped)
        case "avcC":
            set("sps-count-max", p + 5, 1, 0xFF)
            set("sps-length-max", p + 6, 2, 0xFFFF)
        case "esds":
            set("descriptor-length-max", p + 5, 1, 0xFF)
        case "data":
            set("type-int", p, 4, 21, priority: false)
            set("type-max", p, 4, 0xFFFF_FFFF, priority: false)
        case "chpl":
            set("count-max", p + 8, 1, 0xFF)
        default:
            if MP4.audioEntries.contains(box.type) {
                set("channels-0", p + 16, 2, 0)
                set("sample-rate-0", p + 24, 4, 0)
            } else if MP4.videoEntries.contains(box.type) {
                set("width-0", p + 24, 2, 0, priority: false)
                set("height-max", p + 26, 2, 0xFFFF, priority: false)
            }
        }
        return edits
    }
}

// MARK: - Matroska / WebM (EBML)

enum EBML {
    struct Element {
        let id: UInt32
        let offset: Int
        let sizeOffset: Int
        let sizeLength: Int
        let dataOffset: Int
        let dataSize: Int
        var name: String { EBML.names[id] ?? String(id, radix: 16) }
        var end: Int { dataOffset + dataSize }
    }

    static let names: [UInt32: String] = [
        0x1A45_DFA3: "EBML", 0x4282: "DocType", 0x1853_8067: "Segment", 0x114D_9B74: "SeekHead", 0x4DBB: "Seek",
        0x53AB: "SeekID", 0x53AC: "SeekPosition", 0x1549_A966: "Info", 0x2AD7_B1: "TimestampScale", 0x4489: "Duration",
        0x7BA9: "Title", 0x4461: "DateUTC", 0x1654_AE6B: "Tracks", 0xAE: "TrackEntry", 0xD7: "TrackNumber",
        0x73C5: "TrackUID", 0x83: "TrackType", 0x86: "CodecID", 0x63A2: "CodecPrivate", 0x23E3_83: "DefaultDuration",
        0x22B5_9C: "Language", 0x536E: "Name", 0xE0: "Video", 0xB0: "PixelWidth", 0xBA: "PixelHeight", 0xE1: "Audio",
        0xB5: "SamplingFrequency", 0x9F: "Channels", 0x56AA: "CodecDelay", 0x56BB: "SeekPreRoll",
        0x1F43_B675: "Cluster", 0xE7: "Timestamp", 0xA3: "SimpleBlock", 0xA0: "BlockGroup", 0xA1: "Block",
        0x9B: "BlockDuration", 0x1C53_BB6B: "Cues", 0xBB: "CuePoint", 0xB3: "CueTime", 0xB7: "CueTrackPositions",
        0xF7: "CueTrack", 0xF1: "CueClusterPosition", 0x1254_C367: "Tags", 0x7373: "Tag", 0x63C0: "Targets",
        0x67C8: "SimpleTag", 0x45A3: "TagName", 0x4487: "TagString", 0x1043_A770: "Chapters", 0x45B9: "EditionEntry",
        0xB6: "ChapterAtom", 0x91: "ChapterTimeStart", 0x92: "ChapterTimeEnd", 0x80: "ChapterDisplay", 0x85: "ChapString",
        0x437C: "ChapLanguage", 0x73C4: "ChapterUID", 0x1941_A469: "Attachments", 0x61A7: "AttachedFile", 0x465C: "FileData",
        0xEC: "Void", 0x6D80: "ContentEncodings",
    ]
    static let masters: Set<UInt32> = [0x1A45_DFA3, 0x1853_8067, 0x114D_9B74, 0x4DBB, 0x1549_A966, 0x1654_AE6B, 0xAE, 0xE0,
                                       0xE1, 0x1F43_B675, 0xA0, 0x1C53_BB6B, 0xBB, 0xB7, 0x1254_C367, 0x7373, 0x63C0, 0x67C8,
                                       0x1043_A770, 0x45B9, 0xB6, 0x80, 0x1941_A469, 0x61A7, 0x6D80]
    /// The elements the issue names, and those that hold what the demuxer parses most.
    static let named: Set<UInt32> = [0x1A45_DFA3, 0x1853_8067, 0x1F43_B675, 0x1654_AE6B, 0x1254_C367, 0x1043_A770, 0x114D_9B74,
                                     0x1549_A966, 0x1C53_BB6B, 0xAE, 0x67C8, 0x4487, 0x45B9, 0xB6, 0x63A2]
    static let unsignedFields: Set<UInt32> = [0x2AD7_B1, 0xD7, 0x83, 0x23E3_83, 0xB0, 0xBA, 0x9F, 0x56AA, 0xE7, 0x9B, 0xB3,
                                              0xF7, 0xF1, 0x91, 0x92, 0x53AC]
    static let floatFields: Set<UInt32> = [0x4489, 0xB5]
    static let textFields: Set<UInt32> = [0x4487, 0x85, 0x7BA9, 0x536E, 0x45A3]

    /// The length of the variable-size integer whose first byte is `byte` (0 when invalid).
    static func vintLength(_ byte: UInt8) -> Int { byte == 0 ? 0 : byte.leadingZeroBitCount + 1 }

    static func elements(_ b: [UInt8]) -> [Element] {
        var result: [Element] = []
        func walk(_ start: Int, _ end: Int, depth: Int) {
            var offset = start
            while offset < end, result.count < 6000, depth < 10 {
                let idLength = vintLength(b[offset])
                guard idLength >= 1, idLength <= 4, let id = b.bigEndian(at: offset, width: idLength) else { return }
                let sizeOffset = offset + idLength
                guard sizeOffset < end else { return }
                let sizeLength = vintLength(b[sizeOffset])
                guard sizeLength >= 1, let raw = b.bigEndian(at: sizeOffset, width: sizeLength) else { return }
                let valueBits = UInt64(7 * sizeLength)
                let value = raw & ((1 << valueBits) - 1)
                let dataOffset = sizeOffset + sizeLength
                let unknown = value == (1 << valueBits) - 1
                guard dataOffset <= end, unknown || value <= UInt64(end - dataOffset) else { return }
                let dataSize = unknown ? end - dataOffset : Int(value)
                let element = Element(id: UInt32(id), offset: offset, sizeOffset: sizeOffset, sizeLength: sizeLength,
                                      dataOffset: dataOffset, dataSize: dataSize)
                result.append(element)
                if masters.contains(element.id) { walk(dataOffset, element.end, depth: depth + 1) }
                offset = element.end
            }
        }
        walk(0, b.count, depth: 0)
        return result
    }

    static func structure(_ b: [UInt8]) -> Structure {
        var s = Structure()
        let elements = elements(b)
        var lastName = ""
        for e in elements {
            s.boundaries.append(e.offset)
            if e.id == 0xA3 || e.id == 0xA1 {
                s.hot.append(e.offset..<e.dataOffset + Swift.min(e.dataSize, 4))
            } else if !masters.contains(e.id) {
                s.hot.append(e.offset..<e.end)
            } else {
                s.hot.append(e.offset..<e.dataOffset)
            }
            let label = "\(e.name)-\(hex(e.offset))", priority = named.contains(e.id)
            let sizeRange = e.sizeOffset..<e.dataOffset, width = e.sizeLength
            s.sizeEdits.append(Edit(kind: "ebml-size-01ffffffffffffff", detail: label, priority: priority) {
                $0.splice(sizeRange, with: [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            })
            s.sizeEdits.append(Edit(kind: "ebml-size-ff", detail: label, priority: priority) {
                $0.splice(sizeRange, with: [0xFF])
            })
            s.sizeEdits.append(Edit(kind: "ebml-size-max", detail: label, priority: priority) {
                // The largest known size of this width: every value bit set but the last.
                let marker = UInt64(1) << UInt64(7 * width)
                $0.putBigEndian(marker | (marker - 2), at: sizeRange.lowerBound, width: width)
            })
            let data = e.dataOffset..<e.end
            if unsignedFields.contains(e.id), e.dataSize > 0, e.dataSize <= 8 {
                s.fieldEdits.append(Edit(kind: "ebml-value", detail: "\(label)-max", priority: true) { $0.fill(data, with: 0xFF) })
                s.fieldEdits.append(Edit(kind: "ebml-value", detail: "\(label)-zero", priority: true) { $0.fill(data, with: 0) })
            } else if floatFields.contains(e.id), e.dataSize == 4 || e.dataSize == 8 {
                let values: [(String, Double)] = [("inf", .infinity), ("nan", .nan), ("negative", -1e300), ("huge", 1e300)]
                for (name, value) in values {
                    let bits = e.dataSize == 8 ? value.bitPattern : UInt64(Float(value).bitPattern)
                    s.fieldEdits.append(Edit(kind: "ebml-value", detail: "\(label)-\(name)", priority: true) {
                        $0.putBigEndian(bits, at: data.lowerBound, width: data.count)
                    })
                }
            } else if textFields.contains(e.id), e.dataSize > 0 {
                let text = b[data]
                // A tag's value comes after its name: "DURATION" values are parsed as times.
                s.textFields.append(TextField(label: "\(e.name)-\(hex(e.offset))", range: data,
                                              key: e.id == 0x4487 ? lastName : e.name, text: text))
            }
            if e.id == 0x45A3 { lastName = String(decoding: b[data], as: UTF8.self) }
        }
        return s
    }
}

// MARK: - RIFF (WAV, AVI)

enum RIFF {
    /// Little-endian fields of a chunk's payload, set to extremes: (name, offset, width, value).
    static let fields: [String: [(String, Int, Int, UInt64)]] = [
        // WAVEFORMATEX.
        "fmt ": [("format-extensible", 0, 2, 0xFFFE), ("format-0", 0, 2, 0), ("channels-0", 2, 2, 0), ("channels-max", 2, 2, 0xFFFF),
                 ("rate-0", 4, 4, 0), ("rate-max", 4, 4, 0xFFFF_FFFF), ("byte-rate-0", 8, 4, 0), ("align-0", 12, 2, 0),
                 ("align-max", 12, 2, 0xFFFF), ("bits-0", 14, 2, 0), ("bits-max", 14, 2, 0xFFFF)],
        // AVI main header.
        "avih": [("usec-per-frame-0", 0, 4, 0), ("usec-per-frame-max", 0, 4, 0xFFFF_FFFF), ("total-frames-max", 16, 4, 0xFFFF_FFFF),
                 ("streams-0", 24, 4, 0), ("streams-max", 24, 4, 0xFFFF_FFFF), ("width-max", 32, 4, 0xFFFF_FFFF)],
        // AVI stream header: the time base is scale/rate.
        "strh": [("scale-0", 20, 4, 0), ("scale-max", 20, 4, 0xFFFF_FFFF), ("rate-0", 24, 4, 0), ("rate-max", 24, 4, 0xFFFF_FFFF),
                 ("start-max", 28, 4, 0xFFFF_FFFF), ("length-max", 32, 4, 0xFFFF_FFFF), ("sample-size-max", 44, 4, 0xFFFF_FFFF)],
        // AVI index: the first entry's offset and size.
        "idx1": [("first-offset-max", 8, 4, 0xFFFF_FFFF), ("first-size-max", 12, 4, 0xFFFF_FFFF), ("first-flags-0", 4, 4, 0)],
    ]

    static func structure(_ b: [UInt8]) -> Structure {
        var s = Structure()
        s.hot = [0..<Swift.min(b.count, 12)]
        s.sizeEdits.append(Edit(kind: "riff-size", detail: "RIFF-ffffffff", priority: true) { $0.putLittleEndian(0xFFFF_FFFF, at: 4, width: 4) })
        s.sizeEdits.append(Edit(kind: "riff-size", detail: "RIFF-0", priority: true) { $0.putLittleEndian(0, at: 4, width: 4) })
        var chunks = 0
        func walk(_ start: Int, _ end: Int, list: String, depth: Int) {
            var offset = start
            while offset + 8 <= end, chunks < 2000, depth < 6, let id = b.fourCC(at: offset),
                  let size = b.littleEndian(at: offset + 4, width: 4) {
                chunks += 1
                s.boundaries.append(offset)
                let at = offset, data = offset + 8, label = "\(id)-\(hex(offset))".replacingOccurrences(of: " ", with: "_")
                let named = depth == 0 || id == "LIST" || fields[id] != nil
                for (name, value) in [("ffffffff", UInt64(0xFFFF_FFFF)), ("7fffffff", 0x7FFF_FFFF), ("0", 0)] {
                    s.sizeEdits.append(Edit(kind: "riff-size", detail: "\(label)-\(name)", priority: named) {
                        $0.putLittleEndian(value, at: at + 4, width: 4)
                    })
                }
                let chunkEnd = Swift.min(b.count, data + Int(size))
                if id == "LIST", let type = b.fourCC(at: data) {
                    s.hot.append(offset..<data + 4)
                    // The media data list holds thousands of chunks: only its start is structure.
                    if type != "movi" { walk(data + 4, chunkEnd, list: type, depth: depth + 1) }
                } else if id == "data" {
                    s.hot.append(offset..<data)
                } else {
                    s.hot.append(offset..<Swift.min(chunkEnd, data + 4096))
                }
                for (name, field, width, value) in fields[id] ?? [] where field + width <= Int(size) {
                    s.fieldEdits.append(Edit(kind: "riff-field", detail: "\(label)-\(name)", priority: true) {
                        $0.putLittleEndian(value, at: data + field, width: width)
                    })
                }
                if list == "INFO", data < chunkEnd {
                    s.textFields.append(TextField(label: label, range: data..<chunkEnd, key: id, text: b[data..<chunkEnd]))
                }
                offset = data + Int(size) + Int(size & 1)
            }
        }
        walk(12, b.count, list: "", depth: 0)
        return s
    }
}

// MARK: - FLAC

enum FLAC {
    static func structure(_ b: [UInt8]) -> Structure {
        var s = Structure()
        s.hot = [0..<Swift.min(b.count, 4)]
        var offset = 4
        var first = true
        while offset + 4 <= b.count, let header = b.bigEndian(at: offset, width: 1), let length = b.bigEndian(at: offset + 1, width: 3) {
            let type = Int(header & 0x7F), last = header & 0x80 != 0, at = offset, p = offset + 4
            let label = "block\(type)-\(hex(offset))"
            s.boundaries.append(offset)
            s.hot.append(offset..<Swift.min(b.count, p + Int(length)))
            for (name, value) in [("ffffff", UInt64(0xFF_FFFF)), ("0", 0), ("plus-one", length + 1)] {
                s.sizeEdits.append(Edit(kind: "flac-block-size", detail: "\(label)-\(name)", priority: true) {
                    $0.putBigEndian(value, at: at + 1, width: 3)
                })
            }
            if first {
                s.fieldEdits.append(Edit(kind: "flac-field", detail: "\(label)-last-flag", priority: true) { $0[at] |= 0x80 })
            }
            s.fieldEdits.append(Edit(kind: "flac-field", detail: "\(label)-type-127", priority: false) { $0[at] = (last ? 0x80 : 0) | 0x7F })
            switch type {
            case 0:
                let fields: [(String, Int, Int, UInt64)] = [
                    ("min-block-0", 0, 2, 0), ("max-block-0", 2, 2, 0), ("max-frame-max", 7, 3, 0xFF_FFFF),
                    ("rate-0", 10, 2, 0), ("total-samples-max", 14, 4, 0xFFFF_FFFF),
                ]
                for (name, field, width, value) in fields {
                    s.fieldEdits.append(Edit(kind: "flac-field", detail: "streaminfo-\(name)", priority: true) {
                        $0.putBigEndian(value, at: p + field, width: width)
                    })
                }
            case 4:
                s.textFields += vorbisComments(b, at: p, end: p + Int(length), fixup: nil)
                s.fieldEdits += vorbisCommentEdits(b, at: p, label: "vorbis-comment", kind: "flac-field", fixup: nil)
            case 6:
                let fields: [(String, Int, UInt64)] = [("mime-length-max", 4, 0xFFFF_FFFF)]
                for (name, field, value) in fields {
                    s.fieldEdits.append(Edit(kind: "flac-field", detail: "picture-\(name)", priority: true) {
                        $0.putBigEndian(value, at: p + field, width: 4)
                    })
                }
                if let mime = b.bigEndian(at: p + 4, width: 4), mime < 256, let description = b.bigEndian(at: p + 8 + Int(mime), width: 4), description < 4096 {
                    let dataLength = p + 8 + Int(mime) + 4 + Int(description) + 16
                    s.fieldEdits.append(Edit(kind: "flac-field", detail: "picture-description-length-max", priority: true) {
                        $0.putBigEndian(0xFFFF_FFFF, at: p + 8 + Int(mime), width: 4)
                    })
                    s.fieldEdits.append(Edit(kind: "flac-field", detail: "picture-data-length-max", priority: true) {
                        $0.putBigEndian(0xFFFF_FFFF, at: dataLength, width: 4)
                    })
                }
            default:
                break
            }
            first = false
            offset = p + Int(length)
            if last { break }
        }
        return s
    }

    /// The values of a Vorbis comment block at `offset` (little-endian lengths).
    static func vorbisComments(_ b: [UInt8], at offset: Int, end: Int, fixup: (@Sendable (inout [UInt8]) -> Void)?) -> [TextField] {
        guard let vendor = b.littleEndian(at: offset, width: 4), vendor < 4096,
              let count = b.littleEndian(at: offset + 4 + Int(vendor), width: 4), count < 1024 else { return [] }
        var fields: [TextField] = []
        var p = offset + 8 + Int(vendor)
        for _ in 0..<count {
            guard let length = b.littleEndian(at: p, width: 4), length < 65536, p + 4 + Int(length) <= Swift.min(end, b.count) else { break }
            let comment = b[p + 4..<p + 4 + Int(length)]
            if let equals = comment.firstIndex(of: UInt8(ascii: "=")), equals + 1 < comment.endIndex {
                let key = String(decoding: comment[comment.startIndex..<equals], as: UTF8.self)
                let range = equals + 1..<comment.endIndex
                fields.append(TextField(label: "\(key)-\(hex(p))", range: range, key: key, text: b[range], fixup: fixup))
            }
            p += 4 + Int(length)
        }
        return fields
    }

    /// Vendor length, comment count and first comment length set huge.
    static func vorbisCommentEdits(_ b: [UInt8], at offset: Int, label: String, kind: String,
                                   fixup: (@Sendable (inout [UInt8]) -> Void)?) -> [Edit] {
        guard let vendor = b.littleEndian(at: offset, width: 4), vendor < 4096 else { return [] }
        let fields: [(String, Int, UInt64)] = [
            ("vendor-length-max", offset, 0xFFFF_FFFF), ("count-max", offset + 4 + Int(vendor), 0xFFFF_FFFF),
            ("first-length-max", offset + 8 + Int(vendor), 0xFFFF_FFFF), ("first-length-7fffffff", offset + 8 + Int(vendor), 0x7FFF_FFFF),
        ]
        return fields.map { name, at, value in
            Edit(kind: kind, detail: "\(label)-\(name)", priority: true) {
                $0.putLittleEndian(value, at: at, width: 4)
                fixup?(&$0)
            }
        }
    }
}

// MARK: - Ogg

enum Ogg {
    struct Page {
        let offset: Int
        let payload: Int
        let end: Int
    }

    static func pages(_ b: [UInt8]) -> [Page] {
        var result: [Page] = []
        var offset = 0
        while b.hasPrefix("OggS", at: offset), let segments = b.bigEndian(at: offset + 26, width: 1) {
            let lacing = offset + 27
            guard lacing + Int(segments) <= b.count else { break }
            let length = b[lacing..<lacing + Int(segments)].reduce(0) { $0 + Int($1) }
            let page = Page(offset: offset, payload: lacing + Int(segments), end: Swift.min(b.count, lacing + Int(segments) + length))
            result.append(page)
            offset = page.end
        }
        return result
    }

    /// The Ogg CRC-32 (polynomial 0x04C11DB7, no reflection, initial 0).
    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// Recomputes the checksum of every page: a mutated header field is then read, not skipped.
    @Sendable static func fixChecksums(_ b: inout [UInt8]) {
        for page in pages(b) {
            b.putLittleEndian(0, at: page.offset + 22, width: 4)
            b.putLittleEndian(UInt64(crc(b[page.offset..<page.end])), at: page.offset + 22, width: 4)
        }
    }

    static func structure(_ b: [UInt8]) -> Structure {
        var s = Structure()
        let pages = pages(b)
        for page in pages {
            s.boundaries.append(page.offset)
            s.hot.append(page.offset..<page.payload)
        }
        func granule(_ index: Int, _ name: String, _ value: UInt64) {
            guard pages.indices.contains(index) else { return }
            let at = pages[index].offset + 6
            s.fieldEdits.append(Edit(kind: "ogg-granule", detail: "page\(index)-\(name)", priority: true) {
                $0.putLittleEndian(value, at: at, width: 8)
                fixChecksums(&$0)
            })
        }
        let last = pages.count - 1
        for (index, values) in [(last, ["max", "min", "minus-one"]), (2, ["max", "min"]), (pages.count / 2, ["max"])] {
            for name in values {
                granule(index, name, name == "max" ? 0x7FFF_FFFF_FFFF_FFFF : name == "min" ? 0x8000_0000_0000_0001 : 0xFFFF_FFFF_FFFF_FFFF)
            }
        }
        for index in [2, last] where pages.indices.contains(index) {
            let at = pages[index].offset + 14
            s.fieldEdits.append(Edit(kind: "ogg-serial", detail: "page\(index)-new-stream", priority: true) {
                $0.putLittleEndian(0x0BAD_CAFE, at: at, width: 4)
                fixChecksums(&$0)
            })
        }
        if let head = pages.first, b.hasPrefix("OpusHead", at: head.payload) {
            let p = head.payload
            let fields: [(String, Int, Int, UInt64)] = [
                ("version-max", 8, 1, 0xFF), ("channels-0", 9, 1, 0), ("channels-max", 9, 1, 0xFF), ("preskip-max", 10, 2, 0xFFFF),
                ("rate-0", 12, 4, 0), ("rate-max", 12, 4, 0xFFFF_FFFF), ("mapping-1", 18, 1, 1), ("mapping-max", 18, 1, 0xFF),
            ]
            for (name, field, width, value) in fields {
                s.fieldEdits.append(Edit(kind: "ogg-opus-head", detail: name, priority: true) {
                    $0.putLittleEndian(value, at: p + field, width: width)
                    fixChecksums(&$0)
                })
            }
        }
        if pages.count > 1, b.hasPrefix("OpusTags", at: pages[1].payload) {
            let p = pages[1].payload + 8
            s.fieldEdits += FLAC.vorbisCommentEdits(b, at: p, label: "opus-tags", kind: "ogg-opus-tags", fixup: fixChecksums)
            s.textFields += FLAC.vorbisComments(b, at: p, end: pages[1].end, fixup: fixChecksums)
        }
        return s
    }
}

// MARK: - MP3 (ID3v2, Xing, ID3v1)

enum MP3 {
    static func structure(_ b: [UInt8]) -> Structure {
        var s = Structure()
        var audio = 0
        if b.hasPrefix("ID3"), let version = b.bigEndian(at: 3, width: 1), let raw = b.bigEndian(at: 6, width: 4) {
            let syncsafe = { (v: UInt64) -> Int in Int((v & 0x7F) | (v >> 1 & 0x3F80) | (v >> 2 & 0x1F_C000) | (v >> 3 & 0xFE0_0000)) }
            let tagEnd = Swift.min(b.count, 10 + syncsafe(raw))
            audio = tagEnd
            s.hot.append(0..<tagEnd)
            s.boundaries.append(10)
            let header: [(String, Int, Int, UInt64)] = [
                ("size-max", 6, 4, 0x7F7F_7F7F), ("size-0", 6, 4, 0), ("version-max", 3, 1, 0xFF), ("version-2", 3, 1, 2), ("flags-max", 5, 1, 0xFF),
            ]
            for (name, at, width, value) in header {
                s.sizeEdits.append(Edit(kind: "id3-header", detail: name, priority: true) { $0.putBigEndian(value, at: at, width: width) })
            }
            var offset = 10
            while offset + 10 <= tagEnd, let id = b.fourCC(at: offset), id.allSatisfy({ $0.isUppercase || $0.isNumber }),
                  let rawSize = b.bigEndian(at: offset + 4, width: 4) {
                let size = version >= 4 ? syncsafe(rawSize) : Int(rawSize)
                guard size > 0, offset + 10 + size <= tagEnd else { break }
                let at = offset, label = "\(id)-\(hex(offset))"
                s.boundaries.append(offset)
                s.sizeEdits.append(Edit(kind: "id3-frame-size", detail: "\(label)-max", priority: true) {
                    $0.putBigEndian(version >= 4 ? 0x7F7F_7F7F : 0xFFFF_FFFF, at: at + 4, width: 4)
                })
                s.sizeEdits.append(Edit(kind: "id3-frame-size", detail: "\(label)-0", priority: false) { $0.putBigEndian(0, at: at + 4, width: 4) })
                if id.hasPrefix("T") || id == "APIC" || id == "COMM" {
                    s.fieldEdits.append(Edit(kind: "id3-field", detail: "\(label)-encoding-max", priority: true) { $0[at + 10] = 0xFF })
                    s.fieldEdits.append(Edit(kind: "id3-field", detail: "\(label)-encoding-utf16", priority: false) { $0[at + 10] = 0x01 })
                }
                if id.hasPrefix("T"), size > 1 {
                    let range = offset + 11..<offset + 10 + size
                    s.textFields.append(TextField(label: label, range: range, key: id, text: b[range]))
                }
                offset += 10 + size
            }
        }
        s.hot.append(audio..<Swift.min(b.count, audio + 512))
        for tag in ["Xing", "Info"] {
            guard let at = b.occurrences(of: tag, in: audio..<Swift.min(b.count, audio + 4096)).first,
                  let flags = b.bigEndian(at: at + 4, width: 4) else { continue }
            var field = at + 8
            if flags & 1 != 0 {
                let f = field
                s.fieldEdits.append(Edit(kind: "xing-field", detail: "\(tag)-frames-max", priority: true) { $0.putBigEndian(0xFFFF_FFFF, at: f, width: 4) })
                s.fieldEdits.append(Edit(kind: "xing-field", detail: "\(tag)-frames-0", priority: true) { $0.putBigEndian(0, at: f, width: 4) })
                field += 4
            }
            if flags & 2 != 0 {
                let f = field
                s.fieldEdits.append(Edit(kind: "xing-field", detail: "\(tag)-bytes-max", priority: true) { $0.putBigEndian(0xFFFF_FFFF, at: f, width: 4) })
            }
        }
        if b.count >= 128, b.hasPrefix("TAG", at: b.count - 128) {
            s.hot.append(b.count - 128..<b.count)
            s.textFields.append(TextField(label: "id3v1-title", range: b.count - 125..<b.count - 95, key: "TITLE", text: b[b.count - 125..<b.count - 95]))
            s.textFields.append(TextField(label: "id3v1-year", range: b.count - 35..<b.count - 31, key: "YEAR", text: b[b.count - 35..<b.count - 31]))
        }
        return s
    }
}

// MARK: - The mutants of one fixture

/// Builds the fixed set of mutants of one fixture and writes each to `directory`.
struct MutantWriter {
    let fixture: String
    let original: [UInt8]
    let directory: URL
    private(set) var written: [(name: String, path: String)] = []
    private var names: Set<String> = []
    private let stem: String
    private let ext: String

    init(fixture: String, original: [UInt8], directory: URL) {
        self.fixture = fixture
        self.original = original
        self.directory = directory
        let url = URL(fileURLWithPath: fixture)
        stem = url.deletingPathExtension().lastPathComponent
        ext = url.pathExtension
    }

    /// Writes `bytes` as "<stem>.<kind>.<detail>.<ext>", unless that name is taken or nothing changed.
    mutating func add(_ kind: String, _ detail: String, _ bytes: [UInt8]) throws {
        let safe = detail.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "+" || $0 == "_" ? $0 : "_" }
        let name = "\(stem).\(kind).\(String(safe)).\(ext)"
        guard !MutantWriter.same(bytes, original), names.insert(name).inserted else { return }
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        written.append((name, url.path))
    }

    /// Byte equality with memcmp: `==` on arrays is slow in a debug build.
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                guard let x = a.baseAddress, let y = b.baseAddress else { return a.count == b.count }
                return memcmp(x, y, a.count) == 0
            }
        }
    }

    mutating func edit(_ kind: String, _ detail: String, _ body: (inout [UInt8]) -> Void) throws {
        var bytes = original
        body(&bytes)
        try add(kind, detail, bytes)
    }
}

/// How many of each kind of mutant a fixture gets. The suite's budget is shared out among the fixtures,
/// so that adding fixtures does not make MutationTests slower: about 760 mutants in all, which keeps it
/// near 30 s on two cores in a debug build.
struct MutantBudget {
    var truncations = 8
    var bitFlips = 5
    var multiBitFlips = 2
    var zeroRanges = 2
    var filledRanges = 2
    var sizeEdits = 8
    var fieldEdits = 7
    var textFields = 1
    var splices = 2
    /// Added to every fixture's seed; 0 gives the fixed set.
    var seed: UInt64 = 0

    /// Every count times `factor` (rounded, at least 1).
    func scaled(by factor: Double) -> MutantBudget {
        func scale(_ n: Int) -> Int { Swift.max(1, Int((Double(n) * factor).rounded())) }
        var budget = self
        budget.truncations = scale(truncations)
        budget.bitFlips = scale(bitFlips)
        budget.multiBitFlips = scale(multiBitFlips)
        budget.zeroRanges = scale(zeroRanges)
        budget.filledRanges = scale(filledRanges)
        budget.sizeEdits = scale(sizeEdits)
        budget.fieldEdits = scale(fieldEdits)
        budget.textFields = scale(textFields)
        budget.splices = scale(splices)
        return budget
    }

    /// The budget of each of `fixtures` fixtures: the default counts are for 20 of them; fewer fixtures
    /// get more each (at most twice as many), more get fewer (at least half). `AVOCET_MUTANTS_SCALE`
    /// multiplies every count and `AVOCET_MUTANTS_SEED` changes the seed, for a deeper search by hand
    /// (both unset in the suite).
    static func forSuite(fixtures: Int) -> MutantBudget {
        let environment = ProcessInfo.processInfo.environment
        let scale = environment["AVOCET_MUTANTS_SCALE"].flatMap(Double.init) ?? 1
        let share = Swift.min(2, Swift.max(0.5, 20 / Double(Swift.max(1, fixtures))))
        var budget = MutantBudget().scaled(by: share * Swift.max(1, scale))
        budget.seed = environment["AVOCET_MUTANTS_SEED"].flatMap { UInt64($0) } ?? 0
        return budget
    }
}

enum Mutants {
    /// The structure of a fixture, by its magic bytes.
    static func structure(of b: [UInt8]) -> Structure {
        if b.hasPrefix("ftyp", at: 4) || b.hasPrefix("moov", at: 4) || b.hasPrefix("mdat", at: 4) || b.hasPrefix("free", at: 4) {
            return MP4.structure(b)
        }
        if b.bigEndian(at: 0, width: 4) == 0x1A45_DFA3 {
            return EBML.structure(b)
        }
        if b.hasPrefix("RIFF") { return RIFF.structure(b) }
        if b.hasPrefix("fLaC") { return FLAC.structure(b) }
        if b.hasPrefix("OggS") { return Ogg.structure(b) }
        return MP3.structure(b)
    }

    /// Same-length replacements for a text field: numbers too big for any integer, time-shaped text with
    /// empty parts, bytes that are not UTF-8, and an empty C string.
    static func textPatterns(length n: Int) -> [(String, [UInt8])] {
        let nine = UInt8(ascii: "9"), zero = UInt8(ascii: "0")
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
        var patterns: [(String, [UInt8])] = [("nines", [UInt8](repeating: nine, count: n))]
        if n >= 6 {
            patterns.append(("huge-hours", [UInt8](repeating: nine, count: n - 5) + ascii(":0:0.")))
            patterns.append(("empty-seconds", [UInt8](repeating: zero, count: n - 4) + ascii(":0:.")))
        }
        patterns.append(("not-utf8", [UInt8](repeating: 0xFF, count: n)))
        return patterns
    }

    /// `count` of `edits`, taken in turn from each kind (priority edits of a kind before the others, each
    /// group in a seeded random order), so that one plentiful kind cannot crowd out the rest.
    static func stratified(_ edits: [Edit], count: Int, _ rng: inout SplitMix64) -> [Edit] {
        var kinds: [String] = []
        var groups: [String: [Edit]] = [:]
        for edit in edits {
            if groups[edit.kind] == nil { kinds.append(edit.kind) }
            groups[edit.kind, default: []].append(edit)
        }
        var queues = kinds.map { kind -> [Edit] in
            let group = groups[kind] ?? []
            let first = group.filter(\.priority), rest = group.filter { !$0.priority }
            return rng.shuffled(first) + rng.shuffled(rest)
        }
        var result: [Edit] = []
        while result.count < count, queues.contains(where: { !$0.isEmpty }) {
            for i in queues.indices where result.count < count && !queues[i].isEmpty {
                result.append(queues[i].removeFirst())
            }
        }
        return result
    }

    /// An offset in one of `ranges` (weighted by length), or anywhere when there are none.
    static func offset(in ranges: [Range<Int>], count: Int, _ rng: inout SplitMix64) -> Int {
        let usable = ranges.map { $0.clamped(to: 0..<count) }.filter { !$0.isEmpty }
        let total = usable.reduce(0) { $0 + $1.count }
        guard total > 0 else { return rng.below(count) }
        var pick = rng.below(total)
        for range in usable {
            if pick < range.count { return range.lowerBound + pick }
            pick -= range.count
        }
        return rng.below(count)
    }

    /// Every mutant of `fixture` (bytes `b`), written to `directory`. `others` are the other fixtures, for
    /// splices. The same inputs give the same mutants, byte for byte.
    static func write(fixture: String, bytes b: [UInt8], others: [(name: String, bytes: [UInt8])], budget: MutantBudget,
                      to directory: URL) throws -> [(name: String, path: String)] {
        var rng = SplitMix64(seed: 0xA70C_E7 ^ stableHash(fixture) &+ budget.seed)
        var out = MutantWriter(fixture: fixture, original: b, directory: directory)
        let n = b.count
        guard n > 16 else { return [] }
        let s = structure(of: b)
        let hot = s.hot.isEmpty ? [0..<Swift.min(n, 4096), Swift.max(0, n - 1024)..<n] : s.hot

        // Truncations: a tiny prefix, thirds, all but the last byte, and at or just inside structures.
        var cuts: Set = [8, n / 3, n * 2 / 3, n - 1]
        let structural = rng.sample(s.boundaries.filter { $0 > 0 && $0 < n }, count: Swift.max(0, budget.truncations - cuts.count) / 2)
        for boundary in structural {
            cuts.insert(boundary)
            cuts.insert(Swift.min(n - 1, boundary + 4 + rng.below(12)))
        }
        for cut in cuts.sorted() { try out.add("truncated", "at-\(hex(cut))", Array(b[0..<cut])) }

        // Bit flips: single bits, mostly in structure, and bursts of bits in a small window.
        for i in 0..<budget.bitFlips {
            let at = i < budget.bitFlips * 7 / 10 ? offset(in: hot, count: n, &rng) : rng.below(n)
            let bit = rng.below(8)
            try out.edit("bitflip", "\(hex(at))-bit\(bit)") { $0[at] ^= 1 << UInt8(bit) }
        }
        for _ in 0..<budget.multiBitFlips {
            let start = offset(in: hot, count: n, &rng), window = Swift.min(64, n - start)
            var flips: [(Int, Int)] = []
            for _ in 0..<16 { flips.append((start + rng.below(window), rng.below(8))) }
            try out.edit("bitflips", "16-in-\(hex(start))") { bytes in for (at, bit) in flips { bytes[at] ^= 1 << UInt8(bit) } }
        }
        let scattered = (0..<64).map { _ in (rng.below(n), rng.below(8)) }
        try out.edit("bitflips", "64-scattered") { bytes in for (at, bit) in scattered { bytes[at] ^= 1 << UInt8(bit) } }

        // Ranges zeroed and filled with 0xFF: small ones in structure, one large anywhere.
        for (kind, byte, count) in [("zeroed", UInt8(0), budget.zeroRanges), ("filled-ff", UInt8(0xFF), budget.filledRanges)] {
            for i in 0..<count {
                let large = i == count - 1
                let length = large ? Swift.max(1, n / 8) : 4 + rng.below(252)
                let start = large ? rng.below(n) : offset(in: hot, count: n, &rng)
                try out.edit(kind, "\(hex(start))-len\(hex(length))") { $0.fill(start..<start + length, with: byte) }
            }
        }

        // Sizes set huge and fields set to extremes: every kind gets its turn, the named structures first.
        for edit in stratified(s.sizeEdits, count: budget.sizeEdits, &rng) + stratified(s.fieldEdits, count: budget.fieldEdits, &rng) {
            try out.edit(edit.kind, edit.detail, edit.apply)
        }

        // Tag values rewritten in place: those parsed as numbers or times first, then numeric-looking ones.
        let texts = (0...2).flatMap { rank in rng.shuffled(s.textFields.filter { $0.rank == rank }) }
        for field in texts.prefix(budget.textFields) where !field.range.isEmpty {
            for (name, pattern) in textPatterns(length: field.range.count) {
                try out.edit("tag-text", "\(field.label)-\(name)") { bytes in
                    bytes.splice(field.range, with: pattern)
                    field.fixup?(&bytes)
                }
            }
        }

        // Splices: the head of this fixture on the tail of another, and on a later part of itself.
        let partners = others.filter { $0.name != fixture }
        for i in 0..<budget.splices {
            let partner: (name: String, bytes: [UInt8]) = i == budget.splices - 1 || partners.isEmpty
                ? (fixture, b) : partners[rng.below(partners.count)]
            let cut = rng.int(in: n / 4..<Swift.max(n / 4 + 1, n * 3 / 4))
            let from = rng.int(in: partner.1.count / 8..<Swift.max(partner.1.count / 8 + 1, partner.1.count * 7 / 8))
            try out.add("splice", "head-\(hex(cut))+\(partner.0)-from-\(hex(from))", Array(b[0..<cut]) + Array(partner.1[from...]))
        }
        return out.written
    }
}
