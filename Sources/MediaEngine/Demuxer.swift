internal import CFFmpeg
import Foundation

/// Options for opening a container.
package struct DemuxerOptions: Sendable {
    /// Read the first packets to fill in what the header lacks (frame rates, Ogg and FLAC stream
    /// parameters, durations of streams without an index). Costs a little decoding; on by default.
    package var analyzeStreams = true

    package init() {}
}

/// One open container, parsed once. `info` holds everything the header said, as plain Swift values.
///
/// Opening runs on the engine's I/O threads (`IOExecutor`) and never on the caller's. The FFmpeg state
/// stays alive for later packet reads; it is only touched from one engine job at a time, which is why
/// the class is unchecked Sendable. `info` is immutable.
package final class Demuxer: @unchecked Sendable {
    package let info: ContainerInfo
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private let io: AVIOBridge
    /// Held for the whole of each operation: one demuxer serves one engine job at a time.
    private let operationLock = NSLock()
    private let executor: IOExecutor
    /// The packet scan's result, kept: a file's packets do not change. The scan is the only packet
    /// reader so far, so it always starts where opening left the read position: at the beginning.
    private var scanned: [PacketStatistics]?

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

    /// Opens and parses synchronously. Blocking: call only on an engine thread.
    package init(source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken,
                 executor: IOExecutor = .shared) throws {
        FFmpegLog.reset()
        self.executor = executor
        let name = source.name
        let byteSize = try source.size()
        if byteSize == 0 {
            throw MediaEngineError(.notMedia, source: name, operation: "open", reason: "the file is empty")
        }
        io = try AVIOBridge(source: source, cancellation: cancellation)
        guard let allocated = avformat_alloc_context() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "open", reason: "out of memory")
        }
        allocated.pointee.pb = io.context
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        allocated.pointee.interrupt_callback = io.interruptCallback
        var ctx: UnsafeMutablePointer<AVFormatContext>? = allocated
        let rc = avformat_open_input(&ctx, name, nil, nil)
        guard rc >= 0, let ctx else {
            // FFmpeg has freed the context; the bridge frees the I/O context.
            throw Demuxer.openFailure(rc, io: io, cancellation: cancellation)
        }
        formatContext = ctx
        if options.analyzeStreams {
            let rc = avformat_find_stream_info(ctx, nil)
            if rc < 0 {
                if cancellation.isCancelled || rc == avocet_averror_exit() {
                    throw FFmpeg.error(avocet_averror_exit(), "read stream information", source: name)
                }
                throw FFmpeg.error(rc, "read stream information", source: name, ioError: io.lastError)
            }
        }
        var described = Demuxer.describe(ctx, byteSize: byteSize)
        if described.isQuickTimeFamily {
            described.mp4Boxes = try MP4Boxes.scan(source, cancellation: cancellation)
        }
        info = described
        try Demuxer.checkComplete(info, ctx: ctx, source: name)
    }

    // MARK: - Packet scan

    /// Reads every packet to the end without decoding, on an engine thread, and returns per-stream
    /// statistics indexed like `info.streams`. Cost: one pass over the file's bytes, once per demuxer
    /// (the result is kept). Cancelling the calling task stops it.
    package func scanPackets() async throws -> [PacketStatistics] {
        try await executor.run { [self] token in try scanPackets(cancellation: token) }
    }

    /// The blocking form of `scanPackets()`; call only on an engine thread.
    package func scanPackets(cancellation: CancellationToken) throws -> [PacketStatistics] {
        operationLock.lock()
        defer { operationLock.unlock() }
        if let scanned { return scanned }
        guard let ctx = formatContext else { return [] }
        io.cancellation = cancellation
        io.lastError = nil
        let name = io.source.name
        let nopts = avocet_nopts_value()
        var stats = [PacketStatistics](repeating: PacketStatistics(), count: Int(ctx.pointee.nb_streams))
        var lastPTS = [Int64?](repeating: nil, count: stats.count)
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let p = packet else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "read packets", reason: "out of memory")
        }
        while true {
            let rc = av_read_frame(ctx, p)
            if rc == avocet_averror_eof() { break }
            if rc < 0 {
                if cancellation.isCancelled { throw FFmpeg.error(avocet_averror_exit(), "read packets", source: name) }
                throw FFmpeg.error(rc, "read packets", source: name, ioError: io.lastError)
            }
            let i = Int(p.pointee.stream_index)
            if i < stats.count {
                stats[i].packetCount += 1
                stats[i].totalBytes += Int64(p.pointee.size)
                if p.pointee.flags & AV_PKT_FLAG_KEY != 0 { stats[i].keyframes += 1 }
                let pts = p.pointee.pts
                if pts != nopts {
                    stats[i].firstPresentationTime = min(stats[i].firstPresentationTime ?? pts, pts)
                    let end = pts + max(0, p.pointee.duration)
                    stats[i].endPresentationTime = max(stats[i].endPresentationTime ?? end, end)
                    if let last = lastPTS[i], pts < last { stats[i].hasReordering = true }
                    lastPTS[i] = pts
                }
                if p.pointee.duration > 0 {
                    stats[i].minimumDuration = min(stats[i].minimumDuration ?? p.pointee.duration, p.pointee.duration)
                }
            }
            av_packet_unref(p)
        }
        scanned = stats
        return stats
    }

    deinit {
        if formatContext != nil { avformat_close_input(&formatContext) }
    }

    // MARK: - Errors

    /// Turns a failed `avformat_open_input` into the most useful error: cancelled, the byte source's own
    /// failure, not media at all (content matches no format), or media that is truncated or damaged.
    private static func openFailure(_ rc: Int32, io: AVIOBridge, cancellation: CancellationToken) -> MediaEngineError {
        let name = io.source.name
        if cancellation.isCancelled || rc == avocet_averror_exit() {
            return FFmpeg.error(avocet_averror_exit(), "open", source: name)
        }
        if let ioError = io.lastError { return ioError }
        let ffmpegWords = FFmpegLog.lastError.map { "\($0) (\(FFmpeg.describe(rc)))" } ?? FFmpeg.describe(rc)
        guard let format = contentFormat(of: io.source, cancellation: cancellation) else {
            return MediaEngineError(.notMedia, source: name, operation: "open",
                                    reason: "not a media file: its contents match no format FFmpeg knows", ffmpegCode: rc)
        }
        if rc == avocet_averror_invaliddata() || rc == avocet_averror_eof() {
            return MediaEngineError(.truncated, source: name, operation: "open",
                                    reason: "the \(format) data is truncated or damaged: \(ffmpegWords)", ffmpegCode: rc)
        }
        return MediaEngineError(.failed, source: name, operation: "open", reason: ffmpegWords, ffmpegCode: rc)
    }

    /// The long name of the format the first bytes look like, judged by content alone (no file name).
    private static func contentFormat(of source: any ByteSource, cancellation: CancellationToken) -> String? {
        let probeSize = 4096
        let padding = Int(AVPROBE_PADDING_SIZE)
        var bytes = [UInt8](repeating: 0, count: probeSize + padding)
        let count = bytes.withUnsafeMutableBytes { buffer in
            (try? source.read(at: 0, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<probeSize]),
                              cancellation: cancellation)) ?? 0
        }
        guard count > 0 else { return nil }
        return bytes.withUnsafeMutableBufferPointer { buffer -> String? in
            "".withCString { emptyName in
                var probe = AVProbeData()
                probe.filename = emptyName
                probe.buf = buffer.baseAddress
                probe.buf_size = Int32(count)
                // Below FFmpeg's retry score a match is a guess (random bytes often pass for MP3).
                var score = Int32(AVPROBE_SCORE_RETRY)
                guard let format = av_probe_input_format2(&probe, 1, &score) else { return nil }
                return format.pointee.long_name.map { String(cString: $0) } ?? String(cString: format.pointee.name)
            }
        }
    }

    /// A container whose index points past the end of the file is truncated: its header promises media
    /// data that is not there. (FFmpeg opens such files and fails later, mid-playback; we fail now.)
    private static func checkComplete(_ info: ContainerInfo, ctx: UnsafeMutablePointer<AVFormatContext>, source: String) throws {
        guard let size = info.byteSize else { return }
        var dataEnd: Int64 = 0
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let st = ctx.pointee.streams[i] else { continue }
            let count = avformat_index_get_entries_count(st)
            // Positions grow with time in nearly every file; the last few entries hold the maximum.
            for j in max(0, count - 8)..<count {
                if let entry = avformat_index_get_entry(st, j) {
                    dataEnd = max(dataEnd, entry.pointee.pos + Int64(entry.pointee.size))
                }
            }
        }
        if dataEnd > size {
            throw MediaEngineError(.truncated, source: source, operation: "open",
                                   reason: "the file is truncated: its index refers to media data up to byte \(dataEnd) but the file has \(size) bytes")
        }
    }

    // MARK: - Description

    private static func describe(_ ctx: UnsafeMutablePointer<AVFormatContext>, byteSize: Int64?) -> ContainerInfo {
        let c = ctx.pointee
        let nopts = avocet_nopts_value()
        var streams: [StreamInfo] = []
        for i in 0..<Int(c.nb_streams) {
            if let st = c.streams[i] { streams.append(describe(stream: st, index: i)) }
        }
        var chapters: [ChapterInfo] = []
        for i in 0..<Int(c.nb_chapters) {
            guard let ch = c.chapters[i]?.pointee else { continue }
            let tb = Rational(ch.time_base.num, ch.time_base.den)
            chapters.append(ChapterInfo(id: ch.id, start: MediaTimestamp(value: ch.start, timeBase: tb),
                                        end: MediaTimestamp(value: ch.end, timeBase: tb), metadata: tags(ch.metadata)))
        }
        var info = ContainerInfo(
            formatName: c.iformat.map { String(cString: $0.pointee.name) } ?? "",
            formatLongName: c.iformat?.pointee.long_name.map { String(cString: $0) } ?? "",
            duration: c.duration == nopts ? nil : c.duration,
            startTime: c.start_time == nopts ? nil : c.start_time,
            bitRate: c.bit_rate > 0 ? c.bit_rate : nil,
            byteSize: byteSize,
            streams: streams,
            metadata: tags(c.metadata),
            chapters: chapters)
        info.durationIsEstimate = c.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
        return info
    }

    private static func describe(stream st: UnsafeMutablePointer<AVStream>, index: Int) -> StreamInfo {
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
        var info = StreamInfo(
            index: index, id: s.id, kind: kind,
            codecName: String(cString: avcodec_get_name(par.codec_id)),
            codecTag: par.codec_tag,
            profile: avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) },
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
            let sar = par.sample_aspect_ratio.num != 0 ? par.sample_aspect_ratio : s.sample_aspect_ratio
            info.sampleAspectRatio = sar.num != 0 ? Rational(sar.num, sar.den) : nil
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
            info.frameSize = par.frame_size > 0 ? Int(par.frame_size) : nil
            let bits = par.bits_per_raw_sample > 0 ? par.bits_per_raw_sample : par.bits_per_coded_sample
            info.bitsPerSample = bits > 0 ? Int(bits) : nil
        }
        if info.disposition.contains(.attachedPicture), s.attached_pic.size > 0, let data = s.attached_pic.data {
            info.attachedPicture = Data(bytes: data, count: Int(s.attached_pic.size))
        }
        var sideSize = 0
        info.isEncrypted = av_stream_get_side_data(st, AV_PKT_DATA_ENCRYPTION_INIT_INFO, &sideSize) != nil
        info.hasDecoder = avcodec_find_decoder(par.codec_id) != nil
        if par.extradata_size > 0, let extra = par.extradata {
            info.extradata = Data(bytes: extra, count: Int(par.extradata_size))
        }
        // Sample byte total: only where the index lists every sample (MP4/MOV), so the sum is exact.
        let entries = avformat_index_get_entries_count(st)
        if entries > 0, Int64(entries) == s.nb_frames {
            var total: Int64 = 0
            for j in 0..<entries {
                if let entry = avformat_index_get_entry(st, j) { total += Int64(entry.pointee.size) }
            }
            info.totalSampleBytes = total
        }
        return info
    }

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
