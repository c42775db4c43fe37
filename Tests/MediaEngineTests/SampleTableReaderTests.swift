import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// An MP4/MOV track's stored packets read through its sample table are FFmpeg's packets: the same
/// bytes, times, durations and keyframe flags as its packet loop gives, for every track of every
/// MP4/MOV fixture, from the start and after a seek; a file cut short fails at the first sample it
/// does not hold whole, where FFmpeg's loop hands out that sample cut and stops.
@Suite("Sample table reader")
struct SampleTableReaderTests {
    struct Packet: Equatable, CustomStringConvertible {
        let pts: Int64?
        let dts: Int64?
        let duration: Int64
        let key: Bool
        let size: Int
        let digest: UInt64
        var description: String { "pts \(pts.map(String.init) ?? "-") dts \(dts.map(String.init) ?? "-") dur \(duration) key \(key) size \(size)" }
    }

    /// The packets `reader` hands out from where it stands; those read before a failure are in `read`.
    static func packets(_ reader: StreamReader, _ token: CancellationToken, into read: inout [Packet]) throws {
        let shelf = PacketShelf()
        while let lent = try reader.nextPacket(token, lendingFrom: shelf) {
            let digest = lent.bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            read.append(Packet(pts: lent.timing.presentationTime, dts: lent.timing.decodeTime, duration: lent.timing.duration,
                               key: lent.timing.isKeyframe, size: lent.bytes.count, digest: digest))
            lent.giveBack()
        }
    }

    static func packets(_ reader: StreamReader, _ token: CancellationToken) throws -> [Packet] {
        var read: [Packet] = []
        try packets(reader, token, into: &read)
        return read
    }

    static func reader(_ name: String, stream: Int, table: Bool, _ token: CancellationToken) throws -> StreamReader {
        try StreamReader(source: FileByteSource(path: Fixtures.path(name)), options: DemuxerOptions(), streamIndex: stream,
                         forPackets: true, bySampleTable: table, cancellation: token)
    }

