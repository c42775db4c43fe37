import AVFoundation
import Foundation
import Testing

/// `AVTimedMetadataGroup(sampleBuffer:)` on timed ID3 samples made in memory: versions, encodings,
/// flags, FFmpeg 5.1's cut tags, and bytes that are not a tag.
@Suite("Timed metadata groups from samples")
struct TimedMetadataGroupTests {
    static func syncsafe(_ n: Int) -> [UInt8] { [UInt8((n >> 21) & 0x7F), UInt8((n >> 14) & 0x7F), UInt8((n >> 7) & 0x7F), UInt8(n & 0x7F)] }

    /// A frame of version 2.4 (syncsafe size) or 2.3 (plain size).
    static func frame(_ id: String, _ content: [UInt8], version: UInt8 = 4, flags: [UInt8] = [0, 0]) -> [UInt8] {
        let size = version == 4 ? syncsafe(content.count) : withUnsafeBytes(of: UInt32(content.count).bigEndian, Array.init)
        return Array(id.utf8) + size + flags + content
    }

    static func tag(_ frames: [[UInt8]], version: UInt8 = 4, flags: UInt8 = 0) -> [UInt8] {
        let body = frames.flatMap { $0 }
        return Array("ID3".utf8) + [version, 0, flags] + syncsafe(body.count) + body
    }

