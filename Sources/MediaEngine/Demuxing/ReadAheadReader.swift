internal import CFFmpeg
import Foundation

/// Reads a container's packets ahead of playback, without decoding them, to learn how far its media
/// can be had without waiting: for a network or delegate source the reading pulls the bytes into the
/// asset's cache (where the decoders then find them), and a read that waits for bytes is a stall.
/// Holds its source open until dropped. Blocking: call on an engine thread, one caller at a time.
package final class ReadAheadReader {
    private let packets: PacketReader
    private let packet: UnsafeMutablePointer<AVPacket>

    /// A reader of the streams at `streamIndices` (the tracks being played; at least one).
    package init(source: any ByteSource, options: DemuxerOptions, streamIndices: [Int], cancellation: CancellationToken) throws {
        packets = try PacketReader(source: source, options: options, streamIndices: streamIndices, cancellation: cancellation)
        guard let made = av_packet_alloc() else {
            throw MediaEngineError(.failed, source: source.name, operation: "read ahead", reason: "out of memory")
        }
        packet = made
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    /// Positions reading at the keyframe at or before `seconds` of item time.
    package func seek(to seconds: Double, _ token: CancellationToken) throws {
        let tb = packets.timeBase
        let exact = tb.num > 0 ? (seconds * Double(tb.den) / Double(tb.num)).rounded(.down) : 0
        let ticks = exact.isFinite ? max(0, Int64(saturating: exact)) : 0
        try packets.seek(atOrBefore: ticks.addingSaturating(packets.origin(in: tb)), token)
    }

    /// Reads packets until one ends at or after `seconds` of item time, or the container ends. Returns
    /// the latest item time a packet read ended at (nil when none had a time), and whether the end
    /// was reached.
    package func read(through seconds: Double, _ token: CancellationToken) throws -> (reached: Double?, ended: Bool) {
        var reached: Double?
        while true {
            guard try packets.next(packet, token) else { return (reached, true) }
            let p = packet.pointee
            let tb = packets.timeBase(of: p.stream_index)
            let start = p.pts != avocet_nopts_value() ? p.pts : p.dts
            guard start != avocet_nopts_value(), tb.num > 0, tb.den > 0 else { continue }
            let ticks = start.addingSaturating(max(0, p.duration)).subtractingSaturating(packets.origin(in: tb))
            let end = Double(ticks) * Double(tb.num) / Double(tb.den)
            guard end.isFinite else { continue }
            reached = max(reached ?? end, end)
            if end >= seconds { return (reached, false) }
        }
    }
}