    static let mp4Fixtures: [String] = {
        let directory = URL(fileURLWithPath: Fixtures.path(""))
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("audio").path)) ?? []).map { "audio/" + $0 }
        return names.filter { ["mp4", "mov", "m4a", "3gp"].contains(URL(fileURLWithPath: $0).pathExtension) && $0 != "truncated.mp4" }.sorted()
    }()

    @Test("every track of every MP4/MOV fixture reads the same through its sample table as through FFmpeg's loop", arguments: mp4Fixtures)
    func sameAsFFmpeg(_ name: String) throws {
        let token = CancellationToken()
        guard let demuxer = try? Demuxer(source: FileByteSource(path: Fixtures.path(name)), options: DemuxerOptions(), cancellation: token) else {
            return // not media (not-media.mp4, truncated-header.mp4): neither reader opens
        }
        for stream in demuxer.info.streams {
            let byTable = try Self.reader(name, stream: stream.index, table: true, token)
            let byLoop = try Self.reader(name, stream: stream.index, table: false, token)
            let table = try Self.packets(byTable, token)
            let loop = try Self.packets(byLoop, token)
            #expect(table == loop, "\(name) stream \(stream.index): \(zip(table, loop).first { $0 != $1 }.map { "table \($0) / loop \($1)" } ?? "counts \(table.count) / \(loop.count)")")
        }
    }

    @Test("the sample table is read for plain MP4/MOV tracks of the codecs FFmpeg hands out as stored, and not for fragmented movies or other containers")
    func chosenWhereItApplies() throws {
        let token = CancellationToken()
        let cases: [(String, Int, Bool)] = [
            ("av.mp4", 0, true), ("av.mp4", 1, true), ("iphone.mov", 0, true), ("frames-hevc.mov", 0, true),
            ("moov-at-end.mp4", 0, true), ("edit-list.mp4", 1, true), ("audio/sine-alac.m4a", 0, true),
            ("fragmented.mp4", 0, false), ("partial-fragmented.mp4", 1, false), ("h263.3gp", 0, false),
            ("multi.mkv", 0, false), ("audio/sine.flac", 0, false),
        ]
        for (name, stream, expected) in cases {
            #expect(try Self.reader(name, stream: stream, table: true, token).readsSampleTable == expected, "\(name) stream \(stream)")
        }
    }

    @Test("after a start at a time, both readers hand out the same packets from the keyframe at or before it",
          arguments: ["av.mp4", "frames-h264.mp4", "frames-hevc.mov", "iphone.mov", "edit-list.mp4"])
    func sameAfterASeek(_ name: String) throws {
        let token = CancellationToken()
        for stream in 0..<2 {
            guard let byTable = try? Self.reader(name, stream: stream, table: true, token) else { continue }
            let byLoop = try Self.reader(name, stream: stream, table: false, token)
            #expect(byTable.readsSampleTable)
            for seconds in [1.0, 0.5, 0.0] {
                let time = MediaTimestamp(value: Int64(seconds * 1000), timeBase: Rational(1, 1000))
                try byTable.start(at: time, token)
                try byLoop.start(at: time, token)
                let table = try Self.packets(byTable, token)
                let loop = try Self.packets(byLoop, token)
                #expect(!table.isEmpty && table == loop, "\(name) stream \(stream) from \(seconds) s: \(table.first.map(String.init(describing:)) ?? "-") / \(loop.first.map(String.init(describing:)) ?? "-")")
            }
        }
    }

    @Test("a sample table that claims a sample of half a gigabyte past the file's end fails clearly at it, after the samples before")
    func aLyingSampleSize() throws {
        // av.mp4's sound track (its second `stsz`): sample 20, past the samples the open compares, made
        // 0x1FF00000 bytes (FFmpeg's index holds a size in a signed 30-bit field: larger ones read as
        // negative, disagree with the table, and the track is read by FFmpeg's loop).
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let type = Data("stsz".utf8)
        let first = try #require(bytes.range(of: type))
        let second = try #require(bytes.range(of: type, in: first.upperBound..<bytes.endIndex))
        let entry = second.upperBound + 12 + 4 * 20
        bytes.replaceSubrange(entry..<(entry + 4), with: [0x1F, 0xF0, 0x00, 0x00])
        let token = CancellationToken()
        let reader = try StreamReader(source: DataByteSource(bytes, name: "lying.mp4"), options: DemuxerOptions(), streamIndex: 1,
                                      forPackets: true, cancellation: token)
        #expect(reader.readsSampleTable)
        var read: [Packet] = []
        #expect { try Self.packets(reader, token, into: &read) } throws: { ($0 as? MediaEngineError)?.code == .truncated }
        #expect(read.count == 20)
        // The same through the taking thread's form, which reads a large sample into memory of its own.
        let direct = try StreamReader(source: DataByteSource(bytes, name: "lying.mp4"), options: DemuxerOptions(), streamIndex: 1,
                                      forPackets: true, cancellation: token)
        var count = 0
        #expect { while try direct.nextStoredSample(token, { _, _ in count += 1 }) != nil {} } throws: {
            ($0 as? MediaEngineError)?.code == .truncated
        }
        #expect(count == 20)
    }

    @Test("a movie whose media is cut short: the whole samples, then a truncation error at the first one cut")
    func cutShort() throws {
        let token = CancellationToken()
        for stream in 0..<2 {
            let byTable = try Self.reader("truncated.mp4", stream: stream, table: true, token)
            #expect(byTable.readsSampleTable)
            var read: [Packet] = []
            #expect { try Self.packets(byTable, token, into: &read) } throws: { ($0 as? MediaEngineError)?.code == .truncated }
            // FFmpeg's loop gives the same whole samples, then the cut one short (and no error).
            let loop = try Self.packets(try Self.reader("truncated.mp4", stream: stream, table: false, token), token)
            #expect(!read.isEmpty && Array(loop.prefix(read.count)) == read, "stream \(stream)")
            #expect(loop.count <= read.count + 1)
        }
    }
}
