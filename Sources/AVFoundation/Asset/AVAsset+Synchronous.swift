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
    /// The duration, loaded while the calling thread waits; `.invalid` when loading fails.
    @available(*, deprecated, message: "Use load(.duration) instead")
    public var duration: CMTime { blockingValue(.duration, fallback: .invalid) }

    /// Whether the duration and timing are exact, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.providesPreciseDurationAndTiming) instead")
    public var providesPreciseDurationAndTiming: Bool { blockingValue(.providesPreciseDurationAndTiming, fallback: false) }

    /// The tracks, loaded while the calling thread waits; empty when loading fails.
    @available(*, deprecated, message: "Use load(.tracks) instead")
    public var tracks: [AVAssetTrack] { blockingValue(.tracks, fallback: []) }

    /// The track groups (MP4 and QuickTime alternate groups), loaded while the calling thread waits;
    /// empty when loading fails.
    @available(*, deprecated, message: "Use load(.trackGroups) instead")
    public var trackGroups: [AVAssetTrackGroup] { blockingValue(.trackGroups, fallback: []) }

    /// The metadata in the container's own key space, loaded while the calling thread waits; empty when loading fails.
    @available(*, deprecated, message: "Use load(.metadata) instead")
    public var metadata: [AVMetadataItem] { blockingValue(.metadata, fallback: []) }

    /// The metadata in the common key space, loaded while the calling thread waits; empty when loading fails.
    @available(*, deprecated, message: "Use load(.commonMetadata) instead")
    public var commonMetadata: [AVMetadataItem] { blockingValue(.commonMetadata, fallback: []) }

    /// The formats of the asset's metadata, loaded while the calling thread waits; empty when loading fails.
    @available(*, deprecated, message: "Use load(.availableMetadataFormats) instead")
    public var availableMetadataFormats: [AVMetadataFormat] { blockingValue(.availableMetadataFormats, fallback: []) }

    /// The creation date, loaded while the calling thread waits; nil when absent or when loading fails.
    @available(*, deprecated, message: "Use load(.creationDate) instead")
    public var creationDate: AVMetadataItem? { blockingValue(.creationDate, fallback: nil) }

    /// The lyrics tag, loaded while the calling thread waits; nil when absent or when loading fails.
    @available(*, deprecated, message: "Use load(.lyrics) instead")
    public var lyrics: String? { blockingValue(.lyrics, fallback: nil) }

    /// Whether a decoder exists for an audio or video track, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.isPlayable) instead")
    public var isPlayable: Bool { blockingValue(.isPlayable, fallback: false) }

    /// Whether the asset has audio or video, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.isExportable) instead")
    public var isExportable: Bool { blockingValue(.isExportable, fallback: false) }

    /// Whether the asset has audio or video, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.isReadable) instead")
    public var isReadable: Bool { blockingValue(.isReadable, fallback: false) }

    /// Whether the asset has audio or video, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.isComposable) instead")
    public var isComposable: Bool { blockingValue(.isComposable, fallback: false) }

    /// The preferred rate (always 1 in Avocet), loaded while the calling thread waits.
    @available(*, deprecated, message: "Use load(.preferredRate) instead")
    public var preferredRate: Float { blockingValue(.preferredRate, fallback: 1) }

    /// The preferred volume (always 1 in Avocet), loaded while the calling thread waits.
    @available(*, deprecated, message: "Use load(.preferredVolume) instead")
    public var preferredVolume: Float { blockingValue(.preferredVolume, fallback: 1) }

    /// The movie's transform (identity in Avocet; see the tracks'), loaded while the calling thread waits.
    @available(*, deprecated, message: "Use load(.preferredTransform) instead")
    public var preferredTransform: CGAffineTransform { blockingValue(.preferredTransform, fallback: .identity) }

    /// Whether a stream is encrypted, loaded while the calling thread waits; false when loading fails.
    @available(*, deprecated, message: "Use load(.hasProtectedContent) instead")
    public var hasProtectedContent: Bool { blockingValue(.hasProtectedContent, fallback: false) }

    /// Whether an MP4 movie header declares fragments, loaded while the calling thread waits.
    @available(*, deprecated, message: "Use load(.canContainFragments) instead")
    public var canContainFragments: Bool { blockingValue(.canContainFragments, fallback: false) }

    /// Whether an MP4 movie fragment is present, loaded while the calling thread waits.
    @available(*, deprecated, message: "Use load(.containsFragments) instead")
    public var containsFragments: Bool { blockingValue(.containsFragments, fallback: false) }

    /// The duration of an asset that can contain fragments, loaded while the calling thread waits; `.invalid` otherwise.
    @available(*, deprecated, message: "Use load(.overallDurationHint) instead")
    public var overallDurationHint: CMTime { blockingValue(.overallDurationHint, fallback: .invalid) }

    /// The languages of the chapter titles, loaded while the calling thread waits; empty when loading fails.
    @available(*, deprecated, message: "Use load(.availableChapterLocales) instead")
    public var availableChapterLocales: [Locale] { blockingValue(.availableChapterLocales, fallback: []) }

    /// The tracks of `mediaType`, loaded while the calling thread waits.
    ///
    /// - Parameter mediaType: The media type, such as ``AVMediaType/audio``.
    /// - Returns: The tracks of that type; empty when there are none or loading fails
    ///   (``AVAsset/loadTracks(withMediaType:)`` throws the error instead).
    @available(*, deprecated, message: "Use loadTracks(withMediaType:) instead")
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] {
        blockingValue(.tracks, fallback: [AVAssetTrack]()).filter { $0.mediaType == mediaType }
    }

    /// The track with `trackID`, loaded while the calling thread waits.
    ///
    /// - Parameter trackID: The track's ``AVAssetTrack/trackID``.
    /// - Returns: The track; nil when there is none or loading fails.
    @available(*, deprecated, message: "Use loadTrack(withTrackID:) instead")
    public func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? {
        blockingValue(.tracks, fallback: [AVAssetTrack]()).first { $0.trackID == trackID }
    }

    /// The tracks that have `mediaCharacteristic`, loaded while the calling thread waits.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/visual``.
    /// - Returns: The tracks that have it; empty when there are none or loading fails.
    @available(*, deprecated, message: "Use loadTracks(withMediaCharacteristic:) instead")
    public func tracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> [AVAssetTrack] {
        blockingValue(.tracks, fallback: [AVAssetTrack]()).filter {
            $0.blockingValue(.mediaCharacteristics, fallback: [AVMediaCharacteristic]()).contains(mediaCharacteristic)
        }
    }

    /// The metadata items of `format`, loaded while the calling thread waits.
    ///
    /// - Parameter format: The format, such as ``AVMetadataFormat/iTunesMetadata``.
    /// - Returns: The items of that format; empty when there are none or loading fails.
    @available(*, deprecated, message: "Use loadMetadata(for:) instead")
    public func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        blockingValue(.metadata, fallback: [AVMetadataItem]()).filter { $0.keySpace?.format == format }
    }
}
