import Foundation

/// Mixes the inputs of an audio plan (each a timeline of spans of files, with its gain) into interleaved
/// samples at `rate`, clamped to -1...1: an export's audio track, and a player's sound (from any time
/// of the item, at any speed, the pitch following). Each input reads its files with readers of its own,
/// opened as reading reaches them. Blocking: call on an engine thread of your own, one caller at a time.
package final class AudioMixReader {
    private let timelines: [AudioTimeline]
    private let channels: Int32
    private var next: Int64 = 0
    /// Frames until the last span ends (silence after).
    private let frameCount: Int64

    /// A mix of `inputs` (times from the item's zero) from `start` seconds on, `speed` seconds of the
    /// item a second.
    package init(_ inputs: [ExportPlan.EncodedAudio.Input], rate: Int32, channels: Int32, from start: Double = 0, speed: Double = 1) {
        let speed = speed > 0 && speed.isFinite ? speed : 1
        let start = start.isFinite ? max(0, start) : 0
        var last = 0.0
        var made: [AudioTimeline] = []
        for input in inputs {
            var pieces: [ExportPlan.Piece] = []
            for var piece in input.pieces where piece.targetEnd > start && piece.targetEnd > piece.targetStart {
                if piece.targetStart < start {
                    piece.sourceStart += (start - piece.targetStart) * AudioTimeline.speed(of: piece)
                    piece.targetStart = start
                }
                piece.targetStart = (piece.targetStart - start) / speed
                piece.targetEnd = (piece.targetEnd - start) / speed
                last = max(last, piece.targetEnd)
                pieces.append(piece)
            }
            let gain = input.gain
            let (from, pace) = (start, speed)
            let shifted: @Sendable (Double) -> Float
            if from == 0 && pace == 1 {
                shifted = gain
            } else {
                shifted = { t in gain(from + t * pace) }
            }
            made.append(AudioTimeline(ExportPlan.EncodedAudio.Input(pieces: pieces, gain: shifted), rate: rate, channels: channels))
        }
        timelines = made
        self.channels = channels
        let frames = (last * Double(rate)).rounded(.up)
        // An item of unknown length plays until its files end.
        frameCount = frames.isFinite ? Int64(min(frames, 9.0e15)) : .max
    }

    /// Whether every span has been read (what follows is silence).
    package var isAtEnd: Bool { next >= frameCount }

    /// The next `count` frames (silence where no input plays, past the end included).
    package func read(_ count: Int, _ token: CancellationToken) throws -> [Float] {
        var mix = [Float](repeating: 0, count: max(0, count) * Int(channels))
        for timeline in timelines {
            let samples = try timeline.samples(from: next, count: count, token)
            for i in 0..<min(mix.count, samples.count) { mix[i] += samples[i] }
        }
        for i in mix.indices { mix[i] = min(1, max(-1, mix[i])) }
        next += Int64(max(0, count))
        return mix
    }
}

/// One input of an audio mix: its pieces read in order (each with a reader of its own), silence where
/// none plays, scaled by the gain at each sample's time. Reads forward only, from any first frame.
final class AudioTimeline {
    private let input: ExportPlan.EncodedAudio.Input
    private let rate: Int32
    private let channels: Int32
    private var reader: AudioSampleReader?
    private var readerPiece = -1

    init(_ input: ExportPlan.EncodedAudio.Input, rate: Int32, channels: Int32) {
        self.input = input
        self.rate = rate
        self.channels = channels
    }

    /// Source seconds a second of `piece`: 1 for an open-ended piece (a file of unknown length).
    static func speed(of piece: ExportPlan.Piece) -> Double {
        let speed = piece.speed
        return speed.isFinite && speed > 0 ? speed : 1
    }

    /// `count` frames of interleaved samples starting at output frame `first`.
    func samples(from first: Int64, count: Int, _ token: CancellationToken) throws -> [Float] {
        let width = Int(channels)
        var out = [Float](repeating: 0, count: count * width)
        var done = 0
        while done < count {
            let frame = first + Int64(done)
            let time = Double(frame) / Double(rate)
            guard let (i, piece) = input.pieces.enumerated().first(where: { time >= $0.element.targetStart - 1e-9 && time < $0.element.targetEnd }) else {
                // Silence until the next piece starts.
                let nextStart = input.pieces.map(\.targetStart).filter { $0 > time }.min()
                let gap = nextStart.map { Int(min(Double(count - done), max(1, (($0 - time) * Double(rate)).rounded(.up)))) } ?? (count - done)
                done += gap
                continue
            }
            let speed = AudioTimeline.speed(of: piece)
            if readerPiece != i {
                // Let the last piece's reader go first: its share of a shared container is let go with it.
                reader = nil
                let shared = try piece.demuxer.flatMap {
                    try AudioSampleReader(demuxer: $0, streamIndex: piece.streamIndex, outputRate: rate, channels: channels, cancellation: token)
                }
                let opened = try shared ?? AudioSampleReader(source: piece.open(), options: piece.options, streamIndex: piece.streamIndex,
                                                             outputRate: rate, channels: channels, cancellation: token)
                try opened.start(at: piece.sourceStart + (time - piece.targetStart) * speed, speed: speed, token)
                (reader, readerPiece) = (opened, i)
            }
            let left = min(Double(count - done), ((piece.targetEnd - time) * Double(rate)).rounded())
            let wanted = max(1, left.isFinite ? Int(left) : count - done)
            let got = try reader?.read(wanted, token) ?? []
            for j in 0..<min(got.count, wanted * width) { out[done * width + j] = got[j] }
            done += wanted
        }
        // The gain at every 32nd frame and straight lines between: a closure call a sample costs too
        // much to play in real time, and ramps are straight lines anyway.
        let grid: Int64 = 32
        var f = 0
        while f < count {
            let frame = first + Int64(f)
            let left = frame - frame % grid
            let (g0, g1) = (input.gain(Double(left) / Double(rate)), input.gain(Double(left + grid) / Double(rate)))
            let end = min(count, f + Int(left + grid - frame))
            if g0 != 1 || g1 != 1 {
                for k in f..<end {
                    let g = g0 + (g1 - g0) * Float(first + Int64(k) - left) / Float(grid)
                    for c in 0..<width { out[k * width + c] *= g }
                }
            }
            f = end
        }
        return out
    }
}
