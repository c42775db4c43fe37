internal import CFFmpeg
import Foundation

/// The one owner of an open `AVFormatContext` and of the `AVIOBridge` it reads through. Freed in
/// `deinit`, so an open that fails or is cancelled half-way (after `avformat_open_input` succeeded, in
/// `avformat_find_stream_info` or later) leaks nothing.
///
/// A file is only itself: the context refuses every nested open (`io_open`), and only the demuxers
/// in `ContainerFormat.allowedDemuxers` may open it, so a playlist or manifest (HLS, DASH, ffconcat)
/// disguised as a movie never makes FFmpeg fetch a URL or read another file.
///
/// Confinement: touched by one engine thread at a time (the owning demuxer's operation); unchecked
/// Sendable for that reason.
final class FormatContext: @unchecked Sendable {
    let io: AVIOBridge
    /// Set by `avformat_open_input`; nil only when opening failed.
    private(set) var pointer: UnsafeMutablePointer<AVFormatContext>?
    /// FFmpeg tried to open another URL or file, and was refused.
    private(set) var refusedNestedOpen = false
    /// For a playlist: opens what it names. Nil for everything else.
    private let nestedSources: NestedSources?
    /// The bridges of nested opens still open, by their AVIOContext; freed by `io_close2` or with the context.
    private var nested: [UnsafeMutableRawPointer: AVIOBridge] = [:]
    /// Most nested resources open at once. FFmpeg's HLS demuxer keeps a segment open per variant and
    /// rendition it reads; each has a cache of its own, so a master playlist naming thousands of
    /// variants must not make thousands of them.
    static let maxNestedOpen = 8
    /// The first failure of a nested open, which explains a failed open better than FFmpeg's code.
    private(set) var nestedError: MediaEngineError?

