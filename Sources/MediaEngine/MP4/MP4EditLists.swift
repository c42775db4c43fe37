import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Gives tracks of an MP4/MOV file the engine wrote edit lists of several entries, which FFmpeg's
/// muxer cannot write (it writes one, for a start offset): a stream copy that joins pieces cut between
/// keyframes keeps each piece's pictures from its keyframe on, and the edits show each piece from its
/// cut, as Apple's exports do. Also moves the movie header before the media when asked (the
/// `faststart` FFmpeg would have done), shifting the chunk offsets.
///
/// Works on the movie header (moov) in memory, which is small next to the media; the media is copied
/// only to move the header. Blocking file I/O: call on an engine thread.
enum MP4EditLists {
    /// One entry of an edit list: `duration` seconds of the movie showing the track's media from
    /// `mediaStart` seconds of its media timeline (its first sample's decode time is zero), or nothing.
    struct Edit: Equatable {
        var duration: Double
        var mediaStart: Double?
    }

    /// `edits` shortened to show at most `seconds` (nil: as they are), for an export stopped early.
    static func trimmed(_ edits: [Edit], to seconds: Double?) -> [Edit] {
        guard let seconds else { return edits }
        var left = max(0, seconds)
        var result: [Edit] = []
        for edit in edits where left > 1e-9 {
            result.append(Edit(duration: min(edit.duration, left), mediaStart: edit.mediaStart))
            left -= edit.duration
        }
        return result
    }

    private struct Box {
        let type: String
        let start: Int
        let size: Int
        let header: Int
        var payload: Range<Int> { (start + header)..<(start + size) }
    }

    static func rewrite(path: String, edits: [Int32: [Edit]], fastStart: Bool) throws {
        let failure = { (reason: String) in
            MediaEngineError(.failed, source: path, operation: "write the edit lists", reason: reason)
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let fileSize = Int(try handle.seekToEnd())
        // The top-level boxes, from their headers.
        var top: [(type: String, start: Int, size: Int)] = []
        var offset = 0
        while offset + 8 <= fileSize {
            try handle.seek(toOffset: UInt64(offset))
            let head = [UInt8](try handle.read(upToCount: 16) ?? Data())
            guard head.count >= 8 else { break }
            var size = Int(readUInt32(head, 0))
            if size == 1, head.count >= 16 { size = Int(clamping: readUInt64(head, 8)) }
            if size == 0 { size = fileSize - offset }
            guard size >= 8, offset + size <= fileSize else { throw failure("the file's box at \(offset) is damaged") }
            top.append((String(decoding: head[4..<8], as: UTF8.self), offset, size))
            offset += size
        }
        guard let moovIndex = top.firstIndex(where: { $0.type == "moov" }) else { throw failure("the file has no movie header") }
        let moovBox = top[moovIndex]
        try handle.seek(toOffset: UInt64(moovBox.start))
        let moov = [UInt8](try handle.read(upToCount: moovBox.size) ?? Data())
        guard moov.count == moovBox.size else { throw failure("the movie header is cut short") }

        let movieScale = try movieTimescale(moov, failure)
        // The header grows or shrinks; with faststart it moves in front of everything after the first box.
        func rebuilt(shift: Int) throws -> [UInt8] {
            var durations: [UInt64] = []
            let body = try rebuild(moov, range: 8..<moov.count, container: "moov", edits: edits, movieScale: movieScale, shift: shift,
                                   durations: &durations, failure)
            var out = box("moov", body)
            patchMovieDuration(&out, durations.max() ?? 0)
            return out
        }
        let movesHeader = fastStart && moovIndex > 1
        if movesHeader {
            // [first box (ftyp)] [moov] [the rest in order]: media moves by the new header's size.
            let firstEnd = top[0].start + top[0].size
            let header = try rebuilt(shift: 0)
            let final = try rebuilt(shift: header.count)
            guard final.count == header.count else { throw failure("the movie header changed size while moving") }
            let temporary = path + ".avocet-faststart"
            guard FileManager.default.createFile(atPath: temporary, contents: nil) else { throw failure("cannot create \(temporary)") }
            let out = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            defer { try? out.close() }
            do {
                try handle.seek(toOffset: 0)
                try out.write(contentsOf: try handle.read(upToCount: firstEnd) ?? Data())
                try out.write(contentsOf: Data(final))
                for (i, entry) in top.enumerated() where i > 0 && i != moovIndex {
                    try handle.seek(toOffset: UInt64(entry.start))
                    var left = entry.size
                    while left > 0 {
                        let chunk = try handle.read(upToCount: min(left, 4 << 20)) ?? Data()
                        guard !chunk.isEmpty else { throw failure("the file is cut short") }
                        try out.write(contentsOf: chunk)
                        left -= chunk.count
                    }
                }
                try out.close()
                // Replaces the file in one step (POSIX rename), so no half-moved file is ever seen.
                guard rename(temporary, path) == 0 else { throw failure("cannot replace the file: \(String(cString: strerror(errno)))") }
            } catch {
                try? FileManager.default.removeItem(atPath: temporary)
                throw error
            }
        } else {
            guard moovIndex == top.count - 1 else { throw failure("the movie header is not at the end of the file") }
            let header = try rebuilt(shift: 0)
            try handle.truncate(atOffset: UInt64(moovBox.start))
            try handle.seek(toOffset: UInt64(moovBox.start))
            try handle.write(contentsOf: Data(header))
        }
    }

    // MARK: - The movie header's boxes

    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "dinf", "edts", "udta"]

