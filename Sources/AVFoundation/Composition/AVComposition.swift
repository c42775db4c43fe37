import Foundation
internal import Locking
import Synchronization

/// An asset put together from other assets' tracks: composition tracks of segments, in memory.
///
/// Nothing is read until the composition is (by an image generator, an export or a player): every
/// property is known at once, so the synchronous getters are not deprecated (as on Apple's platforms)
/// and ``AVAsynchronousKeyValueLoading/load(_:)`` returns without I/O; both read the same values.
/// Immutable; ``AVMutableComposition`` is the form an app builds, and its `copy()` is one of these.
open class AVComposition: AVAsset, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the state sits behind a lock; the options are never changed.
    struct State {
        var tracks: [AVCompositionTrack] = []
        /// `.zero`: the first video track's natural size.
        var naturalSize = CGSize.zero
        /// Every ID a track has had: a removed track's ID is not given again.
        var usedTrackIDs = Set<CMPersistentTrackID>()
    }

    let state = Locked(State())
    /// The options for the ``AVURLAsset``s the composition makes for segments given by URL alone.
    public let urlAssetInitializationOptions: [String: Any]

    init(options: [String: Any]) {
        urlAssetInitializationOptions = options
        super.init()
    }

    /// An immutable composition with copies of `other`'s tracks.
    convenience init(copying other: AVComposition, mutable: Bool) {
        self.init(options: other.urlAssetInitializationOptions)
        let theirs = other.state.withLock { $0 }
        let tracks = theirs.tracks.map { $0.copy(into: self, mutable: mutable) }
        state.withLock {
            $0 = theirs
            $0.tracks = tracks
        }
    }

    var currentTracks: [AVCompositionTrack] { state.withLock { $0.tracks } }

    // MARK: - Facts, always loaded

    override func facts() async throws -> AssetFacts { compositionFacts() }
    override func blockingFacts() -> Result<AssetFacts, any Error> { .success(compositionFacts()) }
    override func factsStatus() -> LoadStatus<AssetFacts> { .loaded(compositionFacts()) }

    /// The asset's values made from the tracks as they are now.
    func compositionFacts() -> AssetFacts {
        AssetFacts(composition: currentTracks)
    }

    /// The composition's class, track count and duration.
    open override var description: String {
        "<\(type(of: self)) tracks=\(currentTracks.count) duration=\(duration.seconds)>"
    }

    // MARK: - The values, synchronously (in memory)

    /// Where the longest track ends.
    open var duration: CMTime { AVComposition.duration(of: currentTracks) }

    /// Where the longest of `tracks` ends (zero without tracks).
    static func duration(of tracks: [AVCompositionTrack]) -> CMTime {
        tracks.map { $0.snapshot.table.duration }.max() ?? .zero
    }
    /// The size of the first video track unless set (mutable compositions).
    open var naturalSize: CGSize {
        let (set, tracks) = state.withLock { ($0.naturalSize, $0.tracks) }
        if set != .zero { return set }
        return tracks.first { $0.mediaType == .video }?.naturalSize ?? .zero
    }
    /// True: a composition's timing is its segment tables'.
    open var providesPreciseDurationAndTiming: Bool { true }
    /// Always 1.
    open var preferredRate: Float { 1 }
    /// Always 1.
    open var preferredVolume: Float { 1 }
    /// Identity.
    open var preferredTransform: CGAffineTransform { .identity }
    /// Empty.
    open var trackGroups: [AVAssetTrackGroup] { [] }
    /// Empty: insertion does not copy metadata.
    open var metadata: [AVMetadataItem] { [] }
    /// Empty: insertion does not copy metadata.
    open var commonMetadata: [AVMetadataItem] { [] }
    /// Empty.
    open var availableMetadataFormats: [AVMetadataFormat] { [] }
    /// Nil.
    open var creationDate: AVMetadataItem? { nil }
    /// Nil.
    open var lyrics: String? { nil }
    /// Whether every track can be played.
    open var isPlayable: Bool { compositionFacts().isPlayable }
    /// True.
    open var isExportable: Bool { true }
    /// True.
    open var isReadable: Bool { true }
    /// True.
    open var isComposable: Bool { true }
    /// False.
    open var hasProtectedContent: Bool { false }
    /// False.
    open var canContainFragments: Bool { false }
    /// False.
    open var containsFragments: Bool { false }
    /// `.invalid`: a composition has no fragments.
    open var overallDurationHint: CMTime { .invalid }
    /// Empty: a composition has no chapters.
    open var availableChapterLocales: [Locale] { [] }

    /// Empty: a composition has no metadata.
    ///
    /// - Parameter format: Ignored.
    /// - Returns: An empty array.
    open func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] { [] }

    /// An ID no track of the composition has had.
    ///
    /// - Returns: One more than the highest ID used, or the lowest free ID once the largest possible ID
    ///   has been used; `kCMPersistentTrackID_Invalid` when every ID is taken.
    open func unusedTrackID() -> CMPersistentTrackID {
        state.withLock { AVComposition.unusedTrackID(in: $0) }
    }

    static func unusedTrackID(in state: State) -> CMPersistentTrackID {
        let highest = state.usedTrackIDs.max() ?? 0
        return highest < CMPersistentTrackID.max ? highest + 1
            : (1...CMPersistentTrackID.max).first { !state.usedTrackIDs.contains($0) } ?? kCMPersistentTrackID_Invalid
    }

    // MARK: - Copying

    /// The composition itself: it is immutable.
    open override func copy(with zone: NSZone? = nil) -> Any { self }

    /// A mutable composition with copies of this one's tracks (same IDs, segments and settings).
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableComposition(copying: self, mutable: true)
    }
}

