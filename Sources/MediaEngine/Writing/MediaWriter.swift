internal import CFFmpeg
import Foundation

/// The one owner of an output `AVFormatContext` and the file it writes: streams are added (copied
/// from an input stream or described by an encoder), the header written, packets interleaved in,
/// the trailer written. Frees everything in `deinit`; a writer dropped before `finish()` leaves a
/// partial file for its owner to remove.
///
/// The path is opened as a local file only (FFmpeg's `file:` protocol), never as a URL. Blocking file
/// I/O: call on an engine thread, one caller at a time.
final class MediaWriter {
    private var ctx: UnsafeMutablePointer<AVFormatContext>?
    let path: String
    let container: OutputContainer
    private var opened = false
    /// Bytes go to `sink` instead of a file (segments in memory), through this context.
    private var memoryOutput: MemoryOutput?
    /// Whether packets are interleaved across streams by the muxer (files), or written in the order
    /// they come (segments, whose fragments are cut by the caller).
    private let interleaves: Bool
    /// The last decode time written on each stream: as given, and as written in the stream's own time base.
    private var lastDts: [Int32: (given: Int64, written: Int64)] = [:]

    /// An `AVIOContext` whose writes call `sink`; freed with the writer.
    final class MemoryOutput {
        let sink: (UnsafeRawBufferPointer) -> Void
        var context: UnsafeMutablePointer<AVIOContext>?

