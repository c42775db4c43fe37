internal import CFFmpeg
import Foundation

/// Reads the packets of one stream of a container (or of a few), unchanged (for stream copy and read
/// ahead): opens its own container with only those streams undiscarded, seeks to the keyframe at or
/// before a time, and hands out packets in decode order. Blocking: call on an engine thread, one caller
/// at a time.
final class PacketReader: PacketSource {
    private let context: FormatContext
    private let ctx: UnsafeMutablePointer<AVFormatContext>
    /// The first stream asked for: seeks are in its time base.
    let stream: UnsafeMutablePointer<AVStream>
    let streamIndex: Int32
    /// The streams whose packets `next` hands out.
    private let kept: Set<Int32>
    /// Item time zero on the container's timeline, read once (packets are many).
    private let originMicroseconds: Int64
    let name: String
    /// The container's kind, as its demuxer names it.
    let format: ContainerFormat

    /// With `decodeTimes`, packets carry decode times wherever FFmpeg can infer them (see
    /// `Demuxer.analyzeIfNeeded`).
    convenience init(source: any ByteSource, options: DemuxerOptions, streamIndex: Int, decodeTimes: Bool = false,
                     cancellation: CancellationToken) throws {
        try self.init(source: source, options: options, streamIndices: [streamIndex], decodeTimes: decodeTimes, cancellation: cancellation)
    }

    /// Reads the streams at `streamIndices` (at least one; the first leads seeks).
    convenience init(source: any ByteSource, options: DemuxerOptions, streamIndices: [Int], decodeTimes: Bool = false,
                     cancellation: CancellationToken) throws {
        // FFmpeg's messages are captured (kept off stderr) here, in `seek` and in `next`.
        let opened = try FFmpegLog.capturing {
            let opened = try Demuxer.openContext(source, options: options, cancellation: cancellation)
            _ = try Demuxer.analyzeIfNeeded(opened.0, options: options, cancellation: cancellation, decodeTimes: decodeTimes)
            return opened
        }
        try self.init(opened: opened.0, name: source.name, streamIndices: streamIndices)
    }

    /// Reads the streams at `streamIndices` of a container already open (`Demuxer.describedReader`),
    /// which must stand at its start: nothing read from it yet but what `avformat_find_stream_info`
    /// keeps to hand out again.
    init(opened context: FormatContext, name: String, streamIndices: [Int]) throws {
        guard let ctx = context.pointer else {
            throw MediaEngineError(.failed, source: name, operation: "open the stream", reason: "the container is closed")
        }
        self.name = name
        (self.context, self.ctx) = (context, ctx)
        let count = Int(ctx.pointee.nb_streams)
        guard let first = streamIndices.first, streamIndices.allSatisfy({ $0 >= 0 && $0 < count }), let st = ctx.pointee.streams[first] else {
            throw MediaEngineError(.failed, source: name, operation: "open the stream",
                                   reason: "the file changed after its header was read: it has no stream \(streamIndices.first ?? -1)")
        }
        let keep = Set(streamIndices.map { Int32($0) })
        for i in 0..<count where !keep.contains(Int32(i)) { ctx.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL }
        stream = st
        streamIndex = Int32(first)
        kept = keep
        format = ContainerFormat(demuxer: context.demuxerName)
        originMicroseconds = FFmpeg.itemOrigin(ctx, format: format)
    }

    /// Where item time zero falls on the container's timeline, in ticks of `timeBase` (see
    /// `FFmpeg.itemOrigin`).
    func origin(in timeBase: AVRational) -> Int64 {
        guard originMicroseconds != 0, timeBase.num > 0, timeBase.den > 0 else { return 0 }
        return av_rescale_q(originMicroseconds, AVRational(num: 1, den: AV_TIME_BASE), timeBase)
    }

    /// The time base of the stream at `index` (one of those read).
    func timeBase(of index: Int32) -> AVRational {
        guard index >= 0, index < Int32(ctx.pointee.nb_streams), let st = ctx.pointee.streams[Int(index)] else { return AVRational(num: 0, den: 1) }
        return st.pointee.time_base
    }

    var timeBase: AVRational { stream.pointee.time_base }
    var parameters: UnsafePointer<AVCodecParameters> { UnsafePointer(stream.pointee.codecpar) }

    /// Positions reading at the keyframe at or before `timestamp` (stream ticks), or the nearest the
    /// demuxer can.
    func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        try seek(stream: streamIndex, atOrBefore: timestamp, token)
    }

    /// Positions reading at the keyframe of the stream at `index` (one of those read) at or before
    /// `timestamp` (that stream's ticks), or the nearest the demuxer can.
    func seek(stream index: Int32, atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        context.use(token)
        let rc = FFmpegLog.capturing { FFmpeg.seek(ctx, stream: index, atOrBefore: timestamp, token) }
        if rc < 0 { throw context.seekFailure(rc, token) }
    }

    func withStream<T>(_ body: (UnsafeMutablePointer<AVStream>) throws -> T) rethrows -> T { try body(stream) }

    /// Always: a reader's owner knows whether it has read (`StreamReader` seeks once it has).
    var standsAtStart: Bool { true }

    /// The stream at `index`, when it is one of those read.
    func stream(at index: Int32) -> UnsafeMutablePointer<AVStream>? {
        guard kept.contains(index), index < Int32(ctx.pointee.nb_streams) else { return nil }
        return ctx.pointee.streams[Int(index)]
    }

    /// Reads the next packet of the streams read into `packet`; false at the end.
    func next(_ packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
        context.use(token)
        while true {
            if token.isCancelled { throw context.failure(avocet_averror_exit(), "read", token) }
            av_packet_unref(packet)
            let rc = FFmpegLog.capturing { FFmpeg.readFrame(ctx, packet) }
            if rc == avocet_averror_eof() { return false }
            if rc < 0 { throw context.failure(rc, "read", token) }
            if kept.contains(packet.pointee.stream_index) { return true }
        }
    }

}
