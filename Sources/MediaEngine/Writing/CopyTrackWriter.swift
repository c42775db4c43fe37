internal import CFFmpeg
import Foundation

/// A track whose packets are copied from its pieces' streams. Every piece must have the first's codec
/// and codec setup.
///
/// With `exactCuts` (MP4 and QuickTime, which have edit lists), each piece is copied from the keyframe
/// at or before its start to the keyframe at or after its end, its packets laid one piece after the
/// other on the track's media timeline, and `edits` says which span of that timeline each piece shows
/// (the exporter writes them as the track's edit list, as Apple's exports do): cuts are exact wherever
/// they fall. Without (Matroska), a piece starts at the keyframe at or before its start for the first
/// piece and at its first keyframe at or after its start for later ones (the picture before the cut
/// stays on screen until then), and ends before its first packet shown at or after its end.
final class CopyTrackWriter: TrackWriter {
    private let pieces: [ExportPlan.Piece]
    private let output: SampleWriter
    /// The output's track this writes.
    let track: Int
    private let timeBase: AVRational
    /// The first piece's codec and its setup bytes, which every piece must share.
    private let codec: AVCodecID
    private let setup: [UInt8]
    private var reader: PacketReader?
    private var piece = 0
    private var started = false
    private var pieceHasKeyframe = false
    /// The current piece is read again from its stream's start: its seek landed past the last keyframe
    /// at or before its start.
    private var fromStreamStart = false
    private var lastDts = Int64.min
    private let packet: UnsafeMutablePointer<AVPacket>
    private(set) var position = 0.0
    private(set) var isDone = false
    let exactCuts: Bool
    /// Exact cuts: where the current piece's keyframe lands on the media timeline (output ticks), the
    /// keyframe's source time, and the end of the media written so far.
    private var base: Int64 = 0
    private var keyframe: Int64 = 0
    private var mediaEnd: Int64 = 0
    private var firstDts: Int64?
    /// Exact cuts: each piece's span of the media timeline (output ticks), and the output time it shows at.
    private var spans: [(media: Int64, piece: ExportPlan.Piece)] = []