// The accessors whose types differ from AVAsset's (see `_AVAssetAccessors`).
extension _AVAssetAccessors where Self: AVComposition {
    /// The composition's tracks, synchronously.
    public var tracks: [AVCompositionTrack] { currentTracks }

    /// The track with `trackID`; in memory.
    ///
    /// - Parameter trackID: The track's ID.
    /// - Returns: The track; nil when the composition has none with that ID.
    public func track(withTrackID trackID: CMPersistentTrackID) -> AVCompositionTrack? {
        currentTracks.first { $0.trackID == trackID }
    }

    /// The tracks of `mediaType`; in memory.
    ///
    /// - Parameter mediaType: The media type, such as ``AVMediaType/video``.
    /// - Returns: The tracks of that type, in the composition's order.
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVCompositionTrack] {
        currentTracks.filter { $0.mediaType == mediaType }
    }

    /// The tracks that have `mediaCharacteristic`; in memory.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/audible``.
    /// - Returns: The tracks whose characteristics contain it.
    public func tracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> [AVCompositionTrack] {
        currentTracks.filter { $0.mediaCharacteristics.contains(mediaCharacteristic) }
    }

    /// The track with `trackID`; returns at once, without I/O.
    ///
    /// - Parameter trackID: The track's ID.
    /// - Returns: The track; nil when the composition has none with that ID.
    /// - Throws: Nothing: a composition's tracks are in memory.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVCompositionTrack? {
        track(withTrackID: trackID)
    }

    /// The tracks of `mediaType`; returns at once, without I/O.
    ///
    /// - Parameter mediaType: The media type, such as ``AVMediaType/video``.
    /// - Returns: The tracks of that type, in the composition's order.
    /// - Throws: Nothing: a composition's tracks are in memory.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVCompositionTrack] {
        tracks(withMediaType: mediaType)
    }

    /// The tracks that have `mediaCharacteristic`; returns at once, without I/O.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/audible``.
    /// - Returns: The tracks whose characteristics contain it.
    /// - Throws: Nothing: a composition's tracks are in memory.
    public func loadTracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) async throws -> [AVCompositionTrack] {
        tracks(withMediaCharacteristic: mediaCharacteristic)
    }
}

extension AssetFacts {
    /// A composition's values: its tracks, lasting until the longest ends; no metadata, no chapters.
    init(composition tracks: [AVCompositionTrack]) {
        self.tracks = tracks
        mediaSelectionGroups = MediaSelectionRules.groups(of: tracks) { $0.facts.isEnabled }
        metadata = []
        commonMetadata = []
        availableMetadataFormats = []
        isPlayable = tracks.allSatisfy { $0.facts.isPlayable }
        isExportable = true
        isReadable = true
        isComposable = true
        hasProtectedContent = false
        canContainFragments = false
        containsFragments = false
        availableChapterLocales = []
        chapters = []
        streams = []
        timing = Timing(duration: AVComposition.duration(of: tracks), providesPreciseDurationAndTiming: true, overallDurationHint: .invalid)
    }
}
