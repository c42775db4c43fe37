internal import MediaEngine
import Foundation

/// The loadable properties of an asset, each defined over its typed facts. Header-level ones load
/// together in one header parse; the timing ones fall back on the packet scan when the asset asked for
/// precise timing and the header only estimates. The key string of each is Apple's legacy key
/// ("duration", "playable", ...).
extension AVPartialAsyncProperty where Root: AVAsset {
    /// A property the header parse always gives.
    static func fact<V>(_ key: String, _ read: @escaping @Sendable (AssetFacts) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { asset in read(try await asset.facts()) },
            blocking: { asset in asset.blockingFacts().map(read) },
            status: { asset in asset.factsStatus().map(read) })
    }

    /// A property the header parse gives, made with the asset itself (objects that refer back to it).
    static func fact<V>(_ key: String, _ read: @escaping @Sendable (AssetFacts, AVAsset) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { asset in read(try await asset.facts(), asset) },
            blocking: { asset in asset.blockingFacts().map { read($0, asset) } },
            status: { asset in asset.factsStatus().map { read($0, asset) } })
    }

    /// A timing property: from the header, or from the packet scan where the header only estimates.
    static func timing<V>(_ key: String, _ read: @escaping @Sendable (AssetFacts.Timing) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { asset in
                let facts = try await asset.facts()
                if let timing = facts.timing { return read(timing) }
                return read(facts.scannedTiming(try await asset.source.packetStatistics()))
            },
            blocking: { asset in
                asset.blockingFacts().flatMap { facts in
                    if let timing = facts.timing { return .success(read(timing)) }
                    return asset.source.blockingPacketStatistics().map { read(facts.scannedTiming($0)) }
                }
            },
            status: { asset in
                asset.factsStatus().flatMap { facts in
                    if let timing = facts.timing { return .loaded(read(timing)) }
                    return asset.source.scan.status().map { read(facts.scannedTiming($0)) }
                }
            })
    }

    /// The duration: the header's (an estimate for some files, see `providesPreciseDurationAndTiming`),
    /// or exact after a packet scan when the asset was created with
    /// ``AVURLAssetPreferPreciseDurationAndTimingKey``.
    public static var duration: AVAsyncProperty<Root, CMTime> { timing("duration", \.duration) }
    /// Whether `duration` and timing are exact: false where the header only estimates them (a VBR MP3
    /// without a Xing header), true after a packet scan.
    public static var providesPreciseDurationAndTiming: AVAsyncProperty<Root, Bool> { timing("providesPreciseDurationAndTiming", \.providesPreciseDurationAndTiming) }
    /// Every track but cover art and attachments.
    public static var tracks: AVAsyncProperty<Root, [AVAssetTrack]> { fact("tracks", \.tracks) }
    /// The characteristics for which the asset has a media selection group: `.audible`, `.legible`
    /// and `.visual`, in that order, as far as it has them (see ``AVMediaSelectionGroup``).
    public static var availableMediaCharacteristicsWithMediaSelectionOptions: AVAsyncProperty<Root, [AVMediaCharacteristic]> {
        fact("availableMediaCharacteristicsWithMediaSelectionOptions", \.availableMediaCharacteristicsWithMediaSelectionOptions)
    }
    /// The selection of each media selection group's default option, made when asked.
    public static var preferredMediaSelection: AVAsyncProperty<Root, AVMediaSelection> {
        fact("preferredMediaSelection") { facts, asset in AVMediaSelection(asset: asset, defaultsOf: facts.mediaSelectionGroups) }
    }
    /// Every combination of one option per media selection group (or none, in a group that allows
    /// it), the preferred selection first; empty for an asset without groups. At most 4,096: an asset
    /// with more combinations gives the first 4,096 in that order. Made when asked.
    public static var allMediaSelections: AVAsyncProperty<Root, [AVMediaSelection]> {
        fact("allMediaSelections") { facts, asset in MediaSelectionRules.allSelections(of: facts.mediaSelectionGroups, asset: asset) }
    }
    /// Groups of alternative tracks: the alternate groups of MP4 and QuickTime track headers (a group
    /// per nonzero number, in its order); empty for containers that have none.
    public static var trackGroups: AVAsyncProperty<Root, [AVAssetTrackGroup]> { fact("trackGroups", \.trackGroups) }
    /// The container's metadata in its own key space (iTunes, QuickTime, ID3, Vorbis comments, Matroska
    /// tags), cover art included.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> { fact("metadata", \.metadata) }
    /// The metadata that maps onto the common key space, as items in it ("common/title", ...).
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> { fact("commonMetadata", \.commonMetadata) }
    /// The formats of the asset's metadata items.
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> { fact("availableMetadataFormats", \.availableMetadataFormats) }
    /// The creation date: a date tag, else the movie header's creation time.
    public static var creationDate: AVAsyncProperty<Root, AVMetadataItem?> { fact("creationDate", \.creationDate) }
    /// The text of a tag whose key starts with "lyrics", on the container or a stream; nil when there is none.
    public static var lyrics: AVAsyncProperty<Root, String?> { fact("lyrics", \.lyrics) }
    /// True when a decoder exists for at least one audio or video track.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { fact("playable", \.isPlayable) }
    /// True when the asset has an audio or video track.
    public static var isExportable: AVAsyncProperty<Root, Bool> { fact("exportable", \.isExportable) }
    /// True when the asset has an audio or video track.
    public static var isReadable: AVAsyncProperty<Root, Bool> { fact("readable", \.isReadable) }
    /// True when the asset has an audio or video track.
    public static var isComposable: AVAsyncProperty<Root, Bool> { fact("composable", \.isComposable) }
    /// 1: FFmpeg does not read the movie header's preferred rate.
    public static var preferredRate: AVAsyncProperty<Root, Float> { fact("preferredRate", \.preferredRate) }
    /// 1: FFmpeg does not read the movie header's preferred volume.
    public static var preferredVolume: AVAsyncProperty<Root, Float> { fact("preferredVolume", \.preferredVolume) }
    /// Identity: FFmpeg folds the movie matrix into each track's, so see the tracks' transforms.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> { fact("preferredTransform", \.preferredTransform) }
    /// True when a stream is encrypted.
    public static var hasProtectedContent: AVAsyncProperty<Root, Bool> { fact("hasProtectedContent", \.hasProtectedContent) }
    /// An MP4 movie header that declares fragments (`mvex`).
    public static var canContainFragments: AVAsyncProperty<Root, Bool> { fact("canContainFragments", \.canContainFragments) }
    /// At least one MP4 movie fragment (`moof`) is present.
    public static var containsFragments: AVAsyncProperty<Root, Bool> { fact("containsFragments", \.containsFragments) }
    /// The duration for assets that can contain fragments; invalid otherwise.
    public static var overallDurationHint: AVAsyncProperty<Root, CMTime> { timing("overallDurationHint", \.overallDurationHint) }
    /// The languages of the chapter titles, where the container records them (MP4 chapter tracks do;
    /// Matroska's are not exposed by FFmpeg).
    public static var availableChapterLocales: AVAsyncProperty<Root, [Locale]> { fact("availableChapterLocales", \.availableChapterLocales) }
}
