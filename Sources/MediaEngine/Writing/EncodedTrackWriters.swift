internal import CFFmpeg
import Foundation

/// A video track encoded from the plan's rendered or decoded pictures, one picture a step, through
/// the output's encoder for it (x264 or x265 at the preset's rate factor and speed).
final class VideoTrackWriter: TrackWriter {
    private let plan: ExportPlan.EncodedVideo
    private let output: SampleWriter
    private let track: Int
    private var next = 0
    private(set) var position = 0.0
    private(set) var isDone = false
    /// For decoded pictures: the piece whose reader is open, and the reader.
    private var readerPiece = -1
    private var reader: VideoFrameReader?
    /// The start of the decoded picture the last frame encoded shows (nil: black, or none yet).
    private var encodedPicture: MediaTimestamp?

    init(_ plan: ExportPlan.EncodedVideo, output: SampleWriter) throws {
        self.plan = plan
        self.output = output
        next = min(max(0, plan.firstFrame), max(0, plan.frameCount - 1))
        guard plan.width > 0, plan.height > 0, plan.frameRate.numerator > 0, plan.frameRate.denominator > 0 else {
            throw MediaEngineError(.invalidArgument, source: output.path, operation: "encode video",
                                   reason: "a \(plan.width)x\(plan.height) picture at \(plan.frameRate.numerator)/\(plan.frameRate.denominator) fps")
        }
        // Frame n is shown at n x denominator ticks of 1/numerator s.
        var settings = WriterTrackSettings.VideoEncoding(codec: plan.codec == .hevc ? .hevc : .h264, width: plan.width, height: plan.height,
                                                         timeScale: plan.frameRate.numerator)
        settings.expectedFrameRate = Double(plan.frameRate.numerator) / Double(plan.frameRate.denominator)
        settings.constantRateFactor = plan.quality
        settings.speedPreset = plan.preset
        track = try output.addTrack(.video(settings), language: nil, displayMatrix: plan.displayMatrix)
    }

    /// Frame `index`'s time on the output timeline.
    private func frameTime(_ index: Int) -> MediaTimestamp {
        MediaTimestamp(value: Int64(index).multipliedReportingOverflow(by: Int64(plan.frameRate.denominator)).partialValue,
                       timeBase: Rational(1, plan.frameRate.numerator))
    }

    func step(_ token: CancellationToken) throws {
        guard next < plan.frameCount else {
            try output.finish(track: track)
            isDone = true
            return
        }
        switch plan.pictures {
        case .rendered(let render):
            let rgba = try render(next, token)
            let (width, height) = (plan.width, plan.height)
            guard rgba.count >= width * height * 4 else {
                throw MediaEngineError(.invalidArgument, source: output.path, operation: "encode a picture", reason: "the picture is not \(width)x\(height)")
            }
            try rgba.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                // The encoder only reads the picture (no copy of a shared buffer to make it writable).
                let pixels = PixelMemory(format: .rgba, width: width, height: height, planes: [(UnsafeMutableRawPointer(mutating: base), width * 4)])
                try output.append(pixels: pixels, pts: frameTime(next), track: track)
            }
        case .decoded(let pieces):
            // Frames that would show the same picture again are not encoded: the picture's sample
            // lasts until the next one (as the source's does), so a still held for an hour costs one
            // frame, not one a frame period. The last frame is always written, to end the track there.
            let until = try encodeDecoded(pieces, token)
            let last = plan.frameCount - 1
            let following = (until * Double(plan.frameRate.numerator) / Double(plan.frameRate.denominator) - 1e-6).rounded(.up)
            if following > Double(next + 1) {
                next = following >= Double(last) ? max(next, last - 1) : Int(following) - 1
            }
        }
        next += 1
        position = Double(next) * Double(plan.frameRate.denominator) / Double(plan.frameRate.numerator)
    }
}

