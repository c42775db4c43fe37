internal import CFFmpeg
import Foundation

/// A video track encoded from the plan's rendered pictures, one picture a step.
final class VideoTrackWriter: TrackWriter {
    private let plan: ExportPlan.EncodedVideo
    private let encoder: StreamEncoder
    private let writer: MediaWriter
    private let index: Int32
    private var next = 0
    private(set) var position = 0.0
    private(set) var isDone = false
    /// For decoded pictures: the piece whose reader is open, and the reader.
    private var readerPiece = -1
    private var reader: VideoFrameReader?

    init(_ plan: ExportPlan.EncodedVideo, writer: MediaWriter) throws {
        self.plan = plan
        self.writer = writer
        guard plan.width > 0, plan.height > 0, plan.frameRate.numerator > 0, plan.frameRate.denominator > 0 else {
            throw MediaEngineError(.invalidArgument, source: writer.path, operation: "encode video",
                                   reason: "a \(plan.width)x\(plan.height) picture at \(plan.frameRate.numerator)/\(plan.frameRate.denominator) fps")
        }
        encoder = try StreamEncoder.video(plan.codec, width: plan.width, height: plan.height, frameRate: plan.frameRate,
                                          quality: plan.quality, preset: plan.preset, globalHeader: writer.wantsGlobalHeaders, source: writer.path)
        guard let ctx = encoder.codecContext else {
            throw MediaEngineError(.failed, source: writer.path, operation: "encode video", reason: "the encoder did not open")
        }
        index = try writer.addStream(encoder: ctx)
        if let matrix = plan.displayMatrix { writer.setDisplayMatrix(matrix, stream: index) }
    }

    func step(_ token: CancellationToken) throws {
        let timeBase = encoder.timeBase
        let write: (UnsafeMutablePointer<AVPacket>) throws -> Void = { [writer, index] packet in
            try writer.write(packet, stream: index, timeBase: timeBase)
        }
        guard next < plan.frameCount else {
            try encoder.drain(write)
            isDone = true
            return
        }
        switch plan.pictures {
        case .rendered(let render):
            try encoder.encode(rgba: try render(next, token), index: Int64(next), write)
        case .decoded(let pieces):
            try encodeDecoded(pieces, token, write)
        }
        next += 1
        position = Double(next) * Double(plan.frameRate.denominator) / Double(plan.frameRate.numerator)
    }
}

extension VideoTrackWriter {
    /// Encodes frame `next` from the picture showing then in the piece that plays (black where none
    /// does), decoded and scaled straight to the encoder's format.
    private func encodeDecoded(_ pieces: [ExportPlan.Piece], _ token: CancellationToken,
                               _ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let time = Double(next) * Double(plan.frameRate.denominator) / Double(plan.frameRate.numerator)
        guard let (i, piece) = pieces.enumerated().first(where: { time >= $0.element.targetStart - 1e-9 && time < $0.element.targetEnd }) else {
            return try encoder.encode(frame: nil, index: Int64(next), write)
        }
        if readerPiece != i {
            reader = try VideoFrameReader(source: piece.open(), options: piece.options, streamIndex: piece.streamIndex, cancellation: token)
            readerPiece = i
        }
        guard let reader else { return }
        let speed = (piece.sourceEnd - piece.sourceStart) / max(1e-9, piece.targetEnd - piece.targetStart)
        func micro(_ seconds: Double) -> MediaTimestamp {
            let micro = (seconds * 1_000_000).rounded(.down)
            return MediaTimestamp(value: micro.isFinite ? Int64(saturating: micro) : 0, timeBase: Rational(1, 1_000_000))
        }
        // The picture showing at the time, kept inside the piece's span of its stream.
        let at = min(max(piece.sourceStart + (time - piece.targetStart) * speed, piece.sourceStart), piece.sourceEnd - 1e-6)
        let exact = PictureRequest(time: micro(at), earliest: micro(at), latest: micro(at))
        do {
            try reader.withDecodedFrame(exact, cancellation: token) { frame in
                try encoder.encode(frame: frame, index: Int64(next), write)
            }
        } catch let error as MediaEngineError where error.code == .noFrameAtTime {
            try encoder.encode(frame: nil, index: Int64(next), write)
        }
    }
}

/// One AAC track mixed from the plan's audio timelines, one encoder frame (1024 samples) a step.
final class AudioTrackWriter: TrackWriter {
    private let plan: ExportPlan.EncodedAudio
    private let encoder: StreamEncoder
    private let writer: MediaWriter
    private let index: Int32
    private let inputs: [AudioTimeline]
    private let totalFrames: Int64
    private var written: Int64 = 0
    private(set) var position = 0.0
    private(set) var isDone = false

    init(_ plan: ExportPlan.EncodedAudio, writer: MediaWriter) throws {
        self.plan = plan
        self.writer = writer
        encoder = try StreamEncoder.audio(sampleRate: plan.sampleRate, channels: plan.channels, bitRate: plan.bitRate,
                                          globalHeader: writer.wantsGlobalHeaders, source: writer.path)
        guard let ctx = encoder.codecContext else {
            throw MediaEngineError(.failed, source: writer.path, operation: "encode audio", reason: "the encoder did not open")
        }
        index = try writer.addStream(encoder: ctx)
        inputs = plan.inputs.map { AudioTimeline($0, rate: plan.sampleRate, channels: plan.channels) }
        let frames = plan.duration * Double(plan.sampleRate)
        totalFrames = frames.isFinite && frames > 0 ? Int64(min(frames.rounded(), 9.0e15)) : 0
    }

    func step(_ token: CancellationToken) throws {
        let timeBase = encoder.timeBase
        let write: (UnsafeMutablePointer<AVPacket>) throws -> Void = { [writer, index] packet in
            try writer.write(packet, stream: index, timeBase: timeBase)
        }
        guard written < totalFrames else {
            try encoder.drain(write)
            isDone = true
            return
        }
        let size = encoder.frameSize > 0 ? encoder.frameSize : 1024
        let count = Int(min(Int64(size), totalFrames - written))
        let channels = Int(plan.channels)
        var mix = [Float](repeating: 0, count: count * channels)
        for input in inputs {
            let samples = try input.samples(from: written, count: count, token)
            for i in 0..<min(mix.count, samples.count) { mix[i] += samples[i] }
        }
        for i in mix.indices { mix[i] = min(1, max(-1, mix[i])) }
        try encoder.encode(samples: mix, pts: written, write)
        written += Int64(count)
        position = Double(written) / Double(plan.sampleRate)
    }
}

/// One input of an audio mix: its pieces read in order (each with a reader of its own), silence where
/// none plays, scaled by the gain at each sample's time. Reads forward only.
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
            let speed = (piece.sourceEnd - piece.sourceStart) / max(1e-9, piece.targetEnd - piece.targetStart)
            if readerPiece != i {
                let opened = try AudioSampleReader(source: piece.open(), options: piece.options, streamIndex: piece.streamIndex,
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
        for f in 0..<count {
            let gain = input.gain(Double(first + Int64(f)) / Double(rate))
            if gain == 1 { continue }
            for c in 0..<width { out[f * width + c] *= gain }
        }
        return out
    }
}
