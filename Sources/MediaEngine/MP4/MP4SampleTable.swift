/// What one MP4/MOV track's sample table (`moov/trak/mdia/minf/stbl`) says of its samples' sizes and
/// times: the sample sizes (`stsz`), decode durations (`stts`) and composition offsets (`ctts`), kept
/// run-length as stored. `SampleTableReader` checks FFmpeg's index against it and then reads the
/// track's stored samples straight from the file.
///
/// `read` gives nil for a track it does not describe with confidence: a movie that takes fragments
/// (`mvex`), a track of several sample descriptions, compact sizes (`stz2`), tables whose counts
/// disagree, composition offsets FFmpeg would treat as damage, or tables past `maximumTableBytes`.
/// Blocking: reads box headers and the track's four table boxes through the byte source; call on an
/// engine thread.
struct MP4SampleTable {
    /// A run of samples sharing a value (ticks of the track's media time scale).
    struct Run: Equatable {
        var count: Int
        var value: Int64
    }

    let sampleCount: Int
    /// Each sample's size in bytes; empty when every sample is `constantSize` bytes.
    let sizes: [UInt32]
    let constantSize: UInt32
    /// Decode durations, in decode order.
    let durations: [Run]
    /// Composition offsets (presentation time less decode time), in decode order; nil without a `ctts`.
    let offsets: [Run]?

    /// The largest table box read (a 4-byte size per sample: 32 million samples).
    static let maximumTableBytes: Int64 = 128 << 20

    /// The samples' average size in bytes.
    var averageSize: Int {
        guard sampleCount > 0 else { return 0 }
        return sizes.isEmpty ? Int(constantSize) : Int(sizes.reduce(UInt64(0)) { $0 + UInt64($1) } / UInt64(sampleCount))
    }

    /// The size in bytes of the sample at `index` (`0..<sampleCount`).
    func size(of index: Int) -> Int {
        sizes.isEmpty ? Int(constantSize) : Int(sizes[index])
    }

    /// The table of the track whose header (`tkhd`) has `trackID`, when it lists `expectedCount`
    /// samples (checked before the tables are read); nil when there is none or it is not one this type
    /// describes (see the type's notes).
    static func read(trackID: Int32, expectedCount: Int, from source: any ByteSource, cancellation: CancellationToken) throws -> MP4SampleTable? {
        guard let fileSize = try source.size(cancellation: cancellation),
              let moov = try topLevelBox("moov", in: source, fileSize: fileSize, cancellation: cancellation) else { return nil }
        var stbl: (Int64, Int64)?
        var at = moov.0
        var visited = 0
        while at.addingSaturating(8) <= moov.1, visited < 10_000 {
            visited += 1
            guard let (type, size, header) = try MP4Boxes.header(source, at: at, fileSize: moov.1, cancellation: cancellation) else { return nil }
            let body = (at.addingSaturating(header), min(at.addingSaturating(size), moov.1))
            if type == "mvex" { return nil }
            if type == "trak", stbl == nil, try self.trackID(in: body, source, cancellation) == trackID {
                var range = body
                for kind in ["mdia", "minf", "stbl"] {
                    guard let found = try MP4Boxes.child(kind, of: source, in: range, cancellation: cancellation) else { return nil }
                    range = found
                }
                stbl = range
            }
            at = at.addingSaturating(size)
        }
        guard let stbl else { return nil }
        return try table(in: stbl, expectedCount: expectedCount, source, cancellation)
    }

    /// The body (start, end) of the first top-level box of `type`, walking at most 10,000 boxes.
    private static func topLevelBox(_ type: String, in source: any ByteSource, fileSize: Int64,
                                    cancellation: CancellationToken) throws -> (Int64, Int64)? {
        var at: Int64 = 0
        for _ in 0..<10_000 {
            guard at.addingSaturating(8) <= fileSize,
                  let (kind, size, header) = try MP4Boxes.header(source, at: at, fileSize: fileSize, cancellation: cancellation) else { return nil }
            if kind == type { return (at.addingSaturating(header), min(at.addingSaturating(size), fileSize)) }
            at = at.addingSaturating(size)
        }
        return nil
    }

    /// The track ID in the `tkhd` of the `trak` whose body is `range`.
    private static func trackID(in range: (Int64, Int64), _ source: any ByteSource, _ cancellation: CancellationToken) throws -> Int32? {
        guard let tkhd = try MP4Boxes.child("tkhd", of: source, in: range, cancellation: cancellation),
              let bytes = try body(tkhd, source, cancellation, prefix: 24), let version = bytes.first else { return nil }
        // Version 0 holds 32-bit times before the ID (at 12), version 1 64-bit ones (at 20).
        let at = version == 1 ? 20 : 12
        guard bytes.count >= at + 4 else { return nil }
        return Int32(bitPattern: bigEndian(bytes, at))
    }