    static func sample(_ bytes: [UInt8], subtype: CMMetadataFormatType = kCMMetadataFormatType_ID3,
                       mediaType: CMFormatDescription.MediaType = .metadata, seconds: Double = 2) throws -> CMSampleBuffer {
        let format = try CMFormatDescription(mediaType: mediaType, mediaSubType: .init(rawValue: subtype))
        return try sample(bytes, format: format, timing: CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: CMTime(seconds: seconds, preferredTimescale: 90_000),
                                                                            decodeTimeStamp: .invalid))
    }

    /// One sample of `bytes` in `format`, with `timing`.
    static func sample(_ bytes: [UInt8], format: CMFormatDescription?, timing: CMSampleTimingInfo) throws -> CMSampleBuffer {
        let block = try CMBlockBuffer(length: max(1, bytes.count), flags: .assureMemoryNow)
        try bytes.withUnsafeBytes { try block.replaceDataBytes(with: $0) }
        return try CMSampleBuffer(dataBuffer: block, formatDescription: format, numSamples: 1, sampleTimings: [timing], sampleSizes: [bytes.count])
    }

    static func values(_ group: AVTimedMetadataGroup?) async throws -> [String] {
        var values: [String] = []
        for item in group?.items ?? [] {
            let key = item.identifier?.rawValue ?? "?"
            if let text = try await item.load(.stringValue) { values.append("\(key)=\(text)") } else if let data = try await item.load(.dataValue) {
                values.append("\(key)=\(data.map { String(format: "%02x", $0) }.joined())")
            }
        }
        return values
    }

    @Test func textFramesInEveryEncoding() async throws {
        let little: [UInt8] = "Zoë".utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let big: [UInt8] = "Noël".utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        let utf16 = [UInt8(1), 0xFF, 0xFE] + little
        let utf16BE = [UInt8(2)] + big
        let latin1 = [UInt8(0)] + [0x43, 0x61, 0x66, 0xE9]  // "Café"
        let utf8 = [UInt8(3)] + Array("Straße".utf8)
        let bytes = Self.tag([Self.frame("TIT2", utf16), Self.frame("TPE1", utf16BE), Self.frame("TALB", latin1), Self.frame("TCOM", utf8)])
        let group = AVTimedMetadataGroup(sampleBuffer: try Self.sample(bytes))
        #expect(try await Self.values(group) == ["id3/TIT2=Zoë", "id3/TPE1=Noël", "id3/TALB=Café", "id3/TCOM=Straße"])
        #expect(group?.timeRange.start == CMTime(seconds: 2, preferredTimescale: 90_000))
        #expect(group?.timeRange.duration == .indefinite)
        #expect(group?.items.first?.commonKey == .commonKeyTitle)
    }

    @Test func userTextCommentsAndPrivateData() async throws {
        let txxx = [UInt8(3)] + Array("segment\0intro".utf8)
        let comm = [UInt8(3)] + Array("fra".utf8) + Array("note\0bonjour".utf8)
        let priv = Array("com.apple.streaming.transportStreamTimestamp\0".utf8) + [0, 0, 0, 0, 0, 0x01, 0x5F, 0x90]
        let group = try #require(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([Self.frame("TXXX", txxx), Self.frame("COMM", comm), Self.frame("PRIV", priv)]))))
        #expect(try await Self.values(group) == ["id3/TXXX=intro", "id3/COMM=bonjour", "id3/PRIV=0000000000015f90"])
        #expect(try await group.items[0].load(.extraAttributes)?[.info] as? String == "segment")
        #expect(try await group.items[1].load(.extraAttributes)?[.info] as? String == "note")
        #expect(group.items[1].extendedLanguageTag == "fr")
        #expect(try await group.items[2].load(.extraAttributes)?[.info] as? String == "com.apple.streaming.transportStreamTimestamp")
    }

    @Test func version23SizesAndFlags() async throws {
        // Version 2.3 counts frame sizes in plain bytes: a 200-byte title is not syncsafe.
        let long = String(repeating: "a", count: 200)
        let title = Self.frame("TIT2", [3] + Array(long.utf8), version: 3)
        // A grouped frame (one group byte before the content), and a compressed one, which is left out.
        let grouped = Self.frame("TPE1", [7, 3] + Array("Ann".utf8), version: 3, flags: [0, 0x20])
        let compressed = Self.frame("TALB", [0, 0, 0, 9, 0x78, 0x9C], version: 3, flags: [0, 0x80])
        let group = AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([title, grouped, compressed], version: 3)))
        #expect(try await Self.values(group) == ["id3/TIT2=\(long)", "id3/TPE1=Ann"])
    }

    @Test func unsynchronisationIsUndone() async throws {
        // A 2.4 frame marked unsynchronised: the zero after each 0xFF was added and goes.
        let frame = Self.frame("PRIV", Array("o\0".utf8) + [0xFF, 0x00, 0xE0, 0x01], flags: [0, 0x02])
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([frame])))) == ["id3/PRIV=ffe001"])
    }

    @Test func aVersion24TagHeadersUnsynchronisationIsUndoneFrameByFrame() async throws {
        // In v2.4 the header's flag marks every frame unsynchronised, and frame sizes count the bytes as
        // stored: undoing the whole body first would cut the frame short of its size.
        let stored = Self.frame("PRIV", Array("o\0".utf8) + [0xFF, 0x00, 0xE0, 0x01])
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([stored], flags: 0x80)))) == ["id3/PRIV=ffe001"])
        // The frame's own flag as well: undone once, so FF 00 00 (FF 00 unsynchronised) stays FF 00.
        let both = Self.frame("PRIV", Array("o\0".utf8) + [0xFF, 0x00, 0x00, 0xE0], flags: [0, 0x02])
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([both], flags: 0x80)))) == ["id3/PRIV=ff00e0"])
    }

    @Test func aVersion23TagHeadersUnsynchronisationIsUndoneOverTheBody() async throws {
        // In v2.3 the whole body is unsynchronised after the frames are made: their sizes count the
        // bytes with the inserted zeros gone.
        let frames = Self.frame("PRIV", Array("o\0".utf8) + [0xFF, 0xE0, 0x01], version: 3) + Self.frame("TIT2", [3] + Array("Hi".utf8), version: 3)
        var stored: [UInt8] = []
        for byte in frames {
            if stored.last == 0xFF, byte == 0 || byte >= 0xE0 { stored.append(0) }
            stored.append(byte)
        }
        #expect(stored.count == frames.count + 1)
        let bytes = Array("ID3".utf8) + [3, 0, 0x80] + Self.syncsafe(stored.count) + stored
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(bytes))) == ["id3/PRIV=ffe001", "id3/TIT2=Hi"])
    }

    @Test func aVersion24TagWithPlainFrameSizesStillReads() async throws {
        // Some encoders write v2.4 tags with v2.3's plain 32-bit frame sizes: a 200-byte frame's size
        // is not syncsafe, and a 256-byte one's reads as 128 and lands inside the frame.
        let long = String(repeating: "a", count: 199)
        let longer = String(repeating: "b", count: 255)
        let first = [Self.frame("TIT2", [3] + Array(long.utf8), version: 3), Self.frame("TPE1", [3] + Array("Ann".utf8), version: 3)]
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag(first)))) == ["id3/TIT2=\(long)", "id3/TPE1=Ann"])
        let second = [Self.frame("TPE1", [3] + Array("Ann".utf8), version: 3), Self.frame("TIT2", [3] + Array(longer.utf8), version: 3)]
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag(second)))) == ["id3/TPE1=Ann", "id3/TIT2=\(longer)"],
                "both readings take two frames; the plain one reaches the end")
        let third = second + [Self.frame("TCOM", [3] + Array("Bo".utf8), version: 3)]
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag(third)))) ==
                ["id3/TPE1=Ann", "id3/TIT2=\(longer)", "id3/TCOM=Bo"])
        // Syncsafe sizes of a frame of 128 bytes or more still read as they are.
        let syncsafe = [Self.frame("TIT2", [3] + Array(longer.utf8)), Self.frame("TPE1", [3] + Array("Ann".utf8))]
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag(syncsafe)))) == ["id3/TIT2=\(longer)", "id3/TPE1=Ann"])
    }

    @Test func aTagCutByFFmpegStillReads() async throws {
        // FFmpeg 5.1 drops "ID3", the version and the revision of every packet of an MPEG-TS metadata
        // stream: the flags byte and the size are left in front of the frames.
        let bytes = Array(Self.tag([Self.frame("TIT2", [3] + Array("Opening".utf8))]).dropFirst(5))
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(bytes))) == ["id3/TIT2=Opening"])
        // A cut v2.3 tag: a frame of 128 bytes or more has a plain size that is not syncsafe.
        let long = String(repeating: "a", count: 199)
        let cut = Array(Self.tag([Self.frame("TIT2", [3] + Array(long.utf8), version: 3), Self.frame("TPE1", [3] + Array("Ann".utf8), version: 3)],
                                 version: 3).dropFirst(5))
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(cut))) == ["id3/TIT2=\(long)", "id3/TPE1=Ann"])
    }

    @Test func multiValuedUTF16TextHasAByteOrderMarkAValue() async throws {
        // Each value of a UTF-16 (encoding 1) frame has its own byte order mark: little-endian "Ann",
        // then big-endian "Bob", each ended by two zero bytes.
        let ann: [UInt8] = [0xFF, 0xFE] + "Ann".utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let bob: [UInt8] = [0xFE, 0xFF] + "Bob".utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        let content = [UInt8(1)] + ann + [0, 0] + bob + [0, 0]
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([Self.frame("TPE1", content)])))) == ["id3/TPE1=Ann/Bob"])
        // ISO-8859-1 values end at a zero byte.
        let latin1 = [UInt8(0)] + Array("Ann\0Bob\0".utf8)
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([Self.frame("TCOM", latin1)])))) == ["id3/TCOM=Ann/Bob"])
    }

    @Test func bytesThatAreNotATagGiveNoItems() async throws {
        let title = Self.frame("TIT2", [3] + Array("Opening".utf8))
        // The frame claims more bytes than the tag holds (its size: after the tag header and the frame's identifier).
        var oversized = Self.tag([title])
        oversized.replaceSubrange(14..<18, with: [0, 0, 0, 0x7F])
        let compressed = Self.tag([Self.frame("TIT2", [0, 0, 0, 8, 0x78, 0x9C], flags: [0, 0x08])])
        let cases: [[UInt8]] = [
            [], Array("ID3".utf8), Array("not a tag at all".utf8), oversized, compressed,
            Self.tag([title], version: 2), Self.tag([[0, 0, 0, 0] + [0, 0, 0, 1, 0, 0, 0]]),
            Array("ID3".utf8) + [4, 0, 0x40, 0, 0, 0, 4] + [0x7F, 0x7F, 0x7F, 0x7F],
        ]
        for bytes in cases {
            let group = try #require(AVTimedMetadataGroup(sampleBuffer: try Self.sample(bytes)))
            #expect(group.items.isEmpty, "\(bytes.prefix(12))")
        }
    }

    @Test func samplesThatAreNotTimedID3GiveNoGroup() throws {
        #expect(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([]), subtype: FourCharCode(fourCharString: "text"))) == nil)
        #expect(AVTimedMetadataGroup(sampleBuffer: try Self.sample(Self.tag([]), mediaType: .audio)) == nil)
    }

    /// A boxed metadata sample (`'mebx'`) of one atom per key, typed by the description's key table.
    static func boxed(_ atoms: [(UInt32, [UInt8])], keys: [(UInt32, String, UInt32?)]) throws -> CMSampleBuffer {
        try boxed(atoms, table: keys.map { CMMetadataKeyTableEntry(localID: $0.0, namespace: "mdta", key: Data($0.1.utf8), wellKnownType: $0.2) })
    }

    /// A boxed metadata sample whose description has the key table `table`.
    static func boxed(_ atoms: [(UInt32, [UInt8])], table: [CMMetadataKeyTableEntry]) throws -> CMSampleBuffer {
        let bytes = atoms.flatMap { id, value in
            withUnsafeBytes(of: UInt32(8 + value.count).bigEndian, Array.init) + withUnsafeBytes(of: id.bigEndian, Array.init) + value
        }
        let format = CMFormatDescription(mediaType: .metadata, mediaSubType: .init(rawValue: kCMMetadataFormatType_Boxed),
                                         metadataKeyTable: table)
        return try sample(bytes, format: format, timing: CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 2),
                                                                            presentationTimeStamp: CMTime(value: 3, timescale: 1), decodeTimeStamp: .invalid))
    }

    @Test func boxedValuesFollowTheirKeysTypes() async throws {
        let keys: [(UInt32, String, UInt32?)] = [(1, "com.example.int8", 21), (2, "com.example.int16", 21), (3, "com.example.uint32", 22),
                                                 (4, "com.example.float64", 24), (5, "com.example.utf16", 2), (6, "com.example.untyped", nil),
                                                 (7, "com.example.badfloat", 23)]
        let atoms: [(UInt32, [UInt8])] = [
            (1, [0xFE]), (2, [0xFF, 0x38]), (3, [0xFF, 0xFF, 0xFF, 0xFF]),
            (4, withUnsafeBytes(of: (2.5).bitPattern.bigEndian, Array.init)), (5, [0x00, 0x4F, 0x00, 0x4B]),
            (6, [1, 2, 3]), (0, [9, 9]), (99, [9]), (7, [1, 2, 3]),
        ]
        let group = try #require(AVTimedMetadataGroup(sampleBuffer: try Self.boxed(atoms, keys: keys)))
        #expect(group.items.map(\.identifier?.rawValue) == keys.map { "mdta/\($0.1)" }, "atoms of no key (0, 99) are skipped")
        #expect(try await group.items[0].load(.numberValue)?.int64Value == -2)
        #expect(try await group.items[1].load(.numberValue)?.int64Value == -200)
        #expect(try await group.items[2].load(.numberValue)?.uint64Value == 4_294_967_295)
        #expect(try await group.items[3].load(.numberValue)?.doubleValue == 2.5)
        #expect(try await group.items[4].load(.stringValue) == "OK")
        #expect(try await group.items[5].load(.dataValue) == Data([1, 2, 3]))
        #expect(try await group.items[6].load(.dataValue) == Data([1, 2, 3]), "a Float32 of three bytes stays raw")
        #expect(group.items.map(\.dataType) == ["com.apple.metadata.datatype.int8", "com.apple.metadata.datatype.int16",
                                                "com.apple.metadata.datatype.uint32", "com.apple.metadata.datatype.float64",
                                                "com.apple.metadata.datatype.UTF-16", "com.apple.metadata.datatype.raw-data",
                                                "com.apple.metadata.datatype.raw-data"])
        #expect(group.timeRange == CMTimeRange(start: CMTime(value: 3, timescale: 1), duration: CMTime(value: 1, timescale: 2)))
        // An atom that claims more bytes than the sample holds ends it.
        let cut = try Self.sample([0, 0, 0, 0x40, 0, 0, 0, 1, 5], format: try Self.boxed([(1, [0x05])], keys: keys).formatDescription,
                                  timing: CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: .zero, decodeTimeStamp: .invalid))
        #expect(AVTimedMetadataGroup(sampleBuffer: cut)?.items.isEmpty == true)
    }

    @Test func boxedIntegersOfEveryWellKnownType() async throws {
        // Timed metadata's fixed-size integers (phones write the still-image time as an int8 and the
        // video orientation as an int16), and the variable-size 21 and 22 of 1, 2, 3, 4 or 8 bytes.
        let cases: [(type: UInt32, bytes: [UInt8], value: String, dataType: String)] = [
            (65, [0xFF], "-1", "int8"), (66, [0x00, 0x06], "6", "int16"), (66, [0xFF, 0x38], "-200", "int16"),
            (67, [0xFF, 0xFF, 0xFF, 0xFE], "-2", "int32"), (74, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFD], "-3", "int64"),
            (75, [0xFE], "254", "uint8"), (76, [0xFF, 0x38], "65336", "uint16"), (77, [0xFF, 0xFF, 0xFF, 0xFF], "4294967295", "uint32"),
            (78, [UInt8](repeating: 0xFF, count: 8), "18446744073709551615", "uint64"),
            (21, [0xFF, 0xFF, 0xFE], "-2", "int32"), (22, [0x01, 0x00, 0x00], "65536", "uint32"),
            (21, [0x80, 0, 0, 0, 0, 0, 0, 0], "-9223372036854775808", "int64"), (22, [0x01, 0x02], "258", "uint16"),
        ]
        let table = cases.enumerated().map { CMMetadataKeyTableEntry(localID: UInt32($0.offset + 1), namespace: "mdta",
                                                                     key: Data("com.example.\($0.offset)".utf8), wellKnownType: $0.element.type) }
        let group = try #require(AVTimedMetadataGroup(sampleBuffer: try Self.boxed(cases.enumerated().map { (UInt32($0.offset + 1), $0.element.bytes) },
                                                                                   table: table)))
        #expect(group.items.count == cases.count)
        for (item, expected) in zip(group.items, cases) {
            #expect(try await item.load(.numberValue)?.stringValue == expected.value, "type \(expected.type): \(expected.bytes)")
            #expect(item.dataType == "com.apple.metadata.datatype." + expected.dataType, "type \(expected.type): \(expected.bytes)")
        }
    }

    @Test func boxedValuesThatDoNotFitTheirTypeStayRaw() async throws {
        // A fixed-size integer of another size; a variable-size one of 5 bytes; points, dimensions,
        // rectangles and affine transforms (70, 71, 72, 79), which Avocet leaves raw.
        let cases: [(UInt32, [UInt8])] = [(65, [1, 2]), (66, [1]), (67, [1, 2, 3]), (74, [1, 2, 3, 4]), (75, [1, 2]), (76, [1, 2, 3]),
                                          (77, [1, 2, 3, 4, 5]), (78, [1]), (21, [1, 2, 3, 4, 5]), (22, [1, 2, 3, 4, 5, 6]),
                                          (70, [UInt8](repeating: 0x3F, count: 8)), (71, [UInt8](repeating: 0x3F, count: 8)),
                                          (72, [UInt8](repeating: 0x3F, count: 16)), (79, [UInt8](repeating: 0x3F, count: 72))]
        let table = cases.enumerated().map { CMMetadataKeyTableEntry(localID: UInt32($0.offset + 1), namespace: "mdta",
                                                                     key: Data("com.example.\($0.offset)".utf8), wellKnownType: $0.element.0) }
        let group = try #require(AVTimedMetadataGroup(sampleBuffer: try Self.boxed(cases.enumerated().map { (UInt32($0.offset + 1), $0.element.1) },
                                                                                   table: table)))
        #expect(group.items.count == cases.count)
        for (item, (type, bytes)) in zip(group.items, cases) {
            #expect(item.dataType == "com.apple.metadata.datatype.raw-data", "type \(type): \(bytes)")
            #expect(try await item.load(.dataValue) == Data(bytes), "type \(type)")
        }
    }

    @Test func boxedKeysOfFourCharacterCodesAreAtoms() async throws {
        // A user-data key is an atom type: 0xA9 'n' 'a' 'm' is not UTF-8 but is the ©nam atom, whose
        // key is its number. A reverse-DNS key that is not UTF-8 is skipped.
        let table = [
            CMMetadataKeyTableEntry(localID: 1, namespace: "udta", key: Data([0xA9, 0x6E, 0x61, 0x6D]), wellKnownType: 1),
            CMMetadataKeyTableEntry(localID: 2, namespace: "mdta", key: Data([0xA9, 0x6E, 0x61, 0x6D]), wellKnownType: 1),
            CMMetadataKeyTableEntry(localID: 3, namespace: "itsk", key: Data([0xA9, 0x41, 0x52, 0x54]), wellKnownType: 1),
        ]
        let group = try #require(AVTimedMetadataGroup(sampleBuffer: try Self.boxed([(1, Array("Title".utf8)), (2, [0x41]), (3, Array("Ann".utf8))],
                                                                                   table: table)))
        #expect(group.items.map(\.identifier) == [.quickTimeUserDataFullName, .iTunesMetadataArtist])
        #expect((group.items.first?.key as? NSNumber)?.uint32Value == 0xA96E_616D)
        #expect(group.items.first?.keySpace == .quickTimeUserData && group.items.first?.commonKey == .commonKeyTitle)
        #expect((group.items.last?.key as? NSNumber)?.uint32Value == 0xA941_5254)
        #expect(try await group.items.first?.load(.stringValue) == "Title")
    }
}
