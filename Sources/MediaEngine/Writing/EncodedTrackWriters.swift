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
    private let mix: AudioMixReader
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
        mix = AudioMixReader(plan.inputs, rate: plan.sampleRate, channels: plan.channels)
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
        try encoder.encode(samples: try mix.read(count, token), pts: written, write)
        written += Int64(count)
        position = Double(written) / Double(plan.sampleRate)
    }
}
