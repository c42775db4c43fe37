internal import MediaEngine
import Foundation
internal import Locking

/// Reads several audio tracks mixed into one sound, at the volumes of an optional ``AVAudioMix``, as
/// linear PCM: the mix an export encodes and a player plays (tracks of a file or of a composition,
/// each composition segment's file read in turn, resampled by libswresample, summed and clipped).
///
/// `audioSettings` takes the linear PCM keys of ``AVAssetReaderTrackOutput``; nil gives "a convenient
/// uncompressed format" as Apple's does: here 32-bit float, interleaved, at the first track's sample
/// rate, stereo unless every track is mono. Buffers of up to 8192 frames from the reader's time range
/// (ended at the asset's duration), until the last of the tracks ends: a movie's 1 s of sound under
/// 4 s of pictures mixes to 1 s, as its track output reads and an export encodes it (Apple does not
/// document this; the mix adds no silence no track has). The mix counts time as the tracks' own
/// timelines do (a file's zero), as the player does.
///
/// Tracks that are not audio tracks of the reader's asset, or settings it cannot produce, make
/// ``AVAssetReader/canAdd(_:)`` false and ``AVAssetReader/startReading()`` fail, where Apple's raises an
/// exception.
open class AVAssetReaderAudioMixOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The tracks mixed.
    public let audioTracks: [AVAssetTrack]
    /// The settings given, or nil for the convenient format.
    public let audioSettings: [String: Any]?
    private let format: Result<ReaderOutputFormat, AVError>
    private let mix = Locked<(audioMix: AVAudioMix?, pitch: AVAudioTimePitchAlgorithm)>((nil, .spectral))

    /// An output mixing `audioTracks` as `audioSettings` say. Parses the settings only.
    ///
    /// - Parameters:
    ///   - audioTracks: One or more audio tracks of the reader's asset.
    ///   - audioSettings: Linear PCM settings; nil for 32-bit float, interleaved, at the first track's
    ///     sample rate, stereo unless every track is mono.
    public init(audioTracks: [AVAssetTrack], audioSettings: [String: Any]?) {
        self.audioTracks = audioTracks
        self.audioSettings = audioSettings
        if let audioSettings {
            format = ReaderOutputFormat.parse(audioSettings, mediaType: .audio)
        } else {
            format = .success(.sound(ReaderOutputFormat.PCMSettings(sampleRate: nil, channels: nil, bitDepth: 32, isFloat: true,
                                                                    isBigEndian: false, isNonInterleaved: false)))
        }
        super.init(mediaType: .audio)
    }

    /// The volumes to mix at (a copy is kept); nil mixes every track at full volume. Set it before
    /// reading starts: set afterwards it is ignored and the reader fails.
    open var audioMix: AVAudioMix? {
        get { mix.withLock { $0.audioMix } }
        set {
            let copy = newValue.map { $0.copy() as? AVAudioMix ?? $0 }
            if state.withLock({ $0.queue != nil }) {
                state.withLock { $0.reader }?.fail(misuse: "audioMix cannot be set after reading has started")
                return
            }
            mix.withLock { $0.audioMix = copy }
        }
    }

    /// The algorithm for sound in scaled edits; stored. Default ``AVAudioTimePitchAlgorithm/spectral``.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { mix.withLock { $0.pitch } }
        set { mix.withLock { $0.pitch = newValue } }
    }

    override func configurationProblem(for reader: AVAssetReader) -> AVError? {
        if case .failure(let error) = format { return error }
        if audioTracks.isEmpty || audioTracks.contains(where: { $0.mediaType != .audio }) {
            return AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "An audio mix output mixes one or more audio tracks."])
        }
        if audioTracks.contains(where: { $0.asset !== reader.asset }) {
            return AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "An output may only read tracks of its reader's asset."])
        }
        return nil
    }

    override func makeProducer(_ token: CancellationToken) throws -> any SampleProducer {
        guard case .success(.sound(let settings)) = format, let asset = audioTracks.first?.asset else {
            throw AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The audio mix output cannot read."])
        }
        return try MixedSoundProducer(tracks: audioTracks, audioMix: audioMix, asset: asset, settings: settings)
    }
}