extension VideoTrackWriter {
    /// Encodes frame `next` from the picture showing then in the piece that plays (black where none
    /// does), decoded and scaled straight to the encoder's format. Returns when, on the output's
    /// timeline, the frame encoded stops showing: the picture's end within its piece; for black, where
    /// the next piece or picture starts; the frame's own time when that is not known (nothing skipped).
    private func encodeDecoded(_ pieces: [ExportPlan.Piece], _ token: CancellationToken) throws -> Double {
        let time = Double(next) * Double(plan.frameRate.denominator) / Double(plan.frameRate.numerator)
        guard let (i, piece) = pieces.enumerated().first(where: { time >= $0.element.targetStart - 1e-9 && time < $0.element.targetEnd }) else {
            encodedPicture = nil
            try output.append(frame: nil, pts: frameTime(next), track: track)
            return pieces.map(\.targetStart).filter { $0 > time }.min() ?? .infinity
        }
        if readerPiece != i {
            encodedPicture = nil
            reader = try VideoFrameReader(source: piece.open(), options: piece.options, streamIndex: piece.streamIndex, cancellation: token)
            readerPiece = i
        }
        guard let reader else { return time }
        let speed = piece.speed
        // When a picture that shows until `source` (the stream's time) stops showing in the output,
        // within the piece and not before this frame.
        func shownUntil(_ source: Double) -> Double {
            let end = piece.targetStart + (source - piece.sourceStart) / max(1e-9, speed)
            return end.isFinite ? min(max(end, time), piece.targetEnd) : time
        }
        // Microseconds at or just after the time (never before it): the reader rounds down to the
        // stream's ticks, and a frame time of a 29.97 fps grid (1,001 / 30,000 s) rounded down would
        // land a tick before the picture that starts there, and show the one before it.
        func micro(_ seconds: Double) -> MediaTimestamp {
            let micro = (seconds * 1_000_000 - 1e-3).rounded(.up)
            return MediaTimestamp(value: micro.isFinite ? Int64(saturating: micro) : 0, timeBase: Rational(1, 1_000_000))
        }
        // The picture showing at the time, kept inside the piece's span of its stream.
        let at = min(max(piece.sourceStart + (time - piece.targetStart) * speed, piece.sourceStart), piece.sourceEnd - 1e-6)
        let exact = PictureRequest(time: micro(at), earliest: micro(at), latest: micro(at))
        do {
            return try reader.withDecodedFrame(exact, cancellation: token) { frame, shows in
                // The picture encoded last, still showing (its end was learnt only now): its sample
                // lasts on, unless this frame ends the track.
                if shows.start != encodedPicture || next == plan.frameCount - 1 {
                    try output.append(frame: frame, pts: frameTime(next), track: track)
                    encodedPicture = shows.start
                }
                return shownUntil(shows.until.seconds)
            }
        } catch let error as MediaEngineError where error.code == .noFrameAtTime {
            // Black until a picture shows again in the piece (to its end when none does).
            encodedPicture = nil
            try output.append(frame: nil, pts: frameTime(next), track: track)
            guard let start = reader.nextPictureStart()?.seconds else { return piece.targetEnd }
            return shownUntil(start)
        }
    }
}

/// One AAC track mixed from the plan's audio timelines, through the output's encoder for it; one
/// encoder frame's worth (1024 samples) a step.
final class AudioTrackWriter: TrackWriter {
    private let plan: ExportPlan.EncodedAudio
    private let output: SampleWriter
    private let track: Int
    private let mix: AudioMixReader
    private let totalFrames: Int64
    private var written: Int64 = 0
    private(set) var position = 0.0
    private(set) var isDone = false

    init(_ plan: ExportPlan.EncodedAudio, output: SampleWriter) throws {
        self.plan = plan
        self.output = output
        guard plan.sampleRate > 0, plan.channels > 0 else {
            throw MediaEngineError(.invalidArgument, source: output.path, operation: "encode audio",
                                   reason: "\(plan.channels) channels at \(plan.sampleRate) Hz")
        }
        let settings = WriterTrackSettings.AudioEncoding(codec: .aac, sampleRate: plan.sampleRate, channels: plan.channels, bitRate: plan.bitRate)
        track = try output.addTrack(.audio(settings), language: nil, displayMatrix: nil)
        mix = AudioMixReader(plan.inputs, rate: plan.sampleRate, channels: plan.channels)
        let frames = plan.duration * Double(plan.sampleRate)
        totalFrames = frames.isFinite && frames > 0 ? Int64(min(frames.rounded(), 9.0e15)) : 0
    }

    func step(_ token: CancellationToken) throws {
        guard written < totalFrames else {
            try output.finish(track: track)
            isDone = true
            return
        }
        let count = Int(min(1024, totalFrames - written))
        try output.append(sound: try mix.read(count, token), rate: plan.sampleRate, channels: plan.channels,
                          pts: MediaTimestamp(value: written, timeBase: Rational(1, plan.sampleRate)), track: track)
        written += Int64(count)
        position = Double(written) / Double(plan.sampleRate)
    }
}