    /// Opens the container read through `io`. Blocking: call on an engine thread. Throws the most useful
    /// error: cancelled, the byte source's own failure, not media, a refused format, or truncated. With
    /// `nestedSources`, the source may be an HLS playlist, and what it names is opened through them.
    init(io: AVIOBridge, cancellation: CancellationToken, nestedSources: NestedSources? = nil) throws {
        self.io = io
        self.nestedSources = nestedSources
        let name = io.source.name
        guard let allocated = avformat_alloc_context() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "open", reason: "out of memory")
        }
        allocated.pointee.pb = io.context
        allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        allocated.pointee.interrupt_callback = io.interruptCallback
        allocated.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        var options: OpaquePointer? = nil
        if nestedSources != nil {
            allocated.pointee.io_open = avocetNestedOpen
            allocated.pointee.io_close2 = avocetNestedClose
            av_dict_set(&options, "format_whitelist", ContainerFormat.allowedDemuxers + ",hls", 0)
            // The HLS demuxer's keep-alive and parallel requests reach into FFmpeg's own HTTP client
            // (it asserts that a segment's context is one), which these nested opens never are.
            av_dict_set(&options, "http_persistent", "0", 0)
            av_dict_set(&options, "http_multiple", "0", 0)
        } else {
            allocated.pointee.io_open = avocetRefuseNestedOpen
            av_dict_set(&options, "format_whitelist", ContainerFormat.allowedDemuxers, 0)
        }
        defer { av_dict_free(&options) }
        var ctx: UnsafeMutablePointer<AVFormatContext>? = allocated
        let rc = avformat_open_input(&ctx, name, nil, &options)
        guard rc >= 0, let ctx else {
            // FFmpeg has freed the context on failure; the bridge frees the I/O context.
            if let nestedError, !cancellation.isCancelled { throw nestedError }
            throw FormatContext.openFailure(rc, io: io, refusedNestedOpen: refusedNestedOpen, cancellation: cancellation)
        }
        pointer = ctx
    }

    deinit {
        if pointer != nil { avformat_close_input(&pointer) }
        nested.removeAll()
    }

    fileprivate func noteRefusedOpen() { refusedNestedOpen = true }

    /// Makes every read from now on, the container's and its nested opens', answer to `token`: a
    /// context that lives across operations (a frame reader's) takes each operation's token in turn.
    func use(_ token: CancellationToken) {
        io.cancellation = token
        for bridge in nested.values { bridge.cancellation = token }
    }

    /// Opens what a playlist names, as an AVIOContext over a byte source of its own that reads with the
    /// current operation's token. Returns FFmpeg's error code, or 0 with `pb` set.
    /// `range`: the part of the resource meant (an HLS segment given by `EXT-X-BYTERANGE`), from FFmpeg's
    /// `offset` and `end_offset` options, which its own HTTP client would have applied.
    fileprivate func openNested(_ url: String, range: (offset: Int64, end: Int64?),
                                _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>) -> Int32 {
        guard let nestedSources else {
            refusedNestedOpen = true
            return avocet_averror_eperm()
        }
        guard nested.count < FormatContext.maxNestedOpen else {
            if nestedError == nil {
                nestedError = MediaEngineError(.unsupported, source: io.source.name, operation: "open",
                                               reason: "the playlist needs more than \(FormatContext.maxNestedOpen) resources open at once")
            }
            return avocet_averror_eio()
        }
        do {
            var source = try nestedSources.source(for: url)
            if range.offset > 0 || range.end != nil {
                source = SubrangeByteSource(base: source, offset: range.offset, end: range.end)
            }
            let bridge = try AVIOBridge(source: source, cancellation: io.cancellation)
            guard let context = bridge.context else { return avocet_averror_enomem() }
            nested[UnsafeMutableRawPointer(context)] = bridge
            pb.pointee = context
            return 0
        } catch let error as MediaEngineError {
            if nestedError == nil { nestedError = error }
            return error.code == .cancelled ? avocet_averror_exit() : avocet_averror_eio()
        } catch {
            return avocet_averror_eio()
        }
    }

    /// Frees a nested open's bridge (and its AVIOContext).
    fileprivate func closeNested(_ pb: UnsafeMutablePointer<AVIOContext>?) {
        guard let pb else { return }
        if let bridge = nested.removeValue(forKey: UnsafeMutableRawPointer(pb)), let error = bridge.lastError, nestedError == nil {
            nestedError = error
        }
    }

    /// The error for FFmpeg's failed `rc` from `operation` on this file: a cancellation when `cancellation`
    /// was cancelled or FFmpeg was interrupted, else the byte source's own error, else the kind of
    /// FFmpeg's code.
    func failure(_ rc: Int32, _ operation: String, _ cancellation: CancellationToken) -> MediaEngineError {
        if cancellation.isCancelled || rc == avocet_averror_exit() { return FFmpeg.error(avocet_averror_exit(), operation, source: io.source.name) }
        return FFmpeg.error(rc, operation, source: io.source.name, ioError: io.lastError)
    }

    /// The error for a failed `FFmpeg.seek`: as `failure`, except that where the demuxer said only -1 or
    /// INVALIDDATA (an MP4 whose sample tables are empty or damaged: no index entry to go to) and the
    /// source read fine, the file is damaged.
    func seekFailure(_ rc: Int32, _ cancellation: CancellationToken) -> MediaEngineError {
        guard !cancellation.isCancelled, io.lastError == nil, rc == avocet_averror_eperm() || rc == avocet_averror_invaliddata() else {
            return failure(rc, "seek", cancellation)
        }
        return MediaEngineError(.truncated, source: io.source.name, operation: "seek",
                                reason: "the file's index gives no place to seek to (damaged or empty)", ffmpegCode: rc)
    }

    /// FFmpeg's short name of the demuxer that opened the file ("mov,mp4,m4a,3gp,3g2,mj2", ...).
    var demuxerName: String {
        pointer?.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
    }

    /// Turns a failed `avformat_open_input` into the most useful error. Never repeats text from inside
    /// the file (a playlist's URLs): the message names the source and the kind of content only.
    private static func openFailure(_ rc: Int32, io: AVIOBridge, refusedNestedOpen: Bool,
                                    cancellation: CancellationToken) -> MediaEngineError {
        let name = io.source.name
        if cancellation.isCancelled || rc == avocet_averror_exit() {
            return FFmpeg.error(avocet_averror_exit(), "open", source: name)
        }
        if let ioError = io.lastError { return ioError }
        guard let probed = contentFormat(of: io.source, cancellation: cancellation) else {
            return MediaEngineError(.notMedia, source: name, operation: "open",
                                    reason: "not a media file: its contents match no format FFmpeg knows", ffmpegCode: rc)
        }
        if refusedNestedOpen || !probed.allowed {
            return MediaEngineError(.notMedia, source: name, operation: "open",
                                    reason: "not a media file Avocet opens: the contents are \(probed.longName), which names other files or URLs; they are not fetched",
                                    ffmpegCode: rc)
        }
        let ffmpegWords = FFmpegLog.lastError.map { "\($0) (\(FFmpeg.describe(rc)))" } ?? FFmpeg.describe(rc)
        if rc == avocet_averror_einval() {
            // FFmpeg, reading more than the first 4 KiB, settled on a format outside Avocet's list.
            return MediaEngineError(.notMedia, source: name, operation: "open",
                                    reason: "not a media file Avocet opens: \(ffmpegWords)", ffmpegCode: rc)
        }
        if rc == avocet_averror_enosys() || rc == avocet_averror_patchwelcome() {
            return MediaEngineError(.unsupported, source: name, operation: "open",
                                    reason: "the \(probed.longName) file uses a feature FFmpeg does not implement: \(ffmpegWords)", ffmpegCode: rc)
        }
        // The bytes are a format FFmpeg knows and the source read them all, yet its header could not be
        // read: the file is damaged (INVALIDDATA; EOF or EIO where data ends early; ENOMEM where a
        // damaged table claims billions of entries).
        return MediaEngineError(.truncated, source: name, operation: "open",
                                reason: "the \(probed.longName) data is truncated or damaged: \(ffmpegWords)", ffmpegCode: rc)
    }

    /// The format the first bytes look like, judged by content alone (no file name), and whether
    /// Avocet opens it.
    private static func contentFormat(of source: any ByteSource, cancellation: CancellationToken) -> (longName: String, allowed: Bool)? {
        let probeSize = 4096
        let padding = Int(AVPROBE_PADDING_SIZE)
        var bytes = [UInt8](repeating: 0, count: probeSize + padding)
        let count = bytes.withUnsafeMutableBytes { buffer in
            (try? source.read(at: 0, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<probeSize]),
                              cancellation: cancellation)) ?? 0
        }
        guard count > 0 else { return nil }
        return bytes.withUnsafeMutableBufferPointer { buffer -> (String, Bool)? in
            "".withCString { emptyName in
                var probe = AVProbeData()
                probe.filename = emptyName
                probe.buf = buffer.baseAddress
                probe.buf_size = Int32(clamping: count)
                // Below FFmpeg's retry score a match is a guess (random bytes often pass for MP3).
                var score = Int32(AVPROBE_SCORE_RETRY)
                guard let format = av_probe_input_format2(&probe, 1, &score) else { return nil }
                let shortName = String(cString: format.pointee.name)
                let longName = format.pointee.long_name.map { String(cString: $0) } ?? shortName
                return (longName, ContainerFormat.isAllowed(demuxer: shortName))
            }
        }
    }
}

