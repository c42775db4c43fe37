internal import CFFmpeg
import Foundation
internal import Locking

/// Options for opening a container.
package struct DemuxerOptions: Sendable, Equatable {
    /// When to run FFmpeg's `avformat_find_stream_info`, which reads and decodes the first packets to
    /// fill in what a header lacks (frame rates, Ogg and FLAC stream parameters, durations of streams
    /// without an index). It dominates the cost of an open.
    package enum StreamAnalysis: Sendable, Equatable {
        /// Only for containers whose header does not give every fact (`ContainerFormat.headerSuffices`).
        case whenNeeded
        case always
        case never
    }

    package var streamAnalysis = StreamAnalysis.whenNeeded
    /// Where nested opens go, for a source that really is a playlist (HLS); nil refuses them all, as
    /// for every file and byte source: a file is only itself.
    package var nestedSources: NestedSources?

    package init() {}
}

/// Opens the byte sources a playlist names (HLS media playlists and segments), for an asset that
/// really is a playlist. Called on the engine thread of the open in progress; it decides which URLs
/// may be opened at all (it throws for the rest).
package final class NestedSources: Sendable, Equatable {
    private let open: @Sendable (String) throws -> any ByteSource

    package init(_ open: @escaping @Sendable (String) throws -> any ByteSource) {
        self.open = open
    }

    func source(for url: String) throws -> any ByteSource { try open(url) }

    /// The bytes of the resource at `url`, read through the source it opens, up to `limit` bytes (the
    /// rest is left out). Blocking: call on an engine thread.
    package func bytes(of url: String, limit: Int, cancellation: CancellationToken) throws -> [UInt8] {
        let source = try open(url)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let n = try chunk.withUnsafeMutableBytes {
                try source.readFully(at: Int64(bytes.count), into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<wanted]), cancellation: cancellation)
            }
            bytes += chunk[0..<n]
            if n < wanted { break }
        }
        return bytes
    }

    package static func == (a: NestedSources, b: NestedSources) -> Bool { a === b }
}