    private static func table(in stbl: (Int64, Int64), expectedCount: Int, _ source: any ByteSource,
                              _ cancellation: CancellationToken) throws -> MP4SampleTable? {
        // One sample description: FFmpeg hands out new codec setup mid-stream otherwise.
        guard let stsd = try MP4Boxes.child("stsd", of: source, in: stbl, cancellation: cancellation),
              let descriptions = try body(stsd, source, cancellation, prefix: 8), descriptions.count == 8,
              bigEndian(descriptions, 4) == 1 else { return nil }
        // The sample count first: no table is read for a track whose count FFmpeg's index does not have.
        guard let stszBox = try MP4Boxes.child("stsz", of: source, in: stbl, cancellation: cancellation),
              let head = try body(stszBox, source, cancellation, prefix: 12), head.count == 12,
              Int(bigEndian(head, 8)) == expectedCount,
              let stsz = try body(stszBox, source, cancellation), stsz.count >= 12,
              let sttsBox = try MP4Boxes.child("stts", of: source, in: stbl, cancellation: cancellation),
              let stts = try body(sttsBox, source, cancellation), stts.count >= 8 else { return nil }
        let constantSize = bigEndian(stsz, 4)
        let count = Int(bigEndian(stsz, 8))
        var sizes: [UInt32] = []
        if constantSize == 0 {
            guard count <= (stsz.count - 12) / 4 else { return nil }
            sizes.reserveCapacity(count)
            for i in 0..<count { sizes.append(bigEndian(stsz, 12 + 4 * i)) }
        }
        guard let durations = runs(stts, signed: false), durations.reduce(0, { $0 + $1.count }) == count else { return nil }
        var offsets: [Run]?
        if let cttsBox = try MP4Boxes.child("ctts", of: source, in: stbl, cancellation: cancellation) {
            guard let ctts = try body(cttsBox, source, cancellation), ctts.count >= 8,
                  let read = runs(ctts, signed: true), read.reduce(0, { $0 + $1.count }) == count,
                  read.allSatisfy({ abs($0.value) < 1 << 28 }) else { return nil }
            offsets = read
        }
        return MP4SampleTable(sampleCount: count, sizes: sizes, constantSize: constantSize, durations: durations, offsets: offsets)
    }

    /// The (count, value) entries of an `stts` or `ctts` body (version and flags, entry count, then
    /// the entries); nil when the count overruns the body or an entry's sample count is 0 or past
    /// Int32 (FFmpeg skips those) or an `stts` duration is past Int32.
    private static func runs(_ bytes: [UInt8], signed: Bool) -> [Run]? {
        let entries = Int(bigEndian(bytes, 4))
        guard entries <= (bytes.count - 8) / 8 else { return nil }
        var result: [Run] = []
        result.reserveCapacity(entries)
        for i in 0..<entries {
            let count = bigEndian(bytes, 8 + 8 * i)
            let raw = bigEndian(bytes, 12 + 8 * i)
            guard count > 0, count <= UInt32(Int32.max) else { return nil }
            let value: Int64
            if signed {
                value = Int64(Int32(bitPattern: raw))
            } else {
                guard raw <= UInt32(Int32.max) else { return nil }
                value = Int64(raw)
            }
            if let last = result.last, last.value == value {
                result[result.count - 1].count += Int(count)
            } else {
                result.append(Run(count: Int(count), value: value))
            }
        }
        return result
    }

    /// The bytes of the box body `range`, or its first `prefix` bytes; nil when it is longer than
    /// `limit` or the file ends inside what is read.
    private static func body(_ range: (Int64, Int64), _ source: any ByteSource, _ cancellation: CancellationToken,
                             limit: Int64 = maximumTableBytes, prefix: Int64? = nil) throws -> [UInt8]? {
        var length = range.1.subtractingSaturating(range.0)
        if let prefix { length = min(length, prefix) }
        guard length >= 0, length <= limit, let count = Int(exactly: length) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = try bytes.withUnsafeMutableBytes { try source.readFully(at: range.0, into: $0, cancellation: cancellation) }
        return read == count ? bytes : nil
    }

    /// The big-endian 32-bit number at `offset` of `bytes`, which holds four bytes there.
    private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        Atoms.bigEndian(bytes[offset..<(offset + 4)])
    }
}