    init(_ copied: ExportPlan.CopiedTrack, output: SampleWriter, exactCuts: Bool, cancellation: CancellationToken) throws {
        self.exactCuts = exactCuts
        guard let first = copied.pieces.first else {
            throw MediaEngineError(.invalidArgument, source: output.path, operation: "copy a track", reason: "the track has no media")
        }
        pieces = copied.pieces
        self.output = output
        var opened = try PacketReader(source: first.open(), options: first.options, streamIndex: first.streamIndex, cancellation: cancellation)
        if !MediaWriter.describes(opened.parameters.pointee, in: output.container) {
            // The header left out what the output must state (VP9 in Matroska has no pixel format):
            // open it again with its first pictures decoded, as FFmpeg's own stream copy does.
            var analysed = first.options
            analysed.streamAnalysis = .always
            opened = try PacketReader(source: first.open(), options: analysed, streamIndex: first.streamIndex, cancellation: cancellation)
        }
        timeBase = opened.timeBase
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw MediaEngineError(.notMedia, source: opened.name, operation: "copy a track", reason: "the stream has no time base")
        }
        (codec, setup) = CopyTrackWriter.format(of: opened.parameters)
        track = try output.addTrack(copying: opened.parameters, timeBase: timeBase, language: copied.language, displayMatrix: copied.displayMatrix)
        guard let p = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: output.path, operation: "copy a track", reason: "out of memory")
        }
        packet = p
        reader = opened
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    private static func format(of parameters: UnsafePointer<AVCodecParameters>) -> (AVCodecID, [UInt8]) {
        let p = parameters.pointee
        let size = Int(max(0, p.extradata_size))
        let bytes = p.extradata.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        return (p.codec_id, bytes)
    }

    private static func ticks(_ seconds: Double, _ tb: AVRational) -> Int64 {
        let value = seconds * Double(tb.den) / Double(tb.num)
        guard value.isFinite else { return 0 }
        return Int64(saturating: value.rounded())
    }

    func step(_ token: CancellationToken) throws {
        guard piece < pieces.count else {
            isDone = true
            return
        }
        let current = pieces[piece]
        if reader == nil {
            let opened = try PacketReader(source: current.open(), options: current.options, streamIndex: current.streamIndex, cancellation: token)
            let (otherCodec, otherSetup) = CopyTrackWriter.format(of: opened.parameters)
            guard otherCodec == codec, otherSetup == setup else {
                throw MediaEngineError(.unsupported, source: opened.name, operation: "copy the segment into the track",
                                       reason: "its encoding differs from the track's first segment; stream copy cannot mix them (re-encode instead)")
            }
            reader = opened
        }
        guard let reader else { return }
        let sourceTB = reader.timeBase
        // Pieces are in item time; the packets count from the container's clock, which for an MPEG
        // stream starts where its first sample does (`PacketReader.origin`).
        let origin = reader.origin(in: sourceTB)
        let start = CopyTrackWriter.ticks(current.sourceStart, sourceTB).addingSaturating(origin)
        let end = CopyTrackWriter.ticks(current.sourceEnd, sourceTB).addingSaturating(origin)
        let offset = CopyTrackWriter.ticks(current.targetStart, timeBase)
        let nopts = avocet_nopts_value()
        if !started {
            try reader.seek(atOrBefore: start, token)
            started = true
            position = max(position, current.targetStart)
        }
        // A few packets per step, so that interleaving and progress stay fine-grained.
        for _ in 0..<8 {
            guard try reader.next(packet, token) else { return finishPiece() }
            let p = packet.pointee
            let pts = p.pts != nopts ? p.pts : p.dts
            guard pts != nopts else { continue }
            let dts = p.dts != nopts ? p.dts : pts
            let isKey = p.flags & AV_PKT_FLAG_KEY != 0
            if exactCuts {
                // Up to the keyframe at or after the end: the pictures before it may refer to later ones.
                if pieceHasKeyframe && isKey && pts >= end { return finishPiece() }
            } else {
                if dts >= end && pts >= end { return finishPiece() }
                if pts >= end { continue }
            }
            if !pieceHasKeyframe {
                // Seeking an MPEG stream goes by timestamps, not keyframes: a first keyframe (or any
                // packet) after the start means the one before it was skipped. Read the piece again
                // from the stream's start, once, rather than start it late.
                if pts > start, exactCuts || piece == 0, !fromStreamStart {
                    fromStreamStart = true
                    try reader.seek(atOrBefore: reader.origin(in: sourceTB), token)
                    continue
                }
                guard isKey, exactCuts || piece == 0 || pts >= start else { continue }
                pieceHasKeyframe = true
                if exactCuts { startPiece(keyframe: pts, firstDts: dts, start: start, sourceTB: sourceTB) }
            }
            let outPts: (partialValue: Int64, overflow: Bool), outDts: (partialValue: Int64, overflow: Bool)
            if exactCuts {
                outPts = av_rescale_q(pts.subtractingSaturating(keyframe), sourceTB, timeBase).addingReportingOverflow(base)
                outDts = av_rescale_q(dts.subtractingSaturating(keyframe), sourceTB, timeBase).addingReportingOverflow(base)
            } else {
                outPts = av_rescale_q(pts.subtractingSaturating(start), sourceTB, timeBase).addingReportingOverflow(offset)
                outDts = av_rescale_q(dts.subtractingSaturating(start), sourceTB, timeBase).addingReportingOverflow(offset)
            }
            guard !outPts.overflow, !outDts.overflow else { continue }
            var newDts = outDts.partialValue
            if lastDts != Int64.min && newDts <= lastDts { newDts = lastDts.addingSaturating(1) }
            packet.pointee.dts = newDts
            packet.pointee.pts = max(outPts.partialValue, newDts)
            packet.pointee.duration = av_rescale_q(p.duration, sourceTB, timeBase)
            lastDts = newDts
            if firstDts == nil { firstDts = newDts }
            mediaEnd = max(mediaEnd, packet.pointee.pts.addingSaturating(max(1, packet.pointee.duration)))
            let shown = exactCuts ? current.targetStart + Double(newDts.subtractingSaturating(base)) * Double(timeBase.num) / Double(timeBase.den)
                : Double(newDts) * Double(timeBase.num) / Double(timeBase.den)
            position = max(position, shown)
            try output.write(packet, track: track)
        }
    }

    /// Places the piece whose first keyframe shows at `keyframe` (source ticks) after the media written:
    /// far enough that its decode times follow the last one written.
    private func startPiece(keyframe key: Int64, firstDts: Int64, start: Int64, sourceTB: AVRational) {
        keyframe = key
        if lastDts == Int64.min {
            base = 0
        } else {
            let lead = av_rescale_q(key.subtractingSaturating(firstDts), sourceTB, timeBase)
            base = max(mediaEnd, lastDts.addingSaturating(1).addingSaturating(max(0, lead)))
        }
        let cut = av_rescale_q(max(0, start.subtractingSaturating(key)), sourceTB, timeBase).addingSaturating(base)
        spans.append((cut, pieces[piece]))
    }

    /// Exact cuts: the track's edit list, from zero: empty time where no piece plays, then each piece's
    /// span of the media timeline (seconds from the first packet's decode time).
    var edits: [MP4EditLists.Edit] {
        let origin = firstDts ?? 0
        let seconds = { (ticks: Int64) in Double(ticks.subtractingSaturating(origin)) * Double(self.timeBase.num) / Double(self.timeBase.den) }
        var result: [MP4EditLists.Edit] = []
        var shownUntil = 0.0
        for span in spans {
            if span.piece.targetStart > shownUntil + 1e-6 {
                result.append(MP4EditLists.Edit(duration: span.piece.targetStart - shownUntil, mediaStart: nil))
            }
            result.append(MP4EditLists.Edit(duration: span.piece.targetEnd - span.piece.targetStart, mediaStart: max(0, seconds(span.media))))
            shownUntil = span.piece.targetEnd
        }
        return result
    }

    private func finishPiece() {
        piece += 1
        reader = nil
        started = false
        pieceHasKeyframe = false
        fromStreamStart = false
        if piece >= pieces.count { isDone = true } else { position = max(position, pieces[piece].targetStart) }
    }
}
