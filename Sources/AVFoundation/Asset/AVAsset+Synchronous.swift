import Foundation

// The synchronous getters Apple deprecates for Swift. Each blocks the calling thread until its value
// is loaded, joining the same header parse (run on the engine's threads) that load(_:) uses. On
// failure they return an empty or invalid value, as Apple's do; use load(_:) to see the error.
// (A composition's own, non-deprecated getters take precedence over these: see `_AVAssetAccessors`.)
extension AVAsset {
    /// The value of `property`: at once when loaded, else loaded now on the engine's threads while the
    /// calling thread waits; `fallback` when loading fails.
    func blockingValue<V>(_ property: AVAsyncProperty<AVAsset, V>, fallback: V) -> V {
        (try? property.blockingLoader(self).get()) ?? fallback
    }
}

extension _AVAssetAccessors where Self: AVAsset {
    @available(*, deprecated, message: "Use load(.duration) instead")
    public var duration: CMTime { blockingValue(.duration, fallback: .invalid) }

    @available(*, deprecated, message: "Use load(.providesPreciseDurationAndTiming) instead")
    public var providesPreciseDurationAndTiming: Bool { blockingValue(.providesPreciseDurationAndTiming, fallback: false) }

    @available(*, deprecated, message: "Use load(.tracks) instead")
    public var tracks: [AVAssetTrack] { blockingValue(.tracks, fallback: []) }

    @available(*, deprecated, message: "Use load(.trackGroups) instead")
    public var trackGroups: [AVAssetTrackGroup] { blockingValue(.trackGroups, fallback: []) }

    @available(*, deprecated, message: "Use load(.metadata) instead")
    public var metadata: [AVMetadataItem] { blockingValue(.metadata, fallback: []) }

    @available(*, deprecated, message: "Use load(.commonMetadata) instead")
    public var commonMetadata: [AVMetadataItem] { blockingValue(.commonMetadata, fallback: []) }

    @available(*, deprecated, message: "Use load(.availableMetadataFormats) instead")
    public var availableMetadataFormats: [AVMetadataFormat] { blockingValue(.availableMetadataFormats, fallback: []) }

    @available(*, deprecated, message: "Use load(.creationDate) instead")
    public var creationDate: AVMetadataItem? { blockingValue(.creationDate, fallback: nil) }

    @available(*, deprecated, message: "Use load(.lyrics) instead")
    public var lyrics: String? { blockingValue(.lyrics, fallback: nil) }

    @available(*, deprecated, message: "Use load(.isPlayable) instead")
    public var isPlayable: Bool { blockingValue(.isPlayable, fallback: false) }

    @available(*, deprecated, message: "Use load(.isExportable) instead")
    public var isExportable: Bool { blockingValue(.isExportable, fallback: false) }

    @available(*, deprecated, message: "Use load(.isReadable) instead")
    public var isReadable: Bool { blockingValue(.isReadable, fallback: false) }

    @available(*, deprecated, message: "Use load(.isComposable) instead")
    public var isComposable: Bool { blockingValue(.isComposable, fallback: false) }

    @available(*, deprecated, message: "Use load(.preferredRate) instead")
    public var preferredRate: Float { blockingValue(.preferredRate, fallback: 1) }

    @available(*, deprecated, message: "Use load(.preferredVolume) instead")
    public var preferredVolume: Float { blockingValue(.preferredVolume, fallback: 1) }

    @available(*, deprecated, message: "Use load(.preferredTransform) instead")
    public var preferredTransform: CGAffineTransform { blockingValue(.preferredTransform, fallback: .identity) }

    @available(*, deprecated, message: "Use load(.hasProtectedContent) instead")
    public var hasProtectedContent: Bool { blockingValue(.hasProtectedContent, fallback: false) }

    @available(*, deprecated, message: "Use load(.canContainFragments) instead")
    public var canContainFragments: Bool { blockingValue(.canContainFragments, fallback: false) }

    @available(*, deprecated, message: "Use load(.containsFragments) instead")
    public var containsFragments: Bool { blockingValue(.containsFragments, fallback: false) }

    @available(*, deprecated, message: "Use load(.overallDurationHint) instead")
    public var overallDurationHint: CMTime { blockingValue(.overallDurationHint, fallback: .invalid) }

    @available(*, deprecated, message: "Use load(.availableChapterLocales) instead")
    public var availableChapterLocales: [Locale] { blockingValue(.availableChapterLocales, fallback: []) }

    @available(*, deprecated, message: "Use loadTracks(withMediaType:) instead")
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] {
        blockingValue(.tracks, fallback: [AVAssetTrack]()).filter { $0.mediaType == mediaType }
    }

    @available(*, deprecated, message: "Use loadTrack(withTrackID:) instead")
    public func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? {
        blockingValue(.tracks, fallback: [AVAssetTrack]()).first { $0.trackID == trackID }
    }

    @available(*, deprecated, message: "Use loadTracks(withMediaCharacteristic:) instead")
    public func tracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> [AVAssetTrack] {
        blockingValue(.tracks, fallback: [AVAssetTrack]()).filter {
            $0.blockingValue(.mediaCharacteristics, fallback: [AVMediaCharacteristic]()).contains(mediaCharacteristic)
        }
    }

    @available(*, deprecated, message: "Use loadMetadata(for:) instead")
    public func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        blockingValue(.metadata, fallback: [AVMetadataItem]()).filter { $0.keySpace?.format == format }
    }
}
