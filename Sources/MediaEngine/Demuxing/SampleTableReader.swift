internal import CFFmpeg
import Foundation

/// Reads one MP4/MOV track's stored samples straight from the file, by the index FFmpeg built when it
/// opened the container and the track's own sample table: no `av_read_frame` loop and no packet
/// parser; the file is read in blocks of up to `blockCapacity` bytes, each from one of the track's
/// samples to the last of the next ones it holds. The packets are the ones
/// FFmpeg's loop would give (bytes, presentation and decode times, durations, keyframe flags), which
/// `packets(source:…)` checks before choosing this reader.
///
/// How a packet is made: its position, size, decode time and keyframe flag come from FFmpeg's index
/// entry (`avformat_index_get_entry`), its presentation time from the decode time plus the track's
/// composition offset (`ctts`) and the constant FFmpeg adds to make them all non-negative, its
/// duration from the next entry's decode time (the last one's from the table's `stts`).
///
/// Blocking: one caller at a time, on an engine thread, or for `nextSample` on the thread that takes
/// the samples (`readsSmallSamplesLocally`: reads of a local file only). Holds the container FFmpeg
/// opened (its index, the stream's parameters, seeks) and a read buffer of `blockCapacity` bytes.
final class SampleTableReader: PacketSource {
    private let reader: PacketReader
    private let source: any ByteSource
    /// The file's length: no sample reaching past it is given memory (its size is the file's word, up
    /// to half a gigabyte, the most FFmpeg's index holds).
    private let fileSize: Int64
    private let table: MP4SampleTable
    private let stream: UnsafeMutablePointer<AVStream>
    private let count: Int
    /// What FFmpeg adds to a decode time and a composition offset to give the presentation time.
    private let presentationShift: Int64
    /// The next sample to hand out.
    private var cursor = 0
    /// Where `cursor` stands in the composition offsets.
    private var offsets = OffsetCursor()
    /// Bytes of the file from `blockStart`, `blockLength` of them valid.
    private let block: UnsafeMutableRawBufferPointer
    private var blockStart: Int64 = 0
    private var blockLength = 0
    /// Where `nextSample` reads a sample too large for the block.
    private var large = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// The read buffer: the track's samples in a stretch of the file up to this long are read at
    /// once; a sample over half of it is read straight into its packet.
    static let blockCapacity = 1 << 20
    /// How many packets FFmpeg's own loop reads at the open, to check this reader gives the same.
    static let probeCount = 16

    /// Whether a sample costs less to read than waking a thread: the bytes come from a local file
    /// (`FileByteSource`, not a network or a delegate) and the track's samples average at most
    /// `PacketShelf.keptBufferBytes` (larger ones are better copied on an engine thread while their
    /// taker works on the last).
    let readsSmallSamplesLocally: Bool

    var timeBase: AVRational { reader.timeBase }
    var name: String { reader.name }
    var format: ContainerFormat { reader.format }
    var standsAtStart: Bool { true }
    func origin(in timeBase: AVRational) -> Int64 { reader.origin(in: timeBase) }
    func withStream<T>(_ body: (UnsafeMutablePointer<AVStream>) throws -> T) rethrows -> T { try reader.withStream(body) }

    /// The packets of the stream at `streamIndex`: read through its sample table when it is an MP4/MOV
    /// track whose table FFmpeg's index and first packets agree with, from a source of known length,
    /// else by FFmpeg's loop (a `PacketReader`). Blocking: opens the container (twice when the check read packets and failed).
    static func packets(source: any ByteSource, options: DemuxerOptions, streamIndex: Int,
                        cancellation: CancellationToken) throws -> any PacketSource {
        let open = { try PacketReader(source: source, options: options, streamIndex: streamIndex, decodeTimes: true, cancellation: cancellation) }
        let reader = try open()
        guard reader.format == .quickTime, readsStraight(reader.parameters.pointee.codec_id),
              let table = try MP4SampleTable.read(trackID: reader.stream.pointee.id,
                                                  expectedCount: Int(avformat_index_get_entries_count(reader.stream)),
                                                  from: source, cancellation: cancellation),
              agrees(table, with: reader.stream), let fileSize = try source.size(cancellation: cancellation) else { return reader }
        guard let shift = try probe(reader, table, cancellation) else { return try open() }
        return SampleTableReader(reader: reader, source: source, fileSize: fileSize, table: table, presentationShift: shift)
    }