/// FFmpeg's `io_open` for every Avocet context: refuses, so no demuxer opens a URL or file the asset
/// did not name.
private let avocetRefuseNestedOpen: @convention(c) (
    UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
    UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 = { ctx, _, _, _, _ in
    if let opaque = ctx?.pointee.opaque {
        Unmanaged<FormatContext>.fromOpaque(opaque).takeUnretainedValue().noteRefusedOpen()
    }
    return avocet_averror_eperm()
}

/// FFmpeg's `io_open` for a playlist's context: opens through the context's `NestedSources`.
private let avocetNestedOpen: @convention(c) (
    UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
    UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 = { ctx, pb, url, flags, options in
    guard let opaque = ctx?.pointee.opaque, let pb, let url else { return avocet_averror_einval() }
    let owner = Unmanaged<FormatContext>.fromOpaque(opaque).takeUnretainedValue()
    // Reading only: a playlist never makes Avocet write anywhere.
    guard flags & AVIO_FLAG_WRITE == 0 else {
        owner.noteRefusedOpen()
        return avocet_averror_eperm()
    }
    func option(_ name: String) -> Int64? {
        guard let dictionary = options?.pointee, let entry = av_dict_get(dictionary, name, nil, 0),
              let value = entry.pointee.value else { return nil }
        return Int64(String(cString: value))
    }
    let offset = max(0, option("offset") ?? 0)
    let end = option("end_offset").flatMap { $0 > offset ? $0 : nil }
    return owner.openNested(String(cString: url), range: (offset, end), pb)
}

/// FFmpeg's `io_close2` for a playlist's context: frees what `avocetNestedOpen` opened.
private let avocetNestedClose: @convention(c) (UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<AVIOContext>?) -> Int32 = {
    ctx, pb in
    guard let opaque = ctx?.pointee.opaque else { return 0 }
    Unmanaged<FormatContext>.fromOpaque(opaque).takeUnretainedValue().closeNested(pb)
    return 0
}
