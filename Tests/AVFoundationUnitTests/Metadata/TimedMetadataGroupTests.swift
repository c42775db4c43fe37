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
        let block = try CMBlockBuffer(length: max(1, bytes.count), flags: .assureMemoryNow)
        try bytes.withUnsafeBytes { try block.replaceDataBytes(with: $0) }
        let format = try CMFormatDescription(mediaType: mediaType, mediaSubType: .init(rawValue: subtype))
        let timing = CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: CMTime(seconds: seconds, preferredTimescale: 90_000),
                                        decodeTimeStamp: .invalid)
        return try CMSampleBuffer(dataBuffer: block, formatDescription: format, numSamples: 1, sampleTimings: [timing],
                                  sampleSizes: [bytes.count])
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

    @Test func aTagCutByFFmpegStillReads() async throws {
        // FFmpeg 5.1 drops "ID3", the version and the revision of every packet of an MPEG-TS metadata
        // stream: the flags byte and the size are left in front of the frames.
        let bytes = Array(Self.tag([Self.frame("TIT2", [3] + Array("Opening".utf8))]).dropFirst(5))
        #expect(try await Self.values(AVTimedMetadataGroup(sampleBuffer: try Self.sample(bytes))) == ["id3/TIT2=Opening"])
    }

    @Test func bytesThatAreNotATagGiveNoItems() async throws {
        let title = Self.frame("TIT2", [3] + Array("Opening".utf8))
        var oversized = Self.tag([title])
        oversized[oversized.count - 9] = 0x7F  // the frame claims more bytes than the tag holds
        let cases: [[UInt8]] = [
            [], Array("ID3".utf8), Array("not a tag at all".utf8), oversized,
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
        let bytes = atoms.flatMap { id, value in
            withUnsafeBytes(of: UInt32(8 + value.count).bigEndian, Array.init) + withUnsafeBytes(of: id.bigEndian, Array.init) + value
        }
        let table = keys.map { CMMetadataKeyTableEntry(localID: $0.0, namespace: "mdta", key: Data($0.1.utf8), wellKnownType: $0.2) }
        let format = CMFormatDescription(mediaType: .metadata, mediaSubType: .init(rawValue: kCMMetadataFormatType_Boxed),
                                         metadataKeyTable: table)
        let block = try CMBlockBuffer(length: max(1, bytes.count), flags: .assureMemoryNow)
        try bytes.withUnsafeBytes { try block.replaceDataBytes(with: $0) }
        let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 2), presentationTimeStamp: CMTime(value: 3, timescale: 1),
                                        decodeTimeStamp: .invalid)
        return try CMSampleBuffer(dataBuffer: block, formatDescription: format, numSamples: 1, sampleTimings: [timing], sampleSizes: [bytes.count])
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
        var cut = try Self.boxed([(1, [0x05])], keys: keys)
        let bytes: [UInt8] = [0, 0, 0, 0x40, 0, 0, 0, 1, 5]
        let block = try CMBlockBuffer(length: bytes.count, flags: .assureMemoryNow)
        try bytes.withUnsafeBytes { try block.replaceDataBytes(with: $0) }
        cut = try CMSampleBuffer(dataBuffer: block, formatDescription: cut.formatDescription, numSamples: 1,
                                 sampleTimings: [CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: .zero, decodeTimeStamp: .invalid)],
                                 sampleSizes: [bytes.count])
        #expect(AVTimedMetadataGroup(sampleBuffer: cut)?.items.isEmpty == true)
    }
}