    private init(reader: PacketReader, source: any ByteSource, fileSize: Int64, table: MP4SampleTable, presentationShift: Int64) {
        self.reader = reader
        self.source = source
        self.fileSize = fileSize
        self.table = table
        self.presentationShift = presentationShift
        stream = reader.stream
        count = table.sampleCount
        readsSmallSamplesLocally = source is FileByteSource && table.averageSize <= PacketShelf.keptBufferBytes
        block = .allocate(byteCount: Self.blockCapacity, alignment: 64)
    }

    deinit {
        block.deallocate()
        large.deallocate()
    }

    /// Codecs whose packets FFmpeg hands out as stored: no parser splits or joins them (MPEG audio's
    /// does), and no other demuxer inside the track (DV audio) makes them.
    private static func readsStraight(_ codec: AVCodecID) -> Bool {
        switch codec {
        case AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1, AV_CODEC_ID_VP9, AV_CODEC_ID_PRORES, AV_CODEC_ID_MJPEG,
             AV_CODEC_ID_AAC, AV_CODEC_ID_ALAC, AV_CODEC_ID_FLAC, AV_CODEC_ID_OPUS, AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3,
             AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S16BE, AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S24BE,
             AV_CODEC_ID_PCM_S32LE, AV_CODEC_ID_PCM_S32BE, AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F32BE,
             AV_CODEC_ID_PCM_F64LE, AV_CODEC_ID_PCM_F64BE:
            return true
        default:
            return false
        }
    }

    /// Whether FFmpeg's index of `stream` is the table's samples in order: as many entries, each of
    /// the table's size. (An edit list that starts inside the media, as AAC's priming does, leaves the
    /// entries in order and marks those before its start for discarding after decoding.)
    private static func agrees(_ table: MP4SampleTable, with stream: UnsafeMutablePointer<AVStream>) -> Bool {
        guard Int(avformat_index_get_entries_count(stream)) == table.sampleCount, table.sampleCount > 0,
              table.sampleCount <= Int(Int32.max) else { return false }
        for i in 0..<table.sampleCount {
            guard let entry = avformat_index_get_entry(stream, Int32(i)), Int(entry.pointee.size) == table.size(of: i),
                  entry.pointee.pos >= 0 else { return false }
        }
        return true
    }

    /// Reads FFmpeg's first packets of the stream and compares each with what the table gives; the
    /// presentation shift when every one agrees, nil when any differs.
    private static func probe(_ reader: PacketReader, _ table: MP4SampleTable, _ token: CancellationToken) throws -> Int64? {
        try withPacket(reader.name) { try probe(reader, table, into: $0, token) }
    }

