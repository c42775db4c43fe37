internal import MediaEngine
import Foundation

/// The decoded sound of a file's audio track as linear PCM at the asked rate, channel count and
/// encoding (libswresample converts rate and channels; the encoding is packed here from 32-bit float).
/// Buffers of up to `framesPerBuffer` frames, cut exactly at the range's ends (to the output sample);
/// the first buffer starts where the audio does when that is after the range's start.
final class SoundSampleProducer: SampleProducer {
    /// Frames in a full buffer.
    static let framesPerBuffer = 8192

    private let reader: AudioSampleReader
    private let output: LinearPCM.Output
    private var rate: Int32 { output.rate }
    private var channels: Int { output.channels }
    /// Frames handed out since the start, and the frame (item time, at `rate`) where the range ends.
    private var emitted: Int64 = 0
    private var endFrame: Int64?
    private var startFrame: Int64 = 0

    init(file: AVAssetTrack.FileTrack, settings: ReaderOutputFormat.PCMSettings, _ token: CancellationToken) throws {
        let rate = Int32(clamping: Int((settings.sampleRate ?? Double(file.stream.sampleRate ?? 44_100)).rounded()))
        let channels = settings.channels ?? max(1, file.stream.channels ?? 2)
        guard rate > 0, (1...64).contains(channels) else {
            throw AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The audio track has no usable sample rate or channel count."])
        }
        reader = try AVError.converting {
            try AudioSampleReader(source: file.source.openUnchanged(cancellation: token), options: file.source.options,
                                  streamIndex: file.stream.index, outputRate: rate, channels: Int32(channels), cancellation: token)
        }
        output = try LinearPCM.Output(settings, rate: rate, channels: channels)
    }

    func start(_ range: CMTimeRange, _ token: CancellationToken) throws {
        try AVError.converting { try reader.start(at: MediaTimestamp(range.start), speed: 1, fillsGap: false, token) }
        startFrame = range.start.isNumeric ? range.start.convertScale(rate, method: .roundTowardZero).value : 0
        endFrame = range.end.isNumeric ? range.end.convertScale(rate, method: .roundTowardZero).value : nil
        emitted = 0
    }

    func next(_ token: CancellationToken) throws -> ProducedSample? {
        var wanted = Self.framesPerBuffer
        if let left = framesLeft(from: reader.firstFrame ?? startFrame) {
            guard left > 0 else { return nil }
            wanted = Int(min(Int64(wanted), left))
        }
        let made = try AVError.converting {
            try reader.read(wanted, token) { read -> CMSampleBuffer? in
                // The reader knows where the audio starts once it has decoded some: audio that starts
                // after the range's start (an MP3's priming, a stream that starts late) ends sooner.
                var samples = read
                let first = reader.firstFrame ?? startFrame
                if let left = framesLeft(from: first), Int64(samples.count / channels) > left {
                    guard left > 0 else { return nil }
                    samples = UnsafeBufferPointer(rebasing: samples[..<(Int(left) * channels)])
                }
                let frames = samples.count / channels
                guard frames > 0 else { return nil }
                let pts = first.addingSaturating(emitted)
                emitted += Int64(frames)
                return try output.sampleBuffer(samples, at: pts)
            }
        }
        return made.map { .buffer($0) }
    }

    /// Frames still to hand out before the range's end, for audio whose first frame is at `first`; nil
    /// for a range without an end.
    private func framesLeft(from first: Int64) -> Int64? {
        endFrame.map { $0.subtractingSaturating(first.addingSaturating(emitted)) }
    }
}
