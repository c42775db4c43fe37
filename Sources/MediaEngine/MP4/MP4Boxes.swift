/// A walk over the top-level boxes of an MP4/MOV file, reading box headers and track headers only.
///
/// FFmpeg does not say whether a movie can take fragments (`mvex` inside `moov`) or has some (`moof`),
/// nor the display size and alternate group each track header (`tkhd`) states; this reads the few
/// bytes that tell.
/// Blocking: call on an engine thread.
package struct MP4Boxes: Sendable, Equatable {
    /// The movie header declares fragments may follow (`moov/mvex`).
    package var canContainFragments = false
    /// At least one movie fragment (`moof`) is present.
    package var containsFragments = false
    /// Each track header's display size (before its matrix), by track ID: Apple's `naturalSize`.
    package var trackSizes: [Int32: TrackSize] = [:]
    /// Each track header's alternate group, by track ID: tracks of one nonzero group are alternatives
    /// to one another (Apple's track groups and media selection groups); 0 is none.
    package var alternateGroups: [Int32: Int] = [:]
    /// The key table of each timed metadata track (sample description `mebx`), by track ID.
    package var metadataKeys: [Int32: [BoxedMetadataKey]] = [:]
    /// Each track header's duration (its edit list's total, the time the track presents), in the
    /// movie header's time scale, by track ID; left out where the header says it is unknown.
    package var trackDurations: [Int32: Int64] = [:]
    /// The movie header's (`mvhd`) time scale, which the track headers' durations count in.
    package var movieTimeScale: Int32?

    /// A track header's width and height, 16.16 fixed point turned into points.
    package struct TrackSize: Sendable, Equatable {
        package var width: Double
        package var height: Double
    }

    package init(canContainFragments: Bool = false, containsFragments: Bool = false) {
        self.canContainFragments = canContainFragments
        self.containsFragments = containsFragments
    }

    /// Walks at most `limit` boxes; stops early once both answers are known.
    package static func scan(_ source: any ByteSource, cancellation: CancellationToken, limit: Int = 100_000) throws -> MP4Boxes {
        var result = MP4Boxes()
        guard let size = try source.size(cancellation: cancellation) else { return result }
        var offset: Int64 = 0
        var visited = 0
        while offset.addingSaturating(8) <= size, visited < limit, !(result.canContainFragments && result.containsFragments) {
            visited += 1
            guard let (type, boxSize, headerSize) = try header(source, at: offset, fileSize: size, cancellation: cancellation) else { break }
            switch type {
            case "moov":
                var child = offset.addingSaturating(headerSize)
                let end = min(offset.addingSaturating(boxSize), size)
                while child.addingSaturating(8) <= end, visited < limit {
                    visited += 1
                    guard let (childType, childSize, childHeader) = try header(source, at: child, fileSize: end, cancellation: cancellation) else { break }
                    if childType == "mvex" { result.canContainFragments = true }
                    if childType == "mvhd" { result.movieTimeScale = try movieTimeScale(source, at: child.addingSaturating(childHeader), cancellation: cancellation) }
                    if childType == "trak" {
                        let trakEnd = min(child.addingSaturating(childSize), end)
                        let trakStart = child.addingSaturating(childHeader)
                        if let (id, size, group, duration) = try trackHeader(source, inTrakAt: trakStart, end: trakEnd,
                                                                             cancellation: cancellation) {
                            result.trackSizes[id] = size
                            result.alternateGroups[id] = group
                            if let duration { result.trackDurations[id] = duration }
                            if let keys = try metadataKeys(source, inTrakAt: trakStart, end: trakEnd, cancellation: cancellation) {
                                result.metadataKeys[id] = keys
                            }
                        }
                    }
                    child = child.addingSaturating(childSize)
                }
            case "moof":
                result.containsFragments = true
            default:
                break
            }
            offset = offset.addingSaturating(boxSize)
        }
        return result
    }

    /// The time scale of the `mvhd` whose payload starts at `offset` (after its version and flags,
    /// two times of 4 or 8 bytes); nil when it is malformed or zero.
    private static func movieTimeScale(_ source: any ByteSource, at offset: Int64, cancellation: CancellationToken) throws -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 24)
        let count = try bytes.withUnsafeMutableBytes { try source.readFully(at: offset, into: $0, cancellation: cancellation) }
        guard count == bytes.count else { return nil }
        let at = bytes[0] == 1 ? 20 : 12
        let scale = bytes[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return scale > 0 && scale <= UInt32(Int32.max) ? Int32(scale) : nil
    }

    /// The track ID, display size, alternate group and duration of the `tkhd` among a `trak`'s first
    /// children; nil when there is none or it is malformed. The size is the header's last eight bytes
    /// (width, height, 16.16); the alternate group a 16-bit number after the layer; the duration (in
    /// the movie's time scale) nil where all its bits are set (unknown) or it does not fit an Int64.
    private static func trackHeader(_ source: any ByteSource, inTrakAt start: Int64, end: Int64,
                                    cancellation: CancellationToken) throws -> (Int32, TrackSize, Int, Int64?)? {
        var child = start
        for _ in 0..<8 {
            guard child.addingSaturating(8) <= end,
                  let (type, size, headerSize) = try header(source, at: child, fileSize: end, cancellation: cancellation) else { return nil }
            if type == "tkhd" {
                // Version 0 holds 32-bit times (track ID at payload offset 12), version 1 64-bit (at 20).
                guard size >= headerSize + 84, size <= 4096 else { return nil }
                var bytes = [UInt8](repeating: 0, count: Int(size - headerSize))
                let count = try bytes.withUnsafeMutableBytes {
                    try source.readFully(at: child.addingSaturating(headerSize), into: $0, cancellation: cancellation)
                }
                guard count == bytes.count, let version = bytes.first else { return nil }
                // After the ID: reserved (4), duration (4 or 8), reserved (8), layer (2), alternate group (2).
                let idOffset = version == 1 ? 20 : 12
                let groupOffset = version == 1 ? 46 : 34
                guard idOffset + 4 <= bytes.count, groupOffset + 2 <= bytes.count, bytes.count >= 8 else { return nil }
                let id = bytes[idOffset..<(idOffset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let group = Int(Int16(bitPattern: UInt16(bytes[groupOffset]) << 8 | UInt16(bytes[groupOffset + 1])))
                let fixed = { (at: Int) in Double(bytes[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) / 65536 }
                let size = TrackSize(width: fixed(bytes.count - 8), height: fixed(bytes.count - 4))
                let durationBytes = version == 1 ? bytes[28..<36] : bytes[20..<24]
                let ticks = durationBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let unknown = version == 1 ? UInt64.max : UInt64(UInt32.max)
                let duration = ticks != unknown && ticks <= UInt64(Int64.max) ? Int64(ticks) : nil
                return (Int32(bitPattern: id), size, group, duration)
            }
            child = child.addingSaturating(size)
        }
        return nil
    }

    /// The key table of a timed metadata track: the first 16 bytes of its `mdia/minf/stbl/stsd` (version
    /// and flags, entry count, the first entry's size and type), then, when that entry is `mebx`, the
    /// rest of the entry (at most 64 KiB in all); nil for any other track, or a malformed one.
    private static func metadataKeys(_ source: any ByteSource, inTrakAt start: Int64, end: Int64,
                                     cancellation: CancellationToken) throws -> [BoxedMetadataKey]? {
        var range = (start, end)
        for type in ["mdia", "minf", "stbl", "stsd"] {
            guard let found = try child(type, of: source, in: range, cancellation: cancellation) else { return nil }
            range = found
        }
        let length = range.1.subtractingSaturating(range.0)
        guard length >= 16 else { return nil }
        var head = [UInt8](repeating: 0, count: 16)
        let headCount = try head.withUnsafeMutableBytes { try source.readFully(at: range.0, into: $0, cancellation: cancellation) }
        guard headCount == head.count, Array(head[12..<16]) == Array("mebx".utf8) else { return nil }
        // The entry: its size counts its own header (8), six reserved bytes and a data reference index (2).
        let entrySize = head[8..<12].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let total = 8 + entrySize
        guard entrySize >= 16, total <= length, total <= 65_536 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(total))
        let count = try bytes.withUnsafeMutableBytes { try source.readFully(at: range.0, into: $0, cancellation: cancellation) }
        guard count == bytes.count else { return nil }
        return BoxedMetadataKey.keys(inSampleDescriptions: bytes[...])
    }

    /// The body (start, end) of the first box of `type` among those in `range`, looking at no more
    /// than 64 of them.
    static func child(_ type: String, of source: any ByteSource, in range: (Int64, Int64),
                              cancellation: CancellationToken) throws -> (Int64, Int64)? {
        var at = range.0
        for _ in 0..<64 {
            guard at.addingSaturating(8) <= range.1,
                  let (kind, size, headerSize) = try header(source, at: at, fileSize: range.1, cancellation: cancellation) else { return nil }
            if kind == type { return (at.addingSaturating(headerSize), min(at.addingSaturating(size), range.1)) }
            at = at.addingSaturating(size)
        }
        return nil
    }

    /// The type, total size and header size of the box at `offset`; nil when it is not a sane box.
    static func header(_ source: any ByteSource, at offset: Int64, fileSize: Int64,
                               cancellation: CancellationToken) throws -> (String, Int64, Int64)? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = try bytes.withUnsafeMutableBytes { try source.readFully(at: offset, into: $0, cancellation: cancellation) }
        guard count >= 8 else { return nil }
        let size32 = bytes[0..<4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let typeBytes = Array(bytes[4..<8])
        guard typeBytes.allSatisfy({ (0x20..<0x7f).contains($0) }) else { return nil }
        let type = String(decoding: typeBytes, as: UTF8.self)
        var size = size32, headerSize: Int64 = 8
        if size32 == 1 {
            guard count >= 16 else { return nil }
            size = bytes[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            headerSize = 16
        } else if size32 == 0 {
            size = fileSize.subtractingSaturating(offset)
        }
        guard size >= headerSize else { return nil }
        return (type, size, headerSize)
    }
}
