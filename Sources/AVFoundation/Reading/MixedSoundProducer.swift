internal import MediaEngine
import Foundation

/// The sound of audio tracks mixed at an audio mix's volumes (the engine's `AudioMixReader`, as the
/// player and the export mix it): tracks of a file or of a composition (each segment's file read in
/// turn), resampled to one rate and channel count, as linear PCM. The window is the range asked, ended
/// at the asset's duration, and the mix ends where the last of its tracks does; before its first
/// buffer the producer loads a composition's URL-only segment files (on the engine thread, set aside
/// while it waits).
final class MixedSoundProducer: SampleProducer {
    private let tracks: [AVAssetTrack]
    private let audioMix: AVAudioMix?
    private let asset: AVAsset
    private let sources: SegmentSources
    private let output: LinearPCM.Output
    private var reader: AudioMixReader?
    private var emitted: Int64 = 0
    private var total: Int64 = 0
    private var startFrame: Int64 = 0

    init(tracks: [AVAssetTrack], audioMix: AVAudioMix?, asset: AVAsset, settings: ReaderOutputFormat.PCMSettings) throws {
        (self.tracks, self.audioMix, self.asset) = (tracks, audioMix, asset)
        let sources = SegmentSources(for: asset)
        IOExecutor.parking { sources.blockingPrepare(tracks) }
        self.sources = sources
        // The first file track's rate (a composition's first segment's), stereo unless every track is mono.
        let files = try tracks.flatMap { try MixTimeline.pieceTracks(of: $0, sources: sources) }.compactMap(\.file)
        let nativeRate = files.first?.stream.sampleRate ?? 44_100
        let rate = Int32(clamping: Int((settings.sampleRate ?? Double(nativeRate)).rounded()))
        let mono = !files.isEmpty && files.allSatisfy { $0.stream.channels == 1 }
        let channels = settings.channels ?? (mono ? 1 : 2)
        guard rate > 0 else {
            throw AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The audio has no usable sample rate."])
        }
        output = try LinearPCM.Output(settings, rate: rate, channels: channels)
    }

    func start(_ range: CMTimeRange, _ token: CancellationToken) throws {
        var window = range
        let duration = try IOExecutor.parking { try AVAsyncProperty<AVAsset, CMTime>.duration.blockingLoader(asset).get() }
        if duration.isNumeric {
            window = window.intersection(CMTimeRange(start: .zero, duration: duration))
        }
        guard window.duration.isNumeric else {
            throw AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "The asset's duration is unknown: give the reader a time range."])
        }
        startFrame = window.start.convertScale(output.rate, method: .roundTowardZero).value
        emitted = 0
        // The mix ends where the last of its tracks ends within the window, as an export's sound does:
        // a movie's 1 s of sound under 4 s of pictures mixes to 1 s, not 3 s of silence more.
        guard let (inputs, end) = try MixTimeline.clippedMixInputs(tracks, in: window, audioMix: audioMix, sources: sources, fromFileStart: false) else {
            reader = nil
            total = 0
            return
        }
        reader = AudioMixReader(inputs.map(\.input), rate: output.rate, channels: Int32(output.channels))
        let last = min(window.end, window.start + CMTime(seconds: end, preferredTimescale: output.rate))
        total = max(0, last.convertScale(output.rate, method: .roundTowardZero).value - startFrame)
    }

    func next(_ token: CancellationToken) throws -> ProducedSample? {
        guard let reader, emitted < total else { return nil }
        let wanted = Int(min(Int64(SoundSampleProducer.framesPerBuffer), total - emitted))
        let samples = try AVError.converting { try reader.read(wanted, token) }
        let frames = samples.count / output.channels
        guard frames > 0 else { return nil }
        defer { emitted += Int64(frames) }
        return .buffer(try output.sampleBuffer(samples, at: startFrame + emitted))
    }
}
