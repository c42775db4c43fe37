import Foundation

extension AVAsyncProperty {
    /// Maps a status-table entry to the typed status.
    static func typed(_ status: PropertyStore.Status) -> Status {
        switch status {
        case .notYetLoaded: return .notYetLoaded
        case .loading: return .loading
        case .loaded(let value):
            guard let typed = value as? Value else { return .notYetLoaded }
            return .loaded(typed)
        case .failed(let error): return .failed(error)
        case .cancelled: return .failed(PropertyStore.cancelledError)
        }
    }
}

/// The loadable properties of an asset. Header-level ones load together in one header parse; the key
/// string of each is Apple's legacy key ("duration", "playable", ...).
extension AVPartialAsyncProperty where Root: AVAsset {
    static func asset<V>(_ key: String) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { asset in try await asset.properties.value(key) { () async throws -> V in try await asset.headerValue(key) } },
            status: { asset in AVAsyncProperty<Root, V>.typed(asset.properties.status(key)) })
    }

    /// The duration: the header's (an estimate for some files, see `providesPreciseDurationAndTiming`),
    /// or exact after a packet scan when the asset was created with `AVURLAssetPreferPreciseDurationAndTimingKey`.
    public static var duration: AVAsyncProperty<Root, CMTime> { asset("duration") }
    public static var providesPreciseDurationAndTiming: AVAsyncProperty<Root, Bool> { asset("providesPreciseDurationAndTiming") }
    /// Every track but cover art and attachments.
    public static var tracks: AVAsyncProperty<Root, [AVAssetTrack]> { asset("tracks") }
    public static var trackGroups: AVAsyncProperty<Root, [AVAssetTrackGroup]> { asset("trackGroups") }
    /// The container's metadata in its own key space (iTunes, QuickTime, ID3, Vorbis comments, Matroska
    /// tags), cover art included.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> { asset("metadata") }
    /// The metadata that maps onto the common key space, as items in it ("common/title", ...).
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> { asset("commonMetadata") }
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> { asset("availableMetadataFormats") }
    /// The creation date: a date tag, else the movie header's creation time.
    public static var creationDate: AVAsyncProperty<Root, AVMetadataItem?> { asset("creationDate") }
    public static var lyrics: AVAsyncProperty<Root, String?> { asset("lyrics") }
    /// True when a decoder exists for at least one audio or video track.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { asset("playable") }
    public static var isExportable: AVAsyncProperty<Root, Bool> { asset("exportable") }
    public static var isReadable: AVAsyncProperty<Root, Bool> { asset("readable") }
    public static var isComposable: AVAsyncProperty<Root, Bool> { asset("composable") }
    /// 1: FFmpeg does not read the movie header's preferred rate.
    public static var preferredRate: AVAsyncProperty<Root, Float> { asset("preferredRate") }
    /// 1: FFmpeg does not read the movie header's preferred volume.
    public static var preferredVolume: AVAsyncProperty<Root, Float> { asset("preferredVolume") }
    /// Identity: FFmpeg folds the movie matrix into each track's, so see the tracks' transforms.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> { asset("preferredTransform") }
    public static var hasProtectedContent: AVAsyncProperty<Root, Bool> { asset("hasProtectedContent") }
    /// An MP4 movie header that declares fragments (`mvex`).
    public static var canContainFragments: AVAsyncProperty<Root, Bool> { asset("canContainFragments") }
    /// At least one MP4 movie fragment (`moof`) is present.
    public static var containsFragments: AVAsyncProperty<Root, Bool> { asset("containsFragments") }
    /// The duration for assets that can contain fragments; invalid otherwise.
    public static var overallDurationHint: AVAsyncProperty<Root, CMTime> { asset("overallDurationHint") }
    /// The languages of the chapter titles, where the container records them (MP4 chapter tracks do;
    /// Matroska's are not exposed by FFmpeg).
    public static var availableChapterLocales: AVAsyncProperty<Root, [Locale]> { asset("availableChapterLocales") }
}