        init(sink: @escaping (UnsafeRawBufferPointer) -> Void) throws {
            self.sink = sink
            guard let buffer = av_malloc(64 * 1024) else {
                throw MediaEngineError(.outOfMemory, source: "segments", operation: "set up the writer", reason: "out of memory")
            }
            let opaque = Unmanaged.passUnretained(self).toOpaque()
            guard let made = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), 64 * 1024, 1, opaque, nil, avocetWritePacket, nil) else {
                av_free(buffer)
                throw MediaEngineError(.outOfMemory, source: "segments", operation: "set up the writer", reason: "out of memory")
            }
            context = made
        }

        deinit {
            if let made = context {
                av_freep(&made.pointee.buffer)
                avio_context_free(&context)
            }
        }
    }

    init(path: String, container: OutputContainer) throws {
        self.path = path
        self.container = container
        interleaves = true
        var c: UnsafeMutablePointer<AVFormatContext>?
        let rc = avformat_alloc_output_context2(&c, nil, container.muxerName, nil)
        guard rc >= 0, let c else {
            throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the \(container.rawValue) writer", source: path)
        }
        ctx = c
        // FFmpeg 5.1 calls FLAC in MP4 experimental; Apple's players read it ('fLaC', since iOS 11).
        c.pointee.strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL
        // The muxer reopens its URL for a second pass (MP4's faststart): the same local file.
        c.pointee.url = av_strdup("file:" + path)
        try FFmpeg.check(avio_open(&c.pointee.pb, "file:" + path, AVIO_FLAG_WRITE), "create the output file", source: path)
        opened = true
    }

    /// A writer whose bytes go to `sink` as the muxer writes them (fragmented MP4 segments), packets
    /// written in the order they come.
    init(container: OutputContainer, sink: @escaping (UnsafeRawBufferPointer) -> Void) throws {
        path = "segments"
        self.container = container
        interleaves = false
        var c: UnsafeMutablePointer<AVFormatContext>?
        let rc = avformat_alloc_output_context2(&c, nil, container.muxerName, nil)
        guard rc >= 0, let c else {
            throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the \(container.rawValue) writer", source: path)
        }
        ctx = c
        let output = try MemoryOutput(sink: sink)
        memoryOutput = output
        c.pointee.pb = output.context
        c.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    deinit {
        if opened, let c = ctx { avio_closep(&c.pointee.pb) }
        if memoryOutput != nil { ctx?.pointee.pb = nil }
        avformat_free_context(ctx)
    }

    /// Whether encoders for this container must put their parameter sets in the stream header.
    var wantsGlobalHeaders: Bool {
        guard let format = ctx?.pointee.oformat else { return false }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Adds a stream whose packets come unchanged from an input stream. Returns its index.
    ///
    /// Throws `.unsupported` for VP9 into MP4 or QuickTime without its pixel format: the muxer
    /// describes the stream ('vpcC') from the format and, without it, writes a box that no reader
    /// opens (FFmpeg's own demuxer refuses the file).
    func addStream(copying parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational) throws -> Int32 {
        if !MediaWriter.describes(parameters.pointee, in: container) {
            let what = parameters.pointee.codec_type == AVMEDIA_TYPE_AUDIO ? "the sound's sample rate or channel count is unknown"
                : "the VP9 stream's pixel format is unknown (its first picture did not decode), which \(container.rawValue) must state"
            throw MediaEngineError(.unsupported, source: path, operation: "copy the track", reason: what)
        }
        let stream = try newStream()
        try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, parameters), "copy the stream parameters", source: path)
        stream.pointee.codecpar.pointee.codec_tag = tag(for: parameters.pointee.codec_id)
        stream.pointee.time_base = timeBase
        return stream.pointee.index
    }

    /// Whether the parameters of a copied stream say what `container` must state of it: every
    /// container needs a sound's sample rate and channel count (FLAC's header leaves them to its
    /// STREAMINFO, which only the analysis copies over); MP4 and QuickTime need VP9's pixel format
    /// (its profile, bit depth and chroma subsampling in 'vpcC').
    static func describes(_ parameters: AVCodecParameters, in container: OutputContainer) -> Bool {
        if parameters.codec_type == AVMEDIA_TYPE_AUDIO && (parameters.sample_rate <= 0 || parameters.ch_layout.nb_channels <= 0) { return false }
        return !container.isQuickTimeFamily || parameters.codec_id != AV_CODEC_ID_VP9 || parameters.format >= 0
    }

    /// Adds a stream for an opened encoder's packets. Returns its index.
    func addStream(encoder: UnsafePointer<AVCodecContext>) throws -> Int32 {
        let stream = try newStream()
        try FFmpeg.check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder), "describe the encoded stream", source: path)
        stream.pointee.codecpar.pointee.codec_tag = tag(for: encoder.pointee.codec_id)
        stream.pointee.time_base = encoder.pointee.time_base
        if encoder.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            stream.pointee.avg_frame_rate = encoder.pointee.framerate
            stream.pointee.r_frame_rate = encoder.pointee.framerate
        }
        return stream.pointee.index
    }

    private func newStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let c = ctx, let stream = avformat_new_stream(c, nil) else {
            throw MediaEngineError(.outOfMemory, source: path, operation: "add a stream", reason: "out of memory")
        }
        return stream
    }

    /// HEVC in MP4 and QuickTime as `hvc1`, the tag Apple's players require; the muxer's choice otherwise.
    private func tag(for codec: AVCodecID) -> UInt32 {
        guard codec == AV_CODEC_ID_HEVC, container.isQuickTimeFamily else { return 0 }
        return UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8 | UInt32(UInt8(ascii: "c")) << 16 | UInt32(UInt8(ascii: "1")) << 24
    }

    /// Gives stream `index` a display matrix (the 3x3 of 16.16 and 2.30 fixed-point values a
    /// QuickTime track header holds).
    func setDisplayMatrix(_ matrix: [Int32], stream index: Int32) {
        guard matrix.count == 9, let c = ctx, index >= 0, index < Int32(c.pointee.nb_streams), let stream = c.pointee.streams[Int(index)],
              let data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 36) else { return }
        matrix.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(data).copyMemory(from: bytes.baseAddress ?? UnsafeRawPointer(data), byteCount: 36)
        }
    }

    /// Sets a container tag (`title`, `artist`, `comment`, `date`, ...).
    func setMetadata(_ key: String, _ value: String) {
        guard let c = ctx else { return }
        av_dict_set(&c.pointee.metadata, key, value, 0)
    }

    /// Sets a tag of stream `index` (`language`).
    func setStreamMetadata(_ key: String, _ value: String, stream index: Int32) {
        guard let c = ctx, index >= 0, index < Int32(c.pointee.nb_streams), let stream = c.pointee.streams[Int(index)] else { return }
        av_dict_set(&stream.pointee.metadata, key, value, 0)
    }

    /// Adds chapter marks: start and end in microseconds, and a title.
    func setChapters(_ chapters: [(start: Int64, end: Int64, title: String)]) throws {
        guard let c = ctx, !chapters.isEmpty else { return }
        var count = Int32(0)
        var list: UnsafeMutableRawPointer? = nil
        for (i, chapter) in chapters.enumerated() {
            guard let raw = av_mallocz(MemoryLayout<AVChapter>.size) else {
                throw MediaEngineError(.outOfMemory, source: path, operation: "add chapters", reason: "out of memory")
            }
            let mark = raw.bindMemory(to: AVChapter.self, capacity: 1)
            mark.pointee.id = Int64(i + 1)
            mark.pointee.time_base = AVRational(num: 1, den: 1_000_000)
            mark.pointee.start = chapter.start
            mark.pointee.end = chapter.end
            av_dict_set(&mark.pointee.metadata, "title", chapter.title, 0)
            av_dynarray_add(&list, &count, raw)
        }
        c.pointee.chapters = list?.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        c.pointee.nb_chapters = UInt32(max(0, count))
    }

    /// Writes the header. `fastStart` moves MP4/QuickTime's index (moov) before the media, as
    /// `shouldOptimizeForNetworkUse` asks, at the cost of a second pass over the file at the end.
    /// `fragmentMicroseconds` writes MP4/QuickTime as fragments of about that length (an empty
    /// 'moov' first, then 'moof'+'mdat' pairs cut at keyframes), so a file cut short still plays up
    /// to its last fragment; it overrides `fastStart`.
    ///
    /// A memory writer writes fragments the caller cuts (`flushFragment()`): the header is the
    /// initialization segment ('ftyp' and an empty 'moov'), each fragment a 'moof' and 'mdat'; `cmaf`
    /// marks them as CMAF.
    func writeHeader(fastStart: Bool, fragmentMicroseconds: Int64? = nil, cmaf: Bool = false) throws {
        guard let c = ctx else { return }
        var options: OpaquePointer? = nil
        defer { av_dict_free(&options) }
        if memoryOutput != nil {
            let flags = "+frag_custom+empty_moov+default_base_moof+skip_trailer" + (cmaf ? "+cmaf" : "")
            av_dict_set(&options, "movflags", flags, 0)
        } else if let fragment = fragmentMicroseconds, fragment > 0, container.isQuickTimeFamily {
            av_dict_set(&options, "movflags", "+frag_keyframe+empty_moov+default_base_moof", 0)
            av_dict_set(&options, "frag_duration", String(fragment), 0)
        } else if fastStart && container.isQuickTimeFamily {
            av_dict_set(&options, "movflags", "+faststart", 0)
        }
        // An .m4v file's major brand is Apple's "M4V " (the mp4 muxer would write "isom").
        if container == .m4v { av_dict_set(&options, "brand", "M4V ", 0) }
        let rc = avformat_write_header(c, &options)
        if rc < 0 {
            // The muxer's own sentence says why (WebM refusing H.264, say).
            let words = FFmpegLog.lastError.map { "\($0) (\(FFmpeg.describe(rc)))" } ?? FFmpeg.describe(rc)
            throw MediaEngineError(.unsupported, source: path, operation: "write the file header", reason: words, ffmpegCode: rc)
        }
        if let pb = c.pointee.pb, memoryOutput != nil { avio_flush(pb) }
    }

    /// Ends the fragment being written (its 'moof' and 'mdat' go to the sink); a memory writer only.
    func flushFragment() throws {
        guard let c = ctx, memoryOutput != nil else { return }
        try FFmpeg.check(av_write_frame(c, nil), "write a segment", source: path)
        if let pb = c.pointee.pb { avio_flush(pb) }
    }

    /// The time base the muxer chose for stream `index` (after the header).
    func timeBase(of index: Int32) -> AVRational {
        guard let c = ctx, index >= 0, index < Int32(c.pointee.nb_streams), let stream = c.pointee.streams[Int(index)] else {
            return AVRational(num: 1, den: 1)
        }
        return stream.pointee.time_base
    }

    /// Writes `packet` (its times in `timeBase`) to stream `index`, interleaved with the others. The
    /// packet is emptied.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, stream index: Int32, timeBase: AVRational) throws {
        guard let c = ctx else { return }
        let nopts = avocet_nopts_value()
        let given = packet.pointee.dts
        av_packet_rescale_ts(packet, timeBase, self.timeBase(of: index))
        // Decode times that increase can meet in a coarser time base the muxer chose (MP4 counts
        // sound in its sample rate, which a damaged header can make 6 Hz): such a one is moved past
        // the last, as FFmpeg's own command does, rather than the muxer refusing the packet. Times
        // that did not increase as given are left for the muxer to refuse.
        if given != nopts {
            if let last = lastDts[index], given > last.given, packet.pointee.dts <= last.written {
                packet.pointee.dts = last.written.addingSaturating(1)
                if packet.pointee.pts != nopts { packet.pointee.pts = max(packet.pointee.pts, packet.pointee.dts) }
            }
            lastDts[index] = (given, packet.pointee.dts)
        }
        packet.pointee.stream_index = index
        packet.pointee.pos = -1
        if interleaves {
            try FFmpeg.check(av_interleaved_write_frame(c, packet), "write to the output file", source: path)
        } else {
            try FFmpeg.check(av_write_frame(c, packet), "write to the output file", source: path)
            av_packet_unref(packet)
        }
    }

    /// Bytes written so far.
    var bytesWritten: Int64 {
        guard let pb = ctx?.pointee.pb else { return 0 }
        return avio_tell(pb)
    }

    /// Writes the trailer (the index, for MP4) and closes the file.
    func finish() throws {
        guard let c = ctx else { return }
        if interleaves { try FFmpeg.check(av_interleaved_write_frame(c, nil), "write to the output file", source: path) }
        try FFmpeg.check(av_write_trailer(c), "finish the output file", source: path)
        if let pb = c.pointee.pb, memoryOutput != nil { avio_flush(pb) }
        if opened {
            avio_closep(&c.pointee.pb)
            opened = false
        }
    }
}

private let avocetWritePacket: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
    guard let opaque, let buffer, size > 0 else { return 0 }
    let output = Unmanaged<MediaWriter.MemoryOutput>.fromOpaque(opaque).takeUnretainedValue()
    output.sink(UnsafeRawBufferPointer(start: buffer, count: Int(size)))
    return size
}