    private static func children(_ bytes: [UInt8], _ range: Range<Int>, _ failure: (String) -> MediaEngineError) throws -> [Box] {
        var result: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = Int(readUInt32(bytes, at)), header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { throw failure("a box header is cut short") }
                size = Int(clamping: readUInt64(bytes, at + 8))
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, at + size <= range.upperBound else { throw failure("a box inside the movie header is damaged") }
            result.append(Box(type: String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self), start: at, size: size, header: header))
            at += size
        }
        return result
    }

    private static func movieTimescale(_ moov: [UInt8], _ failure: (String) -> MediaEngineError) throws -> UInt32 {
        guard let mvhd = try children(moov, 8..<moov.count, failure).first(where: { $0.type == "mvhd" }) else { throw failure("no movie header box") }
        let p = mvhd.payload.lowerBound
        let version = moov[p]
        let scale = readUInt32(moov, p + (version == 1 ? 20 : 12))
        guard scale > 0 else { throw failure("the movie timescale is zero") }
        return scale
    }

    /// The payload of container `range`, rebuilt: chunk offsets moved by `shift`, and each track with
    /// edits given its edit list and duration. Collects the tracks' durations (movie timescale).
    private static func rebuild(_ bytes: [UInt8], range: Range<Int>, container: String, edits: [Int32: [Edit]], movieScale: UInt32,
                                shift: Int, durations: inout [UInt64], _ failure: (String) -> MediaEngineError) throws -> [UInt8] {
        var out: [UInt8] = []
        let boxes = try children(bytes, range, failure)
        var trackEdits: [Edit]?
        var mediaScale: UInt32 = 0
        if container == "trak" {
            if let tkhd = boxes.first(where: { $0.type == "tkhd" }) {
                let p = tkhd.payload.lowerBound
                let id = Int32(bitPattern: readUInt32(bytes, p + (bytes[p] == 1 ? 20 : 12)))
                trackEdits = edits[id]
            }
            if trackEdits != nil {
                mediaScale = try self.mediaScale(bytes, boxes, failure)
            }
        }
        for child in boxes {
            switch child.type {
            case "edts" where trackEdits != nil:
                continue   // replaced below, after the track header
            case "tkhd":
                var copy = Array(bytes[child.start..<(child.start + child.size)])
                if let list = trackEdits {
                    let total = list.reduce(0.0) { $0 + $1.duration }
                    let duration = UInt64(max(0, (total * Double(movieScale)).rounded()))
                    patchTrackDuration(&copy, header: child.header, duration)
                    durations.append(duration)
                    out += copy
                    out += box("edts", box("elst", editList(list, movieScale: movieScale, mediaScale: mediaScale)))
                } else {
                    durations.append(trackDuration(copy, header: child.header))
                    out += copy
                }
            case "stco" where shift != 0, "co64" where shift != 0:
                out += try shifted(bytes, child, by: shift, failure)
            case let type where containers.contains(type):
                out += box(type, try rebuild(bytes, range: child.payload, container: type, edits: edits, movieScale: movieScale, shift: shift,
                                             durations: &durations, failure))
            default:
                out += bytes[child.start..<(child.start + child.size)]
            }
        }
        return out
    }

    private static func mediaScale(_ bytes: [UInt8], _ trak: [Box], _ failure: (String) -> MediaEngineError) throws -> UInt32 {
        guard let mdia = trak.first(where: { $0.type == "mdia" }),
              let mdhd = try children(bytes, mdia.payload, failure).first(where: { $0.type == "mdhd" }) else {
            throw failure("a track has no media header")
        }
        let p = mdhd.payload.lowerBound
        let scale = readUInt32(bytes, p + (bytes[p] == 1 ? 20 : 12))
        guard scale > 0 else { throw failure("a track's timescale is zero") }
        return scale
    }

    /// An `elst` payload: version 1 (64-bit) when a value needs it.
    private static func editList(_ list: [Edit], movieScale: UInt32, mediaScale: UInt32) -> [UInt8] {
        let entries = list.map { edit -> (UInt64, Int64) in
            let duration = UInt64(max(0, (edit.duration * Double(movieScale)).rounded()))
            let media = edit.mediaStart.map { max(0, Int64(saturating: ($0 * Double(mediaScale)).rounded())) } ?? -1
            return (duration, media)
        }
        let wide = entries.contains { $0.0 > UInt64(UInt32.max) || $0.1 > Int64(Int32.max) }
        var out: [UInt8] = [wide ? 1 : 0, 0, 0, 0] + uint32(UInt32(entries.count))
        for (duration, media) in entries {
            if wide {
                out += uint64(duration) + uint64(UInt64(bitPattern: media))
            } else {
                out += uint32(UInt32(duration)) + uint32(UInt32(bitPattern: Int32(media)))
            }
            out += [0, 1, 0, 0]   // rate 1.0
        }
        return out
    }

    private static func shifted(_ bytes: [UInt8], _ table: Box, by shift: Int, _ failure: (String) -> MediaEngineError) throws -> [UInt8] {
        var copy = Array(bytes[table.start..<(table.start + table.size)])
        let p = table.header + 4
        guard p + 4 <= copy.count else { throw failure("a chunk offset table is cut short") }
        let count = Int(readUInt32(copy, p))
        let width = table.type == "co64" ? 8 : 4
        guard p + 4 + count * width <= copy.count else { throw failure("a chunk offset table is cut short") }
        for i in 0..<count {
            let at = p + 4 + i * width
            if width == 8 {
                let (moved, overflow) = readUInt64(copy, at).addingReportingOverflow(UInt64(shift))
                guard !overflow else { throw failure("a chunk offset overflows") }
                copy.replaceSubrange(at..<(at + 8), with: uint64(moved))
            } else {
                let moved = UInt64(readUInt32(copy, at)) + UInt64(shift)
                guard moved <= UInt64(UInt32.max) else { throw failure("the file is too large to move its header in front") }
                copy.replaceSubrange(at..<(at + 4), with: uint32(UInt32(moved)))
            }
        }
        return copy
    }

    private static func trackDuration(_ tkhd: [UInt8], header: Int) -> UInt64 {
        let p = header
        guard p < tkhd.count else { return 0 }
        return tkhd[p] == 1 ? (p + 36 <= tkhd.count ? readUInt64(tkhd, p + 28) : 0) : (p + 24 <= tkhd.count ? UInt64(readUInt32(tkhd, p + 20)) : 0)
    }

    private static func patchTrackDuration(_ tkhd: inout [UInt8], header: Int, _ duration: UInt64) {
        let p = header
        guard p < tkhd.count else { return }
        if tkhd[p] == 1, p + 36 <= tkhd.count {
            tkhd.replaceSubrange((p + 28)..<(p + 36), with: uint64(duration))
        } else if p + 24 <= tkhd.count {
            tkhd.replaceSubrange((p + 20)..<(p + 24), with: uint32(UInt32(clamping: duration)))
        }
    }

    /// Sets the movie header's duration inside a rebuilt moov (its first child is mvhd).
    private static func patchMovieDuration(_ moov: inout [UInt8], _ duration: UInt64) {
        let p = 16   // moov header (8) + mvhd header (8)
        guard moov.count > p + 32, String(decoding: moov[12..<16], as: UTF8.self) == "mvhd" else { return }
        if moov[p] == 1 {
            moov.replaceSubrange((p + 24)..<(p + 32), with: uint64(duration))
        } else {
            moov.replaceSubrange((p + 16)..<(p + 20), with: uint32(UInt32(clamping: duration)))
        }
    }

    // MARK: - Bytes

    private static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        uint32(UInt32(clamping: payload.count + 8)) + Array(type.utf8.prefix(4)) + payload
    }

    private static func readUInt32(_ b: [UInt8], _ at: Int) -> UInt32 {
        guard at >= 0, at + 4 <= b.count else { return 0 }
        return UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    private static func readUInt64(_ b: [UInt8], _ at: Int) -> UInt64 {
        UInt64(readUInt32(b, at)) << 32 | UInt64(readUInt32(b, at + 4))
    }

    private static func uint32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    private static func uint64(_ v: UInt64) -> [UInt8] { uint32(UInt32(v >> 32)) + uint32(UInt32(v & 0xffff_ffff)) }
}
