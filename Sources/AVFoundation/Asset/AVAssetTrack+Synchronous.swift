import Foundation

// The synchronous getters Apple deprecates for Swift. Values known from the header return at once;
// the scan-backed ones block the calling thread while the file's packets are read. (A composition
// track's own, non-deprecated accessors take precedence over these: see `_AVAssetAccessors`.)
extension _AVAssetAccessors where Self: AVAssetTrack {
    /// The format descriptions, typed `[Any]` as in Apple's synchronous API (each is a `CMFormatDescription`).
    @available(*, deprecated, message: "Use load(.formatDescriptions) instead")
    public var formatDescriptions: [Any] { blockingValue(.formatDescriptions, fallback: [CMFormatDescription]()) }

    @available(*, deprecated, message: "Use load(.isPlayable) instead")
    public var isPlayable: Bool { blockingValue(.isPlayable, fallback: false) }

    @available(*, deprecated, message: "Use load(.isDecodable) instead")
    public var isDecodable: Bool { blockingValue(.isDecodable, fallback: false) }

    @available(*, deprecated, message: "Use load(.isEnabled) instead")
    public var isEnabled: Bool { blockingValue(.isEnabled, fallback: false) }

    @available(*, deprecated, message: "Use load(.isSelfContained) instead")
    public var isSelfContained: Bool { blockingValue(.isSelfContained, fallback: true) }

    @available(*, deprecated, message: "Use load(.totalSampleDataLength) instead")
    public var totalSampleDataLength: Int64 { blockingValue(.totalSampleDataLength, fallback: 0) }

    @available(*, deprecated, message: "Use load(.mediaCharacteristics) instead")
    public var mediaCharacteristics: [AVMediaCharacteristic] { blockingValue(.mediaCharacteristics, fallback: []) }

    @available(*, deprecated, message: "Use load(.timeRange) instead")
    public var timeRange: CMTimeRange { blockingValue(.timeRange, fallback: .invalid) }

    @available(*, deprecated, message: "Use load(.naturalTimeScale) instead")
    public var naturalTimeScale: CMTimeScale { blockingValue(.naturalTimeScale, fallback: 0) }

    @available(*, deprecated, message: "Use load(.estimatedDataRate) instead")
    public var estimatedDataRate: Float { blockingValue(.estimatedDataRate, fallback: 0) }

    @available(*, deprecated, message: "Use load(.languageCode) instead")
    public var languageCode: String? { blockingValue(.languageCode, fallback: nil) }

    @available(*, deprecated, message: "Use load(.extendedLanguageTag) instead")
    public var extendedLanguageTag: String? { blockingValue(.extendedLanguageTag, fallback: nil) }

    @available(*, deprecated, message: "Use load(.naturalSize) instead")
    public var naturalSize: CGSize { blockingValue(.naturalSize, fallback: .zero) }

    @available(*, deprecated, message: "Use load(.preferredTransform) instead")
    public var preferredTransform: CGAffineTransform { blockingValue(.preferredTransform, fallback: .identity) }

    @available(*, deprecated, message: "Use load(.preferredVolume) instead")
    public var preferredVolume: Float { blockingValue(.preferredVolume, fallback: 0) }

    @available(*, deprecated, message: "Use load(.nominalFrameRate) instead")
    public var nominalFrameRate: Float { blockingValue(.nominalFrameRate, fallback: 0) }

    @available(*, deprecated, message: "Use load(.minFrameDuration) instead")
    public var minFrameDuration: CMTime { blockingValue(.minFrameDuration, fallback: .invalid) }

    @available(*, deprecated, message: "Use load(.requiresFrameReordering) instead")
    public var requiresFrameReordering: Bool { blockingValue(.requiresFrameReordering, fallback: false) }

    @available(*, deprecated, message: "Use load(.hasAudioSampleDependencies) instead")
    public var hasAudioSampleDependencies: Bool { blockingValue(.hasAudioSampleDependencies, fallback: false) }

    @available(*, deprecated, message: "Use load(.metadata) instead")
    public var metadata: [AVMetadataItem] { blockingValue(.metadata, fallback: []) }

    @available(*, deprecated, message: "Use load(.commonMetadata) instead")
    public var commonMetadata: [AVMetadataItem] { blockingValue(.commonMetadata, fallback: []) }

    @available(*, deprecated, message: "Use load(.availableMetadataFormats) instead")
    public var availableMetadataFormats: [AVMetadataFormat] { blockingValue(.availableMetadataFormats, fallback: []) }

    @available(*, deprecated, message: "Use load(.segments) instead")
    public var segments: [AVAssetTrackSegment] { blockingValue(.segments, fallback: []) }

    @available(*, deprecated, message: "Use load(.mediaCharacteristics) instead")
    public func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        blockingValue(.mediaCharacteristics, fallback: [AVMediaCharacteristic]()).contains(mediaCharacteristic)
    }

    @available(*, deprecated, message: "Use loadMetadata(for:) instead")
    public func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        blockingValue(.metadata, fallback: [AVMetadataItem]()).filter { $0.keySpace?.format == format }
    }

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
