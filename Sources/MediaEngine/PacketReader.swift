internal import CFFmpeg
import Foundation

/// Reads the packets of one stream of a container, unchanged (for stream copy): opens its own
/// container with only that stream undiscarded, seeks to the keyframe at or before a time, and hands
/// out packets in decode order. Blocking: call on an engine thread, one caller at a time.
final class PacketReader {
    private let context: FormatContext
    private let ctx: UnsafeMutablePointer<AVFormatContext>
    let stream: UnsafeMutablePointer<AVStream>
    let streamIndex: Int32
    let name: String

    init(source: any ByteSource, options: DemuxerOptions, streamIndex: Int, cancellation: CancellationToken) throws {
        name = source.name
        (context, ctx) = try Demuxer.openContext(source, options: options, cancellation: cancellation)
        _ = try Demuxer.analyzeIfNeeded(context, options: options, cancellation: cancellation)
        let count = Int(ctx.pointee.nb_streams)
        guard streamIndex >= 0, streamIndex < count, let st = ctx.pointee.streams[streamIndex] else {
            throw MediaEngineError(.failed, source: name, operation: "open the stream",
                                   reason: "the file changed after its header was read: it has no stream \(streamIndex)")
        }
        for i in 0..<count where i != streamIndex { ctx.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL }
        stream = st
        self.streamIndex = Int32(streamIndex)
    }

    var timeBase: AVRational { stream.pointee.time_base }
    var parameters: UnsafePointer<AVCodecParameters> { UnsafePointer(stream.pointee.codecpar) }

    /// Positions reading at the keyframe at or before `timestamp` (stream ticks), or the nearest the
    /// demuxer can.
    func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        context.use(token)
        let rc = FFmpeg.seek(ctx, stream: streamIndex, atOrBefore: timestamp, token)
        if rc < 0 { throw failure(rc, "seek", token) }
    }

    /// Reads the stream's next packet into `packet`; false at the end.
    func next(_ packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
        context.use(token)
        while true {
            if token.isCancelled { throw failure(avocet_averror_exit(), "read", token) }
            av_packet_unref(packet)
            let rc = av_read_frame(ctx, packet)
            if rc == avocet_averror_eof() { return false }
            if rc < 0 { throw failure(rc, "read", token) }
            if packet.pointee.stream_index == streamIndex { return true }
        }
    }

    private func failure(_ rc: Int32, _ operation: String, _ token: CancellationToken) -> MediaEngineError {
        if token.isCancelled || rc == avocet_averror_exit() { return FFmpeg.error(avocet_averror_exit(), operation, source: name) }
        return FFmpeg.error(rc, operation, source: name, ioError: context.io.lastError)
    }
}
