import Foundation
@testable import MediaEngine
import Testing

/// The sample table reader on movie headers built by hand: what it reads from a plain track, and the
/// tracks it declines (nil) rather than describe wrongly: fragments, several descriptions, counts that
/// disagree or overrun their box, composition offsets FFmpeg treats as damage.
@Suite("MP4 sample table")
struct MP4SampleTableTests {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(body.count + 8) + Array(type.utf8) + body
    }

    static func be32(_ value: Int) -> [UInt8] {
        let v = UInt32(truncatingIfNeeded: value)
        return [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
    }

    /// A full box's version and flags, then 32-bit numbers.
    static func full(_ numbers: [Int]) -> [UInt8] { [0, 0, 0, 0] + numbers.flatMap(be32) }

    /// A movie of one track (ID 1) whose `stbl` holds `tables`, with `extra` boxes in its `moov`.
    static func movie(_ tables: [[UInt8]], extra: [[UInt8]] = []) -> DataByteSource {
        // tkhd version 0: flags, two times, the track ID at 12, then the rest (84 bytes in all).
        let tkhd = box("tkhd", [0, 0, 0, 3] + be32(0) + be32(0) + be32(1) + [UInt8](repeating: 0, count: 68))
        let stbl = box("stbl", tables.flatMap { $0 })
        let trak = box("trak", tkhd + box("mdia", box("minf", stbl)))
        let moov = box("moov", trak + extra.flatMap { $0 })
        return DataByteSource(Data(box("ftyp", Array("isom".utf8) + be32(0)) + moov))
    }

    static let stsd = box("stsd", full([1]) + box("avc1", [UInt8](repeating: 0, count: 8)))
    static let stsz = box("stsz", full([0, 4, 100, 200, 300, 400]))
    static let stts = box("stts", full([2, 3, 512, 1, 1024]))

    static func read(_ source: DataByteSource, count: Int = 4) throws -> MP4SampleTable? {
        try MP4SampleTable.read(trackID: 1, expectedCount: count, from: source, cancellation: CancellationToken())
    }

    @Test("a plain track: sizes, durations and composition offsets as stored")
    func plainTrack() throws {
        let ctts = Self.box("ctts", Self.full([3, 1, 1024, 2, 0, 1, 512]))
        let table = try #require(try Self.read(Self.movie([Self.stsd, Self.stsz, Self.stts, ctts])))
        #expect(table.sampleCount == 4)
        #expect((0..<4).map(table.size(of:)) == [100, 200, 300, 400])
        #expect(table.averageSize == 250)
        #expect(table.durations == [.init(count: 3, value: 512), .init(count: 1, value: 1024)])
        #expect(table.offsets == [.init(count: 1, value: 1024), .init(count: 2, value: 0), .init(count: 1, value: 512)])
        // One size for every sample, no ctts.
        let constant = Self.box("stsz", Self.full([700, 4]))
        let plain = try #require(try Self.read(Self.movie([Self.stsd, constant, Self.stts])))
        #expect(plain.sizes.isEmpty && plain.size(of: 3) == 700 && plain.offsets == nil)
    }

    @Test("declined: fragments, two descriptions, another count, tables that overrun or disagree, offsets FFmpeg drops")
    func declined() throws {
        let good = [Self.stsd, Self.stsz, Self.stts]
        #expect(try Self.read(Self.movie(good)) != nil)
        #expect(try Self.read(Self.movie(good, extra: [Self.box("mvex", [])])) == nil)
        #expect(try Self.read(Self.movie([Self.box("stsd", Self.full([2]))] + good.dropFirst())) == nil)
        #expect(try Self.read(Self.movie(good), count: 5) == nil)
        // stsz claims 6 sizes and holds 4; stts counts 5 samples; an stts entry of 0 samples.
        #expect(try Self.read(Self.movie([Self.stsd, Self.box("stsz", Self.full([0, 6, 1, 2, 3, 4])), Self.stts]), count: 6) == nil)
        #expect(try Self.read(Self.movie([Self.stsd, Self.stsz, Self.box("stts", Self.full([1, 5, 512]))])) == nil)
        #expect(try Self.read(Self.movie([Self.stsd, Self.stsz, Self.box("stts", Self.full([2, 0, 512, 4, 512]))])) == nil)
        // ctts entries that claim more entries than the box holds; an offset of 2^28 or more.
        #expect(try Self.read(Self.movie(good + [Self.box("ctts", Self.full([2, 4, 0]))])) == nil)
        #expect(try Self.read(Self.movie(good + [Self.box("ctts", Self.full([1, 4, 1 << 28]))])) == nil)
        // No track of that ID, and bytes that are no movie.
        #expect(try MP4SampleTable.read(trackID: 2, expectedCount: 4, from: Self.movie(good), cancellation: CancellationToken()) == nil)
        #expect(try Self.read(DataByteSource(Data(repeating: 0xff, count: 64))) == nil)
    }
}