    /// Runs `body` with a packet of its own, freed after.
    private static func withPacket<T>(_ name: String, _ body: (UnsafeMutablePointer<AVPacket>) throws -> T) throws -> T {
        guard let packet = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "read", reason: "out of memory")
        }
        defer {
            var p: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&p)
        }
        return try body(packet)
    }

    private static func probe(_ reader: PacketReader, _ table: MP4SampleTable, into packet: UnsafeMutablePointer<AVPacket>,
                              _ token: CancellationToken) throws -> Int64? {
        var shift: Int64?
        var offsets = OffsetCursor()
        for i in 0..<min(probeCount, table.sampleCount) {
            guard try FFmpegLog.capturing({ try reader.next(packet, token) }), let entry = avformat_index_get_entry(reader.stream, Int32(i)) else { return nil }
            let p = packet.pointee
            let offset = offsets.next(table.offsets)
            if shift == nil { shift = p.pts.subtractingSaturating(p.dts).subtractingSaturating(offset ?? 0) }
            guard let shift else { return nil }
            let expected = expectedTiming(entry.pointee, index: i, table: table, stream: reader.stream, offset: offset, shift: shift)
            guard p.pos == entry.pointee.pos, Int(p.size) == table.size(of: i), p.dts == expected.dts, p.pts == expected.pts,
                  p.duration == expected.duration, (p.flags & AV_PKT_FLAG_KEY != 0) == (entry.pointee.flags & AVINDEX_KEYFRAME != 0) else { return nil }
        }
        return shift
    }

    /// The decode and presentation times and duration of the sample at `index`, whose index entry is
    /// `entry` and composition offset `offset` (nil: the track has none).
    private static func expectedTiming(_ entry: AVIndexEntry, index: Int, table: MP4SampleTable, stream: UnsafeMutablePointer<AVStream>,
                                       offset: Int64?, shift: Int64) -> (dts: Int64, pts: Int64, duration: Int64) {
        let dts = entry.timestamp
        let pts = offset.map { dts.addingSaturating(shift).addingSaturating($0) } ?? dts
        let duration: Int64
        if index + 1 < table.sampleCount, let next = avformat_index_get_entry(stream, Int32(index + 1)) {
            duration = max(0, next.pointee.timestamp.subtractingSaturating(dts))
        } else if table.offsets == nil, stream.pointee.duration != avocet_nopts_value(), stream.pointee.duration >= dts {
            duration = stream.pointee.duration - dts
        } else {
            duration = table.durations.last?.value ?? 0
        }
        return (dts, pts, duration)
    }

    /// Walks the composition offsets one sample at a time.
    private struct OffsetCursor {
        var run = 0
        var used = 0

        /// The next sample's offset; nil when the track has none.
        mutating func next(_ runs: [MP4SampleTable.Run]?) -> Int64? {
            guard let runs, run < runs.count else { return nil }
            let value = runs[run].value
            used += 1
            if used == runs[run].count { (run, used) = (run + 1, 0) }
            return value
        }

        /// The cursor standing at sample `index`.
        init(at index: Int = 0, in runs: [MP4SampleTable.Run]? = nil) {
            guard let runs else { return }
            var left = index
            while run < runs.count, left >= runs[run].count {
                left -= runs[run].count
                run += 1
            }
            used = run < runs.count ? left : 0
        }
    }

    func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        try reader.seek(atOrBefore: timestamp, token)
        // Where FFmpeg's seek landed: the entry of the packet its loop reads next.
        let landed = try Self.withPacket(name) { packet in
            try FFmpegLog.capturing { try reader.next(packet, token) } ? (packet.pointee.pos, packet.pointee.dts) : nil
        }
        guard let (pos, dts) = landed else {
            cursor = count
            return
        }
        guard let found = index(ofPosition: pos, decodeTime: dts) else {
            throw MediaEngineError(.failed, source: name, operation: "seek",
                                   reason: "the sample at byte \(pos) is not in the track's sample table")
        }
        cursor = found
        offsets = OffsetCursor(at: found, in: table.offsets)
    }

    /// The index of the entry at byte `pos` whose decode time is `dts`: found by decode time (entries are
    /// in decode order), else by a walk.
    private func index(ofPosition pos: Int64, decodeTime dts: Int64) -> Int? {
        var (low, high) = (0, count)
        while low < high {
            let middle = low + (high - low) / 2
            guard let entry = avformat_index_get_entry(stream, Int32(middle)) else { return nil }
            if entry.pointee.timestamp < dts { low = middle + 1 } else { high = middle }
        }
        var i = low
        while i < count, let entry = avformat_index_get_entry(stream, Int32(i)), entry.pointee.timestamp == dts {
            if entry.pointee.pos == pos { return i }
            i += 1
        }
        return (0..<count).first { avformat_index_get_entry(stream, Int32($0))?.pointee.pos == pos }
    }

    /// One sample as `nextSample` hands it out: its bytes, valid until the next read, and its times in
    /// stream ticks.
    struct Sample {
        let bytes: UnsafeRawBufferPointer
        let presentationTime: Int64
        let decodeTime: Int64
        let duration: Int64
        let isKeyframe: Bool
    }

    func next(_ packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
        guard let (entry, size, timing) = try advance(token) else { return false }
        try makeRoom(in: packet, for: size)
        if size > 0, let data = packet.pointee.data {
            let target = UnsafeMutableRawBufferPointer(start: data, count: size)
            if size > Self.blockCapacity / 2 {
                try readExactly(at: entry.pos, into: target, token)
            } else {
                target.copyMemory(from: try blockBytes(at: entry.pos, size: size, sample: cursor - 1, token))
            }
        }
        packet.pointee.pts = timing.pts
        packet.pointee.dts = timing.dts
        packet.pointee.duration = timing.duration
        packet.pointee.pos = entry.pos
        packet.pointee.stream_index = reader.streamIndex
        packet.pointee.flags = (entry.flags & AVINDEX_KEYFRAME != 0 ? AV_PKT_FLAG_KEY : 0)
            | (entry.flags & AVINDEX_DISCARD_FRAME != 0 ? AV_PKT_FLAG_DISCARD : 0)
        return true
    }

    /// The next sample without a packet: its bytes point into the read block (or, for a sample over
    /// half of it, into a buffer of the reader's), valid until the next call. Nil at the end.
    func nextSample(_ token: CancellationToken) throws -> Sample? {
        guard let (entry, size, timing) = try advance(token) else { return nil }
        let bytes: UnsafeRawBufferPointer
        if size > Self.blockCapacity / 2 {
            if large.count < size {
                large.deallocate()
                large = .allocate(byteCount: size, alignment: 64)
            }
            let target = UnsafeMutableRawBufferPointer(rebasing: large[0..<size])
            try readExactly(at: entry.pos, into: target, token)
            bytes = UnsafeRawBufferPointer(target)
        } else {
            bytes = size == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : try blockBytes(at: entry.pos, size: size, sample: cursor - 1, token)
        }
        return Sample(bytes: bytes, presentationTime: timing.pts, decodeTime: timing.dts, duration: timing.duration,
                      isKeyframe: entry.flags & AVINDEX_KEYFRAME != 0)
    }

    /// Moves on to the next sample: its index entry, size and times; nil at the end.
    private func advance(_ token: CancellationToken) throws -> (AVIndexEntry, Int, (dts: Int64, pts: Int64, duration: Int64))? {
        guard cursor < count else { return nil }
        if token.isCancelled { throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled") }
        guard let found = avformat_index_get_entry(stream, Int32(cursor)) else { return nil }
        let entry = found.pointee
        let timing = Self.expectedTiming(entry, index: cursor, table: table, stream: stream, offset: offsets.next(table.offsets),
                                         shift: presentationShift)
        let size = table.size(of: cursor)
        guard entry.pos.addingSaturating(Int64(size)) <= fileSize else {
            throw cutShort(at: entry.pos, wanted: size, read: Int(clamping: max(0, fileSize.subtractingSaturating(entry.pos))))
        }
        cursor += 1
        return (entry, size, timing)
    }

    /// The `size` bytes at `pos` (sample `sample`'s), from the block, which is read again from there
    /// when it does not hold them.
    private func blockBytes(at pos: Int64, size: Int, sample: Int, _ token: CancellationToken) throws -> UnsafeRawBufferPointer {
        if !(pos >= blockStart && pos.addingSaturating(Int64(size)) <= blockStart.addingSaturating(Int64(blockLength))) {
            try fillBlock(from: sample, at: pos, token)
        }
        guard let start = block.baseAddress else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start + Int(pos - blockStart), count: size)
    }

    /// Leaves `packet` holding `size` bytes of memory of its own (and FFmpeg's zeroed padding after
    /// them): the memory it holds when that is large enough and its alone (a packet the shelf kept),
    /// else new memory, a multiple of 4 KiB for a small sample so that it serves the next ones too.
    private func makeRoom(in packet: UnsafeMutablePointer<AVPacket>, for size: Int) throws {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let size32 = Int32(exactly: size) else {
            throw MediaEngineError(.unsupported, source: name, operation: "read", reason: "a sample of \(size) bytes is too large")
        }
        av_packet_free_side_data(packet)
        if let buf = packet.pointee.buf, av_buffer_is_writable(buf) != 0, buf.pointee.size >= size + padding, let data = buf.pointee.data {
            packet.pointee.data = data
        } else {
            av_packet_unref(packet)
            let capacity = size <= PacketShelf.keptBufferBytes ? min(PacketShelf.keptBufferBytes, (size + 4095) / 4096 * 4096) : size
            guard av_new_packet(packet, Int32(capacity)) >= 0, packet.pointee.data != nil else {
                throw MediaEngineError(.outOfMemory, source: name, operation: "read", reason: "out of memory for a sample of \(size) bytes")
            }
        }
        packet.pointee.size = size32
        if let data = packet.pointee.data { (data + size).initialize(repeating: 0, count: padding) }
    }

    /// Reads into the block the bytes from sample `first` (at byte `pos`) to the end of the last of
    /// the samples after it that lie in the block's reach, in order: interleaved tracks' bytes between
    /// them are read too, as FFmpeg's own reads do, so that a track interleaved sample by sample costs
    /// one read a block rather than one a sample. Where the reach holds the track's samples in a few
    /// long runs that make up under half of it (a sound track between a movie's large pictures), only
    /// the first run is read: the other tracks' bytes would cost more to copy than the reads saved.
    private func fillBlock(from first: Int, at pos: Int64, _ token: CancellationToken) throws {
        let reach = pos.addingSaturating(Int64(Self.blockCapacity))
        var end = pos.addingSaturating(Int64(table.size(of: first)))
        var firstRunEnd: Int64?
        var (runs, own) = (1, Int64(table.size(of: first)))
        var i = first + 1
        while i < count, i - first < 16_384, let entry = avformat_index_get_entry(stream, Int32(i)) {
            let size = Int64(table.size(of: i))
            let sampleEnd = entry.pointee.pos.addingSaturating(size)
            guard entry.pointee.pos >= end, sampleEnd <= reach else { break }
            if entry.pointee.pos != end {
                if firstRunEnd == nil { firstRunEnd = end }
                runs += 1
            }
            own += size
            end = sampleEnd
            i += 1
        }
        if let firstRunEnd, runs <= 4, own < (end - pos) / 2 { end = firstRunEnd }
        let length = Int(end - pos)
        blockLength = 0
        // A file cut short gives less: the samples it holds whole are handed out, and the first it
        // does not fails its read.
        let read = try source.readFully(at: pos, into: UnsafeMutableRawBufferPointer(rebasing: block[0..<length]), cancellation: token)
        if token.isCancelled { throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled") }
        guard read >= table.size(of: first) else { throw cutShort(at: pos, wanted: table.size(of: first), read: read) }
        (blockStart, blockLength) = (pos, read)
    }

    private func cutShort(at pos: Int64, wanted: Int, read: Int) -> MediaEngineError {
        MediaEngineError(.truncated, source: name, operation: "read",
                         reason: "the file ends inside a sample its index lists (at byte \(pos), \(wanted) bytes; \(read) there)")
    }

    private func readExactly(at pos: Int64, into buffer: UnsafeMutableRawBufferPointer, _ token: CancellationToken) throws {
        let read = try source.readFully(at: pos, into: buffer, cancellation: token)
        if token.isCancelled { throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled") }
        guard read == buffer.count else { throw cutShort(at: pos, wanted: buffer.count, read: read) }
    }
}
