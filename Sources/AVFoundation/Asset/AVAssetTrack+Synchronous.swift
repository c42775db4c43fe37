import Foundation

// The synchronous getters Apple deprecates for Swift. Values known from the header return at once;
// the scan-backed ones block the calling thread while the file's packets are read. (A composition
// track's own, non-deprecated accessors take precedence over these: see `_AVAssetAccessors`.)
extension _AVAssetAccessors where Self: AVAssetTrack {
    /// The format descriptions, typed `[Any]` as in Apple's synchronous API (each is a `CMFormatDescription`).
    @available(*, deprecated, message: "Use load(.formatDescriptions) instead")
    public var formatDescriptions: [Any] { blockingValue(.formatDescriptions, fallback: [CMFormatDescription]()) }

    /// Whether the track can be played, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.isPlayable) instead")
    public var isPlayable: Bool { blockingValue(.isPlayable, fallback: false) }

    /// Whether a decoder exists for the track's codec; false when loading fails.
    @available(*, deprecated, message: "Use load(.isDecodable) instead")
    public var isDecodable: Bool { blockingValue(.isDecodable, fallback: false) }

    /// Whether the track is enabled; false when loading fails.
    @available(*, deprecated, message: "Use load(.isEnabled) instead")
    public var isEnabled: Bool { blockingValue(.isEnabled, fallback: false) }

    /// Whether the track's media is in its own file: true for a file's track.
    @available(*, deprecated, message: "Use load(.isSelfContained) instead")
    public var isSelfContained: Bool { blockingValue(.isSelfContained, fallback: true) }

    /// The bytes of media data; may block the calling thread for a pass over the file's packets. 0 when loading fails.
    @available(*, deprecated, message: "Use load(.totalSampleDataLength) instead")
    public var totalSampleDataLength: Int64 { blockingValue(.totalSampleDataLength, fallback: 0) }

    /// The track's media characteristics; empty when loading fails.
    @available(*, deprecated, message: "Use load(.mediaCharacteristics) instead")
    public var mediaCharacteristics: [AVMediaCharacteristic] { blockingValue(.mediaCharacteristics, fallback: []) }

    /// The track's time range; may block the calling thread for a packet scan. `.invalid` when loading fails.
    @available(*, deprecated, message: "Use load(.timeRange) instead")
    public var timeRange: CMTimeRange { blockingValue(.timeRange, fallback: .invalid) }

    /// The track's timescale; 0 when loading fails.
    @available(*, deprecated, message: "Use load(.naturalTimeScale) instead")
    public var naturalTimeScale: CMTimeScale { blockingValue(.naturalTimeScale, fallback: 0) }

    /// Bits per second; may block the calling thread for a pass over the file's packets. 0 when loading fails.
    @available(*, deprecated, message: "Use load(.estimatedDataRate) instead")
    public var estimatedDataRate: Float { blockingValue(.estimatedDataRate, fallback: 0) }

    /// The ISO 639-2/T language code; nil when undetermined.
    @available(*, deprecated, message: "Use load(.languageCode) instead")
    public var languageCode: String? { blockingValue(.languageCode, fallback: nil) }

    /// The BCP 47 language tag; nil when undetermined.
    @available(*, deprecated, message: "Use load(.extendedLanguageTag) instead")
    public var extendedLanguageTag: String? { blockingValue(.extendedLanguageTag, fallback: nil) }

    /// The display size before the preferred transform; `.zero` when loading fails.
    @available(*, deprecated, message: "Use load(.naturalSize) instead")
    public var naturalSize: CGSize { blockingValue(.naturalSize, fallback: .zero) }

    /// The display transform; identity when loading fails.
    @available(*, deprecated, message: "Use load(.preferredTransform) instead")
    public var preferredTransform: CGAffineTransform { blockingValue(.preferredTransform, fallback: .identity) }