/// One open container, parsed once. `info` holds everything the header said, as plain Swift values.
///
/// Opening runs on the engine's I/O threads (`IOExecutor`) and never on the caller's. The FFmpeg state
/// (one `FormatContext`, which frees it) lives as long as the demuxer; it is only touched from one
/// engine job at a time, which is why the class is unchecked Sendable. `info` is immutable. A demuxer
/// holds its byte source (a file descriptor for files) open: drop it when its work is done.
package final class Demuxer: @unchecked Sendable {
    package let info: ContainerInfo
    private let context: FormatContext
    private let source: any ByteSource
    private let options: DemuxerOptions
    /// Held for the whole of each operation: one demuxer serves one engine job at a time.
    private let operationLock = Locked()
    private let executor: IOExecutor

    /// Opens the local file at `path`: the `open(2)`, probing and header parse all run on an engine
    /// thread. Cancelling the calling task interrupts FFmpeg and ends with `.cancelled`.
    package static func open(path: String, options: DemuxerOptions = DemuxerOptions(), executor: IOExecutor = .shared) async throws -> Demuxer {
        try await executor.run { token in
            try Demuxer(source: FileByteSource(path: path), options: options, cancellation: token, executor: executor)
        }
    }

    /// Opens a container read through `source`, on an engine thread.
    package static func open(source: any ByteSource, options: DemuxerOptions = DemuxerOptions(), executor: IOExecutor = .shared) async throws -> Demuxer {
        try await executor.run { token in
            try Demuxer(source: source, options: options, cancellation: token, executor: executor)
        }
    }

    /// Opens and parses synchronously. Blocking: call only on an engine thread. Parses the header, and
    /// decodes the first frames only for containers whose header leaves facts out (see `DemuxerOptions`).
    package init(source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken,
                 executor: IOExecutor = .shared) throws {
        self.executor = executor
        self.source = source
        self.options = options
        (context, info, _) = try FFmpegLog.capturing { try Demuxer.openAndDescribe(source, options: options, cancellation: cancellation) }
    }

    /// Opens `source` once for a reader of one of its streams: describes the container as `init` does,
    /// lets `choose` pick the stream (its index in the container, and whatever else the caller decides
    /// from the description: `Choice`) and returns the description, a packet reader of that stream over
    /// the same open container (the header parsed and an MP4's index built once) and the choice. Where
    /// describing read packets past the start (Matroska's peek at its first packets, when the container
    /// is not analysed), the reader opens the container again. Blocking: call on an engine thread or a
    /// caller's own.
    static func describedReader<Choice>(source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken,
                                        choose: (ContainerInfo) throws -> (streamIndex: Int, choice: Choice))
        throws -> (info: ContainerInfo, reader: PacketReader, choice: Choice) {
        let (context, info, standsAtStart) = try FFmpegLog.capturing {
            try Demuxer.openAndDescribe(source, options: options, cancellation: cancellation)
        }
        let (index, choice) = try choose(info)
        guard standsAtStart else {
            return (info, try PacketReader(source: source, options: options, streamIndex: index, cancellation: cancellation), choice)
        }
        return (info, try PacketReader(opened: context, name: source.name, streamIndices: [index]), choice)
    }

    /// The open container, its description, and whether it still stands at its start (no packet read
    /// but those `avformat_find_stream_info` keeps to hand out again).
    private static func openAndDescribe(_ source: any ByteSource, options: DemuxerOptions,
                                        cancellation: CancellationToken) throws -> (FormatContext, ContainerInfo, Bool) {
        let name = source.name
        let byteSize = try source.size(cancellation: cancellation)
        if byteSize == 0 {
            throw MediaEngineError(.notMedia, source: name, operation: "open", reason: "the file is empty")
        }
        let (context, ctx) = try openContext(source, options: options, cancellation: cancellation)
        let analyzed = try analyzeIfNeeded(context, options: options, cancellation: cancellation)
        var described = Demuxer.describe(ctx, demuxerName: context.demuxerName, byteSize: byteSize)
        let peeks = !analyzed && described.format == .matroska
        if peeks {
            try Demuxer.peekPackets(ctx, into: &described, cancellation: cancellation, source: name)
        }
        if !described.variants.isEmpty {
            // The attributes are extras: a source that will not give the playlist's bytes again leaves
            // them out rather than failing the asset (a cancellation still ends the parse).
            do {
                try readVariantAttributes(source, into: &described, cancellation: cancellation)
            } catch {
                if cancellation.isCancelled { throw error }
            }
        }
        if described.isQuickTimeFamily {
            let boxes = try MP4Boxes.scan(source, cancellation: cancellation)
            described.mp4Boxes = boxes
            for i in described.streams.indices {
                described.streams[i].alternateGroup = boxes.alternateGroups[described.streams[i].id]
                described.streams[i].metadataKeys = boxes.metadataKeys[described.streams[i].id]
                if let ticks = boxes.trackDurations[described.streams[i].id], ticks > 0, let scale = boxes.movieTimeScale {
                    described.streams[i].trackHeaderDuration = MediaTimestamp(value: ticks, timeBase: Rational(1, scale))
                }
                guard described.streams[i].kind == .video else { continue }
                if let size = boxes.trackSizes[described.streams[i].id], size.width > 0, size.height > 0 {
                    described.streams[i].trackHeaderSize = size
                }
            }
        }
        try Demuxer.checkComplete(described, ctx: ctx, source: name)
        return (context, described, !peeks)
    }

    /// Reads the master playlist's text again (its bytes are the source's, already read by FFmpeg) and
    /// gives each variant its `EXT-X-STREAM-INF` attributes, when the entries and FFmpeg's programs
    /// agree in number (FFmpeg makes one program per entry, in order).
    private static func readVariantAttributes(_ source: any ByteSource, into info: inout ContainerInfo,
                                              cancellation: CancellationToken) throws {
        let size = try source.size(cancellation: cancellation).map { Int(clamping: $0) } ?? HLSMasterPlaylist.maximumTextBytes
        var bytes = [UInt8](repeating: 0, count: max(0, min(size, HLSMasterPlaylist.maximumTextBytes)))
        let count = try bytes.withUnsafeMutableBytes { try source.readFully(at: 0, into: $0, cancellation: cancellation) }
        let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        let entries = HLSMasterPlaylist.variants(in: text[...])
        guard entries.count == info.variants.count else { return }
        for i in info.variants.indices { info.variants[i].playlist = entries[i] }
        // The subtitles that go with the shown variant.
        guard let shown = info.variants.firstIndex(where: \.isShown), let group = entries[shown].subtitles else { return }
        info.subtitleRenditions = HLSMasterPlaylist.renditions(in: text[...]).filter { $0.type == "SUBTITLES" && $0.groupID == group && $0.uri != nil }
    }

    /// Opens the container read through `source` as the options say, and keeps one variant of a
    /// playlist: the start that the header parse and the packet scan share.
    static func openContext(_ source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken)
        throws -> (FormatContext, UnsafeMutablePointer<AVFormatContext>) {
        let context = try FormatContext(io: AVIOBridge(source: source, cancellation: cancellation), cancellation: cancellation,
                                        nestedSources: options.nestedSources)
        guard let ctx = context.pointer else {
            throw MediaEngineError(.failed, source: source.name, operation: "open", reason: "FFmpeg gave no context")
        }
        selectVariant(ctx)
        return (context, ctx)
    }

    /// For an HLS master playlist (one program per variant), keeps the streams of the variant with the
    /// highest bandwidth and discards the others, so that their segments are never fetched and the
    /// asset shows one set of tracks, as a player starting on the best variant would.
    private static func selectVariant(_ ctx: UnsafeMutablePointer<AVFormatContext>) {
        let c = ctx.pointee
        guard c.nb_programs > 1, let programs = c.programs, let best = bestProgram(ctx), let chosen = programs[best]?.pointee,
              let indexes = chosen.stream_index else { return }
        let keep = Set((0..<Int(chosen.nb_stream_indexes)).map { Int(indexes[$0]) })
        for i in 0..<Int(c.nb_streams) where !keep.contains(i) {
            c.streams[i]?.pointee.discard = AVDISCARD_ALL
        }
    }

    /// The index of the program with the highest `variant_bitrate` (the first of equals): the variant
    /// a master playlist's asset shows.
    private static func bestProgram(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Int? {
        let c = ctx.pointee
        guard let programs = c.programs else { return nil }
        var best: (bitrate: Int64, index: Int)?
        for i in 0..<Int(c.nb_programs) {
            guard let program = programs[i] else { continue }
            let bitrate = tags(program.pointee.metadata).value(for: "variant_bitrate").flatMap { Int64($0) } ?? 0
            if best.map({ bitrate > $0.bitrate }) ?? true { best = (bitrate, i) }
        }
        return best?.index
    }

    /// Whether a stream is one the asset shows: every stream but the other variants of a playlist that
    /// `selectVariant` discarded (other demuxers discard streams of their own, MP4 its chapter text).
    private static func isDescribed(_ st: UnsafeMutablePointer<AVStream>, format: ContainerFormat) -> Bool {
        format != .hls || st.pointee.discard != AVDISCARD_ALL
    }

    /// Runs `avformat_find_stream_info` when the options and the container call for it; returns whether it ran.
    /// With `decodeTimes` (a reader that hands out stored packets), Matroska is analysed too: it stores
    /// presentation times only, and FFmpeg infers the decode times of reordered video (B-frames) from
    /// the reordering the analysis finds; without it, the packets come without decode times.
    static func analyzeIfNeeded(_ context: FormatContext, options: DemuxerOptions, cancellation: CancellationToken,
                                decodeTimes: Bool = false) throws -> Bool {
        guard let ctx = context.pointer else { return false }
        let analyze: Bool
        let format = ContainerFormat(demuxer: context.demuxerName)
        switch options.streamAnalysis {
        case .always: analyze = true
        case .never: analyze = false
        case .whenNeeded:
            analyze = !format.headerSuffices || headerLeavesOut(ctx) || (decodeTimes && format == .matroska)
        }
        guard analyze else { return false }
        let rc = avformat_find_stream_info(ctx, nil)
        if rc < 0 { throw context.failure(rc, "read stream information", cancellation) }
        return true
    }

    /// Whether a header that usually suffices left a fact out that only reading packets tells: the
    /// picture size (MP4 leaves it to the decoder for H.263 and MPEG-4 Part 2), the frame rate, or an
    /// audio sample rate.
    private static func headerLeavesOut(_ ctx: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let st = ctx.pointee.streams[i] else { continue }
            let par = st.pointee.codecpar.pointee
            let picture = st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
            // A video stream with no size, or no rate (fragmented MP4, WebM without default durations).
            if par.codec_type == AVMEDIA_TYPE_VIDEO && !picture
                && (par.width <= 0 || par.height <= 0 || st.pointee.r_frame_rate.num <= 0) { return true }
            if par.codec_type == AVMEDIA_TYPE_AUDIO && (par.sample_rate <= 0 || par.ch_layout.nb_channels <= 0) {
                // FLAC's STREAMINFO holds what the parser would find.
                let setup = par.extradata.map { Data(bytes: $0, count: Int(max(0, par.extradata_size))) }
                if par.codec_id == AV_CODEC_ID_FLAC, let setup, FLACStreamInfo(setup) != nil { continue }
                return true
            }
        }
        return false
    }

    // MARK: - Packet scan

    /// Reads every packet to the end without decoding, on an engine thread, and returns per-stream
    /// statistics indexed like `info.streams`. Cost: one pass over the file's bytes, through a container
    /// opened afresh for the pass, so every call counts from the start (a cancelled scan spoils nothing).
    /// Cancelling the calling task stops it.
    package func scanPackets() async throws -> [PacketStatistics] {
        try await executor.run { [self] token in try scanPackets(cancellation: token) }
    }

    /// The blocking form of `scanPackets()`; call only on an engine thread.
    package func scanPackets(cancellation: CancellationToken) throws -> [PacketStatistics] {
        try operationLock.withLock { () throws -> [PacketStatistics] in
            try Demuxer.scanPackets(source: source, options: options, cancellation: cancellation,
                                    expecting: (info.byteSize, info.streams.count))
        }
    }

    /// Opens `source` and reads every packet to the end without decoding. Blocking: call only on an
    /// engine thread. The streams are those a demuxer opened with the same options reports.
    ///
    /// `expecting` is what an earlier open of the same source saw (its size and stream count): a source
    /// that has changed since (a file replaced or truncated) fails with `.failed` rather than give
    /// statistics of other streams.
    package static func scanPackets(source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken,
                                    expecting: (byteSize: Int64?, streams: Int)? = nil) throws -> [PacketStatistics] {
        try FFmpegLog.capturing { try scanAll(source: source, options: options, cancellation: cancellation, expecting: expecting) }
    }

    private static func scanAll(source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken,
                                expecting: (byteSize: Int64?, streams: Int)?) throws -> [PacketStatistics] {
        let name = source.name
        let changed = MediaEngineError(.failed, source: name, operation: "read packets", reason: "the file changed after its header was read")
        if let expecting, try source.size(cancellation: cancellation) != expecting.byteSize { throw changed }
        let (context, ctx) = try openContext(source, options: options, cancellation: cancellation)
        _ = try analyzeIfNeeded(context, options: options, cancellation: cancellation)
        // Statistics go by position among the streams described (a playlist's other variants left out).
        var slot = [Int?](repeating: nil, count: Int(ctx.pointee.nb_streams))
        var described = 0
        let format = ContainerFormat(demuxer: context.demuxerName)
        for i in slot.indices where ctx.pointee.streams[i].map({ isDescribed($0, format: format) }) ?? false {
            slot[i] = described
            described += 1
        }
        if let expecting, described != expecting.streams { throw changed }
        // Times count from the item's zero, as the header's do (an MPEG stream's clock starts anywhere).
        let originMicroseconds = FFmpeg.itemOrigin(ctx, format: format)
        var origins = [Int64](repeating: 0, count: slot.count)
        for i in origins.indices where originMicroseconds != 0 {
            guard let st = ctx.pointee.streams[i], st.pointee.time_base.num > 0, st.pointee.time_base.den > 0 else { continue }
            origins[i] = av_rescale_q(originMicroseconds, AVRational(num: 1, den: AV_TIME_BASE), st.pointee.time_base)
        }
        let nopts = avocet_nopts_value()
        var stats = [PacketStatistics](repeating: PacketStatistics(), count: described)
        var lastPTS = [Int64?](repeating: nil, count: stats.count)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let p = packet else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "read packets", reason: "out of memory")
        }
        while true {
            let rc = FFmpeg.readFrame(ctx, p)
            if rc == avocet_averror_eof() { break }
            if rc < 0 { throw context.failure(rc, "read packets", cancellation) }
            let index = Int(p.pointee.stream_index)
            // Streams found mid-file (MPEG-TS) have no header entry; they are not counted.
            if index >= 0 && index < slot.count, let i = slot[index] {
                stats[i].packetCount = stats[i].packetCount.addingSaturating(1)
                stats[i].totalBytes = stats[i].totalBytes.addingSaturating(Int64(max(0, p.pointee.size)))
                if p.pointee.flags & AV_PKT_FLAG_KEY != 0 { stats[i].keyframes = stats[i].keyframes.addingSaturating(1) }
                // A packet without a presentation time (an AVI's, whose B-frames FFmpeg times only once
                // decoded) is placed by its decode time: the stream's span is the same length.
                let stated = p.pointee.pts != nopts ? p.pointee.pts : p.pointee.dts
                if stated != nopts {
                    let pts = stated.subtractingSaturating(origins[index])
                    stats[i].firstPresentationTime = min(stats[i].firstPresentationTime ?? pts, pts)
                    let end = pts.addingSaturating(max(0, p.pointee.duration))
                    stats[i].endPresentationTime = max(stats[i].endPresentationTime ?? end, end)
                }
                if p.pointee.pts != nopts {
                    let pts = p.pointee.pts
                    if let last = lastPTS[i], pts < last { stats[i].hasReordering = true }
                    lastPTS[i] = pts
                }
                if p.pointee.duration > 0 {
                    stats[i].minimumDuration = min(stats[i].minimumDuration ?? p.pointee.duration, p.pointee.duration)
                }
                let skipped = FFmpeg.skippedSamples(p)
                stats[i].skippedAtStart = stats[i].skippedAtStart.addingSaturating(skipped.start)
                stats[i].discardedAtEnd = stats[i].discardedAtEnd.addingSaturating(skipped.end)
            }
            av_packet_unref(p)
        }
        return stats
    }

    /// Reads the first packets of a container whose header gives no start times and no hint of frame
    /// reordering (Matroska), without decoding: until every audio and video stream has started and
    /// every video stream has shown eight packets, at most 64 packets or 4 MiB. Sets each stream's start
    /// to its earliest presentation time seen, and marks video whose presentation times go backwards.
    private static func peekPackets(_ ctx: UnsafeMutablePointer<AVFormatContext>, into info: inout ContainerInfo,
                                    cancellation: CancellationToken, source: String) throws {
        let nopts = avocet_nopts_value()
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let p = packet else { return }
        var first = [Int64?](repeating: nil, count: info.streams.count)
        var last = [Int64?](repeating: nil, count: info.streams.count)
        var reorders = [Bool](repeating: false, count: info.streams.count)
        var bytes: Int64 = 0
        var seen = [Int](repeating: 0, count: info.streams.count)
        // Enough when every audio and video stream has shown its start, and every video stream has shown
        // eight packets (B-frames show in the first group of pictures, right after the first frame).
        func enough() -> Bool {
            info.streams.indices.allSatisfy { i in
                switch info.streams[i].kind {
                case .video: return info.streams[i].disposition.contains(.attachedPicture) || seen[i] >= 8
                case .audio: return seen[i] >= 1
                default: return true
                }
            }
        }
        for _ in 0..<64 {
            if enough() { break }
            let rc = FFmpeg.readFrame(ctx, p)
            if rc < 0 {
                if cancellation.isCancelled { throw FFmpeg.error(avocet_averror_exit(), "open", source: source) }
                break
            }
            bytes = bytes.addingSaturating(Int64(max(0, p.pointee.size)))
            let i = Int(p.pointee.stream_index)
            let pts = p.pointee.pts
            av_packet_unref(p)
            if i >= 0, i < first.count {
                seen[i] += 1
                if pts != nopts {
                    first[i] = min(first[i] ?? pts, pts)
                    if let previous = last[i], pts < previous { reorders[i] = true }
                    last[i] = pts
                }
            }
            if bytes > 4 << 20 { break }
        }
        for i in info.streams.indices {
            if info.streams[i].startTime == nil, let start = first[i] { info.streams[i].startTime = start }
            if info.streams[i].kind == .video && reorders[i] { info.streams[i].videoDelay = max(info.streams[i].videoDelay, 1) }
        }
    }

    // MARK: - Errors

    /// A container whose index points past the end of the file is truncated: its header promises media
    /// data that is not there. (FFmpeg opens such files and fails later, mid-playback; we fail now.)
    private static func checkComplete(_ info: ContainerInfo, ctx: UnsafeMutablePointer<AVFormatContext>, source: String) throws {
        guard let size = info.byteSize else { return }
        var dataEnd: Int64 = 0
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let st = ctx.pointee.streams[i] else { continue }
            let count = avformat_index_get_entries_count(st)
            // Positions grow with time in nearly every file; the last few entries hold the maximum.
            for j in max(0, count - 8)..<max(0, count) {
                if let entry = avformat_index_get_entry(st, j) {
                    dataEnd = max(dataEnd, entry.pointee.pos.addingSaturating(Int64(max(0, entry.pointee.size))))
                }
            }
        }
        if dataEnd > size {
            throw MediaEngineError(.truncated, source: source, operation: "open",
                                   reason: "the file is truncated: its index refers to media data up to byte \(dataEnd) but the file has \(size) bytes")
        }
    }

    // MARK: - Description

    private static func describe(_ ctx: UnsafeMutablePointer<AVFormatContext>, demuxerName: String, byteSize: Int64?) -> ContainerInfo {
        let c = ctx.pointee
        let nopts = avocet_nopts_value()
        let format = ContainerFormat(demuxer: demuxerName)
        let origin = FFmpeg.itemOrigin(ctx, format: format)
        var streams: [StreamInfo] = []
        for i in 0..<Int(c.nb_streams) {
            guard let st = c.streams[i], isDescribed(st, format: format) else { continue }
            var stream = describe(stream: st, index: i, format: format)
            // A playlist's or an MPEG stream's timeline starts at zero, whatever timestamps it carries
            // (MPEG-TS starts at 1.4 s or anywhere): streams start where they do relative to the earliest.
            if format.countsFromItsStart, origin != 0, let start = stream.startTime {
                stream.startTime = start.subtractingSaturating(av_rescale_q(origin, AVRational(num: 1, den: AV_TIME_BASE), st.pointee.time_base))
            }
            streams.append(stream)
        }
        var chapters: [ChapterInfo] = []
        for i in 0..<Int(c.nb_chapters) {
            guard let ch = c.chapters[i]?.pointee else { continue }
            let tb = Rational(ch.time_base.num, ch.time_base.den)
            chapters.append(ChapterInfo(id: ch.id, start: MediaTimestamp(value: ch.start, timeBase: tb),
                                        end: MediaTimestamp(value: ch.end, timeBase: tb), metadata: tags(ch.metadata)))
        }
        var info = ContainerInfo(
            formatName: demuxerName,
            format: format,
            formatLongName: c.iformat?.pointee.long_name.map { String(cString: $0) } ?? "",
            // Counted from the origin, which may lie before the container's start (see `itemOrigin`).
            duration: c.duration == nopts || c.duration < 0 ? nil
                : c.duration.addingSaturating(origin != 0 && c.start_time != nopts ? max(0, c.start_time.subtractingSaturating(origin)) : 0),
            startTime: c.start_time == nopts ? nil : format.countsFromItsStart ? 0 : c.start_time,
            bitRate: c.bit_rate > 0 ? c.bit_rate : nil,
            byteSize: byteSize,
            streams: streams,
            metadata: tags(c.metadata),
            chapters: chapters)
        if format == .hls, c.nb_programs >= 1, let programs = c.programs {
            // A master playlist: one program per variant (a media playlist's one program states no
            // bandwidth). Each stream is described once, however many variants share it (renditions),
            // and at most `maximumVariants` variants of at most 64 streams are kept.
            let shown = bestProgram(ctx)
            var described: [Int: StreamInfo] = [:]
            for p in 0..<min(Int(c.nb_programs), HLSMasterPlaylist.maximumVariants) {
                guard let program = programs[p]?.pointee, let indexes = program.stream_index else { continue }
                let bitRate = tags(program.metadata).value(for: "variant_bitrate").flatMap { Int64($0) }.flatMap { $0 > 0 ? $0 : nil }
                if c.nb_programs == 1 && bitRate == nil { break }
                let variantStreams = (0..<min(Int(program.nb_stream_indexes), 64)).compactMap { k -> StreamInfo? in
                    let i = Int(indexes[k])
                    guard i >= 0, i < Int(c.nb_streams), let st = c.streams[i] else { return nil }
                    if let known = described[i] { return known }
                    let made = describe(stream: st, index: i, format: format)
                    described[i] = made
                    return made
                }
                info.variants.append(ContainerInfo.Variant(bitRate: bitRate, streams: variantStreams, isShown: p == shown))
            }
        }
        info.timelineOrigin = origin
        info.durationIsEstimate = c.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
        info.isQuickTimeMovie = info.format == .quickTime && info.metadata.value(for: "major_brand")?.hasPrefix("qt") == true
        if info.duration == nil {
            // Without stream analysis FFmpeg leaves the total to be worked out: the longest stream's end.
            info.duration = streams.compactMap(\.endMicroseconds).max()
        }
        return info
    }

    private static func describe(stream st: UnsafeMutablePointer<AVStream>, index: Int, format: ContainerFormat) -> StreamInfo {
        let s = st.pointee
        let par = s.codecpar.pointee
        let nopts = avocet_nopts_value()
        let kind: StreamInfo.Kind
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        let metadata = tags(s.metadata)
        let codecName = String(cString: avcodec_get_name(par.codec_id))
        var info = StreamInfo(
            index: index, id: s.id, kind: kind,
            codecName: codecName, codec: Codec(ffmpegName: codecName), aacProfile: nil,
            codecTag: par.codec_tag,
            profile: avcodec_profile_name(par.codec_id, par.profile >= 0 ? par.profile : headerProfile(par)).map { String(cString: $0) },
            timeBase: Rational(s.time_base.num, s.time_base.den),
            startTime: s.start_time == nopts ? nil : s.start_time,
            duration: s.duration == nopts || s.duration <= 0 ? nil : s.duration,
            frameCount: s.nb_frames > 0 ? s.nb_frames : nil,
            bitRate: par.bit_rate > 0 ? par.bit_rate : nil,
            rotation: 0,
            language: metadata.value(for: "language").flatMap { $0 == "und" ? nil : $0 },
            disposition: StreamInfo.Disposition(rawValue: s.disposition),
            metadata: metadata)
        if kind == .video {
            info.width = Int(par.width)
            info.height = Int(par.height)
            switch par.color_trc {
            case AVCOL_TRC_SMPTE2084: info.dynamicRange = .pq
            case AVCOL_TRC_ARIB_STD_B67: info.dynamicRange = .hlg
            default: info.dynamicRange = .standard
            }
            // MP4 and Matroska state the display size in the track header, which FFmpeg turns into the
            // stream's aspect ratio; the codec's own (H.263's 12:11) does not override it there.
            let containerStatesSize = format == .quickTime || format == .matroska
            let sar = containerStatesSize || s.sample_aspect_ratio.num != 0 ? s.sample_aspect_ratio : par.sample_aspect_ratio
            // FFmpeg's own rule (av_image_check_sar): an aspect ratio that shrinks a side below one pixel
            // is the file's error, and the pixels are taken as square (as FFmpeg's decoders do).
            // (It refuses every shape when a side is unknown, so only a known size is checked.)
            let known = par.width > 0 && par.height > 0
            let usable = sar.num > 0 && sar.den > 0 && (!known || av_image_check_sar(UInt32(par.width), UInt32(par.height), sar) == 0)
            info.sampleAspectRatio = usable ? Rational(sar.num, sar.den) : nil
            info.isFullRange = par.color_range == AVCOL_RANGE_JPEG
            switch par.color_space {
            case AVCOL_SPC_BT709: info.yCbCrMatrix = .bt709
            case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: info.yCbCrMatrix = .bt601
            case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: info.yCbCrMatrix = .bt2020
            case AVCOL_SPC_UNSPECIFIED, AVCOL_SPC_RESERVED, AVCOL_SPC_RGB: info.yCbCrMatrix = nil
            default: info.yCbCrMatrix = .other
            }
            info.averageFrameRate = s.avg_frame_rate.num != 0 ? Rational(s.avg_frame_rate.num, s.avg_frame_rate.den) : nil
            info.realFrameRate = s.r_frame_rate.num != 0 ? Rational(s.r_frame_rate.num, s.r_frame_rate.den) : nil
            info.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) }
            info.videoDelay = Int(par.video_delay)
            var size = 0
            if let raw = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 {
                let matrix = UnsafeRawPointer(raw).bindMemory(to: Int32.self, capacity: 9)
                let values = (0..<9).map { matrix[$0] }
                info.displayMatrix = values
                // Row 0 is (a, b, u) in 16.16 fixed point: the clockwise angle on screen is atan2(b, a).
                var degrees = atan2(Double(values[1]), Double(values[0])) * 180 / .pi
                if degrees < 0 { degrees += 360 }
                info.rotation = (degrees * 1e6).rounded() / 1e6
                if info.rotation == 360 { info.rotation = 0 }
            }
        }
        if kind == .audio {
            info.sampleRate = Int(par.sample_rate)
            info.channels = Int(par.ch_layout.nb_channels)
            // A file without a channel mask (WAV, some raw formats) leaves the order unspecified; describe
            // it as FFmpeg's default layout for that many channels ("mono", "stereo", ...), as its tools do.
            var layout = par.ch_layout
            if layout.order == AV_CHANNEL_ORDER_UNSPEC {
                av_channel_layout_default(&layout, layout.nb_channels)
            }
            var text = [CChar](repeating: 0, count: 128)
            if av_channel_layout_describe(&layout, &text, text.count) > 0 { info.channelLayout = string(fromNullTerminated: text) }
            info.sampleFormat = av_get_sample_fmt_name(AVSampleFormat(rawValue: par.format)).map { String(cString: $0) }
            info.frameSize = par.frame_size > 0 ? Int(par.frame_size) : info.codec.defaultFrameSize(sampleRate: info.sampleRate ?? 0)
            let bits = par.bits_per_raw_sample > 0 ? par.bits_per_raw_sample : par.bits_per_coded_sample
            info.bitsPerSample = bits > 0 ? Int(bits) : nil
        }
        if info.disposition.contains(.attachedPicture), s.attached_pic.size > 0, let data = s.attached_pic.data {
            let picture = Data(bytes: data, count: Int(s.attached_pic.size))
            info.attachedPicture = picture
            if info.width ?? 0 <= 0 || info.height ?? 0 <= 0, let size = PictureSize.of(Array(picture.prefix(64 * 1024))) {
                (info.width, info.height) = (size.width, size.height)
            }
        }
        var sideSize = 0
        info.isEncrypted = av_stream_get_side_data(st, AV_PKT_DATA_ENCRYPTION_INIT_INFO, &sideSize) != nil
        info.hasDecoder = Demuxer.hasDecoder(par.codec_id)
        if par.extradata_size > 0, let extra = par.extradata {
            info.extradata = Data(bytes: extra, count: Int(par.extradata_size))
        }
        if info.codec == .flac, info.sampleRate ?? 0 <= 0, let streamInfo = info.extradata.flatMap(FLACStreamInfo.init) {
            // Without stream analysis FFmpeg leaves FLAC's parameters to its parser; STREAMINFO has them.
            info.sampleRate = streamInfo.sampleRate
            info.channels = streamInfo.channels
            info.bitsPerSample = streamInfo.bitsPerSample
            info.channelLayout = streamInfo.channels == 1 ? "mono" : streamInfo.channels == 2 ? "stereo" : info.channelLayout
        }
        if info.codec == .aac {
            let config = info.extradata.flatMap { AudioSpecificConfig(Array($0.prefix(2))) }
            // Stream analysis, when it ran, decoded a frame and knows best (implicit SBR, say); else the
            // object type the AudioSpecificConfig declares.
            info.aacProfile = AACProfile(ffmpegProfile: par.profile) ?? config.flatMap { AACProfile(objectType: $0.objectType) }
            if par.frame_size <= 0, config?.hasShortFrames == true { info.frameSize = 960 }
        }
        // Sample byte total: only where the index lists every sample (MP4/MOV), so the sum is exact.
        let entries = avformat_index_get_entries_count(st)
        if entries > 0, Int64(entries) == s.nb_frames {
            var total: Int64 = 0
            for j in 0..<entries {
                if let entry = avformat_index_get_entry(st, j) { total = total.addingSaturating(Int64(max(0, entry.pointee.size))) }
            }
            info.totalSampleBytes = total
        }
        return info
    }

    /// The H.264 or HEVC profile as the codec setup data in the header (avcC, hvcC) states it, in
    /// FFmpeg's numbering, for when no stream analysis ran. FFmpeg's "unknown" otherwise.
    private static func headerProfile(_ par: AVCodecParameters) -> Int32 {
        guard par.extradata_size >= 4, let extra = par.extradata, extra[0] == 1 else { return par.profile }
        switch par.codec_id {
        case AV_CODEC_ID_H264:
            var profile = Int32(extra[1])
            // Baseline with constraint_set1 is Constrained Baseline (FFmpeg's FF_PROFILE_H264_CONSTRAINED).
            if profile == 66 && extra[2] & 0x40 != 0 { profile |= 1 << 9 }
            return profile
        case AV_CODEC_ID_HEVC:
            return Int32(extra[1] & 0x1f)
        default:
            return par.profile
        }
    }

    /// Whether FFmpeg has a decoder for `codec`. `avcodec_find_decoder` walks every codec, so the
    /// answers are kept: they cannot change while the process runs.
    private static func hasDecoder(_ codec: AVCodecID) -> Bool {
        if let known = decoders.withLock({ $0[codec.rawValue] }) { return known }
        let found = avcodec_find_decoder(codec) != nil
        decoders.withLock { $0[codec.rawValue] = found }
        return found
    }

    private static let decoders = Locked<[UInt32: Bool]>([:])

    private static func tags(_ dict: OpaquePointer?) -> [Tag] {
        var result: [Tag] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result.append(Tag(key: String(cString: next.pointee.key), value: String(cString: next.pointee.value)))
            entry = next
        }
        return result
    }
}
