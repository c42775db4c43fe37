internal import MediaEngine
import Foundation
internal import Locking

/// Reads the samples of one track: as stored (`outputSettings: nil`), or decoded.
///
/// - Stored: one buffer per packet, the bytes as the container holds them (H.264 and HEVC in their
///   length-prefixed form, AAC raw), with the track's format description, decode and presentation
///   times, and `notSync` on samples that are not keyframes. Reading starts at the keyframe at or
///   before the time range's start and ends with the last packet decoded before its end.
/// - Video settings (`kCVPixelBufferPixelFormatTypeKey`: 32BGRA, 32ARGB, 32RGBA, 420v, 420f, x420,
///   xf20, y420 or f420, or an array whose first supported entry is taken; `kCVPixelBufferWidthKey`/`HeightKey` to
///   scale): one decoded picture a buffer, converted once (scaled and coloured by libswscale) into a
///   pixel buffer from a pool that is reused. Without a pixel format, 420v. Pictures whose display
///   interval meets the time range are handed out.
/// - Audio settings (`AVFormatIDKey: kAudioFormatLinearPCM`; `AVSampleRateKey`,
///   `AVNumberOfChannelsKey`, `AVLinearPCMBitDepthKey`, `AVLinearPCMIsFloatKey`,
///   `AVLinearPCMIsBigEndianKey`, `AVLinearPCMIsNonInterleaved`): buffers of up to 8192 frames, resampled
///   and remixed by libswresample, cut to the time range's ends to the sample. Rate and channels default
///   to the track's; the encoding to 16-bit signed integers, interleaved, little-endian (32 bits when
///   `AVLinearPCMIsFloatKey` is true). Channels beyond the track's are upmixed, fewer downmixed. Each
///   sample lies where the track's timestamps put it (silence fills a gap in them); an MP4 or MOV
///   track's sound ends where the track does, without the encoder's padding.
///
/// Settings it cannot produce (compressed output, ``AVVideoScalingModeKey``, ``AVVideoCleanApertureKey``,
/// ``AVVideoPixelAspectRatioKey``, `AVSampleRateConverterAudioQualityKey`, settings of the other media
/// type, a pixel format it does not convert to) make ``AVAssetReader/canAdd(_:)`` false and
/// ``AVAssetReader/startReading()`` fail with ``AVError/Code-swift.enum/unsupportedOutputSettings``,
/// where Apple's initializer raises an exception.
///
/// Reads a file's track (a file, a resource loader's, HTTP or HLS asset), and a composition's track
/// decoded: its audio through the mix ``AVAssetReaderAudioMixOutput`` uses, its video rendered at the
/// track's nominal frame rate as ``AVAssetReaderVideoCompositionOutput`` renders (each segment's file in
/// turn). A composition track's stored samples are not read yet: ``AVAssetReader/startReading()`` fails
/// with ``AVError/Code-swift.enum/operationNotSupportedForAsset``.
open class AVAssetReaderTrackOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The track read.
    public let track: AVAssetTrack
    /// The settings given, or nil for stored samples.
    public let outputSettings: [String: Any]?
    private let format: Result<ReaderOutputFormat, AVError>
    private let pitch = Locked(AVAudioTimePitchAlgorithm.spectral)

    /// An output reading `track` as `outputSettings` say. Parses the settings only; nothing is opened
    /// until reading starts.
    ///
    /// Settings it cannot produce do not trap (Apple's raises an exception): the output is made, and
    /// ``AVAssetReader/canAdd(_:)`` refuses it.
    ///
    /// - Parameters:
    ///   - track: A track of the asset of the reader this output will be added to.
    ///   - outputSettings: Video or audio settings of the track's media type, as listed above; nil
    ///     for the stored samples.
    public init(track: AVAssetTrack, outputSettings: [String: Any]?) {
        self.track = track
        self.outputSettings = outputSettings
        format = ReaderOutputFormat.parse(outputSettings, mediaType: track.mediaType)
        super.init(mediaType: track.mediaType)
    }

    /// The algorithm for sound in scaled edits; stored (a file's track has no scaled edits). Default
    /// ``AVAudioTimePitchAlgorithm/spectral``.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { pitch.withLock { $0 } }
        set { pitch.withLock { $0 = newValue } }
    }

    override func configurationProblem(for reader: AVAssetReader) -> AVError? {
        if case .failure(let error) = format { return error }
        if track.asset !== reader.asset {
            return AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "An output may only read tracks of its reader's asset."])
        }
        if track is HLSSubtitleTrack {
            return AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "An HLS subtitle rendition is read by a legible output, not by an asset reader.",
            ])
        }
        if track.file == nil, !isComposed {
            return AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "Avocet's reader reads a composition's tracks decoded, not yet as stored samples.",
            ])
        }
        return nil
    }

    /// Stored samples: up to 256 or 4 MiB ahead, so that small packets (audio, low-rate video) are
    /// made in batches (a thread wake costs more than such a sample) and large ones stay few.
    override var readAhead: Int {
        switch format {
        case .success(.pictures): return 3
        case .success(.stored): return 256
        default: return 8
        }
    }

    override var readAheadBytes: Int? {
        if case .success(.stored) = format { return 4 << 20 }
        return nil
    }

    /// Whether the track is a composition's, read decoded: its segments' sound through the mix (of one
    /// track, at full volume), or its segments' pictures rendered at its nominal frame rate.
    private var isComposed: Bool {
        guard track.file == nil else { return false }
        switch format {
        case .success(.sound), .success(.pictures): return true
        default: return false
        }
    }

    override func makeProducer(_ token: CancellationToken) throws -> any SampleProducer {
        if isComposed, let asset = track.asset {
            switch format {
            case .success(.sound(let settings)): return try MixedSoundProducer(tracks: [track], audioMix: nil, asset: asset, settings: settings)
            case .success(.pictures(let settings)):
                return try RenderedPictureProducer(asset: asset, tracks: [track], videoComposition: nil, settings: settings)
            default: break
            }
        }
        guard let file = track.file else {
            throw AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "Avocet's reader does not read this composition track yet."])
        }
        switch format {
        case .failure(let error): throw error
        case .success(.stored):
            return try StoredSampleProducer(file: file, formatDescription: track.facts.formatDescriptions.first,
                                            copies: state.withLock { $0.copiesSampleData ?? $0.alwaysCopiesSampleData }, token)
        case .success(.pictures(let settings)): return try PictureSampleProducer(file: file, settings: settings, token)
        case .success(.sound(let settings)): return try SoundSampleProducer(file: file, settings: settings, token)
        }
    }
}