    /// 1 for audio, 0 for other tracks; 0 when loading fails.
    @available(*, deprecated, message: "Use load(.preferredVolume) instead")
    public var preferredVolume: Float { blockingValue(.preferredVolume, fallback: 0) }

    /// Frames per second; may block the calling thread for a packet scan. 0 when loading fails.
    @available(*, deprecated, message: "Use load(.nominalFrameRate) instead")
    public var nominalFrameRate: Float { blockingValue(.nominalFrameRate, fallback: 0) }

    /// The shortest frame duration; `.invalid` when unknown or when loading fails.
    @available(*, deprecated, message: "Use load(.minFrameDuration) instead")
    public var minFrameDuration: CMTime { blockingValue(.minFrameDuration, fallback: .invalid) }

    /// Whether the decoder reorders frames (B-frames); false when loading fails.
    @available(*, deprecated, message: "Use load(.requiresFrameReordering) instead")
    public var requiresFrameReordering: Bool { blockingValue(.requiresFrameReordering, fallback: false) }

    /// Whether audio samples depend on others: false for a file's track.
    @available(*, deprecated, message: "Use load(.hasAudioSampleDependencies) instead")
    public var hasAudioSampleDependencies: Bool { blockingValue(.hasAudioSampleDependencies, fallback: false) }

    /// The track's own metadata; empty when loading fails.
    @available(*, deprecated, message: "Use load(.metadata) instead")
    public var metadata: [AVMetadataItem] { blockingValue(.metadata, fallback: []) }

    /// The track's metadata in the common key space; empty when loading fails.
    @available(*, deprecated, message: "Use load(.commonMetadata) instead")
    public var commonMetadata: [AVMetadataItem] { blockingValue(.commonMetadata, fallback: []) }

    /// The formats of the track's metadata; empty when loading fails.
    @available(*, deprecated, message: "Use load(.availableMetadataFormats) instead")
    public var availableMetadataFormats: [AVMetadataFormat] { blockingValue(.availableMetadataFormats, fallback: []) }

    /// The track's segments (one covering the track); may block the calling thread for a packet scan.
    @available(*, deprecated, message: "Use load(.segments) instead")
    public var segments: [AVAssetTrackSegment] { blockingValue(.segments, fallback: []) }

    /// Whether the track has `mediaCharacteristic`, loaded while the calling thread waits.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/audible``.
    /// - Returns: True when the track's characteristics contain it; false when not, or when loading
    ///   fails.
    @available(*, deprecated, message: "Use load(.mediaCharacteristics) instead")
    public func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        blockingValue(.mediaCharacteristics, fallback: [AVMediaCharacteristic]()).contains(mediaCharacteristic)
    }

    /// The track's metadata items of `format`, loaded while the calling thread waits.
    ///
    /// - Parameter format: The format, such as ``AVMetadataFormat/quickTimeUserData``.
    /// - Returns: The items of that format; empty when there are none or loading fails.
    @available(*, deprecated, message: "Use loadMetadata(for:) instead")
    public func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        blockingValue(.metadata, fallback: [AVMetadataItem]()).filter { $0.keySpace?.format == format }
    }

    /// The segment whose target range holds `trackTime`; may block the calling thread for a packet scan.
    ///
    /// - Parameter trackTime: A time on the track's timeline.
    /// - Returns: The segment; nil when none holds the time, or when loading fails.
    @available(*, deprecated, message: "Use loadSegment(forTrackTime:) instead")
    public func segment(forTrackTime trackTime: CMTime) -> AVAssetTrackSegment? {
        blockingValue(.segments, fallback: [AVAssetTrackSegment]()).first { $0.timeMapping.target.containsTime(trackTime) }
    }
}

extension AVAssetTrack {
    /// The value of `property`: at once when loaded, else loaded now on the engine's threads while the
    /// calling thread waits; `fallback` when loading fails.
    func blockingValue<V>(_ property: AVAsyncProperty<AVAssetTrack, V>, fallback: V) -> V {
        (try? property.blockingLoader(self).get()) ?? fallback
    }
}
