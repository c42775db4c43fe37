import Foundation

/// A composition an app builds: add tracks, insert time ranges of other assets, remove and scale.
///
/// Edits change the in-memory segment tables only; the synchronous `insertTimeRange(_:of:at:)` loads
/// the inserted asset's tracks first if they are not loaded (waiting on the calling thread, as
/// Apple's does), and the async one loads them without blocking. Edit from one thread at a time, as
/// on Apple's platforms.
open class AVMutableComposition: AVComposition, @unchecked Sendable {
    /// An empty composition.
    public init() {
        super.init(options: [:])
    }

    /// An empty composition whose segments given by URL alone are read with ``AVURLAsset``s made with
    /// these options.
    ///
    /// - Parameter URLAssetInitializationOptions: Options as ``AVURLAsset/init(url:options:)`` takes
    ///   them; nil for none.
    public convenience init(urlAssetInitializationOptions URLAssetInitializationOptions: [String: Any]? = nil) {
        self.init(options: URLAssetInitializationOptions ?? [:])
    }

    override init(options: [String: Any]) {
        super.init(options: options)
    }

    /// The natural size: the first video track's unless set; set `.zero` to go back to that.
    open override var naturalSize: CGSize {
        get { super.naturalSize }
        set { state.withLock { $0.naturalSize = newValue } }
    }

    /// An immutable snapshot: the tracks as they are now, later edits not included.
    open override func copy(with zone: NSZone? = nil) -> Any {
        AVComposition(copying: self, mutable: false)
    }

    // MARK: - Tracks

    /// Adds an empty track of `mediaType`.
    ///
    /// - Parameters:
    ///   - mediaType: The track's media type, such as ``AVMediaType/video``.
    ///   - preferredTrackID: The ID wanted. When it is `kCMPersistentTrackID_Invalid`, not positive, or
    ///     has been used by a track of this composition, the track gets one no track has had.
    /// - Returns: The new track; nil only when every ID is taken.
    open func addMutableTrack(withMediaType mediaType: AVMediaType, preferredTrackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        state.withLock { state in addTrack(mediaType, preferredTrackID: preferredTrackID, to: &state) }
    }

    private func addTrack(_ mediaType: AVMediaType, preferredTrackID: CMPersistentTrackID, to state: inout State,
                          values: CompositionTrackState? = nil) -> AVMutableCompositionTrack? {
        var id = preferredTrackID
        if id <= 0 || state.usedTrackIDs.contains(id) { id = AVComposition.unusedTrackID(in: state) }
        guard id != kCMPersistentTrackID_Invalid else { return nil }
        let track = AVMutableCompositionTrack(composition: self, trackID: id, mediaType: mediaType,
                                              state: values ?? CompositionTrackState(mediaType: mediaType))
        state.usedTrackIDs.insert(id)
        state.tracks.append(track)
        return track
    }

    /// Removes `track` from the composition (its ID is not given to a later track).
    ///
    /// - Parameter track: A track of this composition; another is ignored.
    open func removeTrack(_ track: AVCompositionTrack) {
        state.withLock { $0.tracks.removeAll { $0 === track } }
    }

    /// A track of the composition that time ranges of `track` can be inserted into.
    ///
    /// - Parameter track: A track of another asset.
    /// - Returns: The first track of the same media type (composition tracks take segments of any
    ///   format of their type), or nil when there is none.
    open func mutableTrack(compatibleWith track: AVAssetTrack) -> AVMutableCompositionTrack? {
        mutableTracks.first { $0.mediaType == track.mediaType }
    }

    var mutableTracks: [AVMutableCompositionTrack] { currentTracks.compactMap { $0 as? AVMutableCompositionTrack } }

    // MARK: - Edits of every track

    /// Inserts `timeRange` of every track of `asset` at `startTime`, pushing later content out. Each
    /// source track goes into a compatible track of the composition (one per source track), or a new
    /// one whose preferred transform, volume, language and enabled state are the source track's; tracks
    /// that get nothing from `asset` get empty time, so all stay in step. Loads `asset`'s tracks first
    /// if needed, waiting on the calling thread.
    ///
    /// - Parameters:
    ///   - timeRange: The part of `asset` to insert: it starts at or after zero and lasts a positive
    ///     time.
    ///   - asset: A file's asset or another composition.
    ///   - startTime: Where the inserted media starts in the composition: at or after zero.
    /// - Throws: The asset's loading error;
    ///   ``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceStartTime`` or
    ///   ``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceDuration`` for a range that does
    ///   not start at or after zero or does not last a positive time;
    ///   ``AVError/Code-swift.enum/compositionTrackSegmentsNotContiguous`` for a `startTime` before
    ///   zero. Nothing changes then.
    @available(*, deprecated, message: "Use insertTimeRange(_:of:at:) async instead")
    open func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime) throws {
        try insert(timeRange, of: try asset.blockingFacts().get().tracks, at: startTime)
    }

    /// The same, loading `asset`'s tracks without blocking (on the engine's threads, for a file).
    ///
    /// - Parameters:
    ///   - timeRange: The part of `asset` to insert: it starts at or after zero and lasts a positive
    ///     time.
    ///   - asset: A file's asset or another composition.
    ///   - startTime: Where the inserted media starts in the composition: at or after zero.
    /// - Throws: As the synchronous form does; nothing changes then.
    open func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime) async throws {
        try insert(timeRange, of: try await asset.load(.tracks), at: startTime)
    }

    /// The same, calling `completionHandler` when done.
    ///
    /// - Parameters:
    ///   - timeRange: The part of `asset` to insert.
    ///   - asset: A file's asset or another composition.
    ///   - startTime: Where the inserted media starts in the composition.
    ///   - completionHandler: Gets nil, or the error the async form throws, once, on a background queue.
    open func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime,
                                completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        let box = UncheckedBox(self)
        AVAsset.complete({ (_: Void?, error: (any Error)?) in completionHandler(error) }) {
            try await box.value.insertTimeRange(timeRange, of: asset, at: startTime)
        }
    }

    private func insert(_ timeRange: CMTimeRange, of sources: [AVAssetTrack], at startTime: CMTime) throws {
        try CompositionEdit.check(timeRange, at: startTime)
        // Work out every track's pieces first, so that a failure changes nothing.
        var plans: [(track: AVMutableCompositionTrack?, source: AVAssetTrack, pieces: [SegmentTable.Segment])] = []
        var taken: [AVMutableCompositionTrack] = []
        for source in sources {
            let pieces = try CompositionEdit.pieces(of: source, in: timeRange, at: startTime, into: source.mediaType)
            let target = mutableTracks.first { track in track.mediaType == source.mediaType && !taken.contains { $0 === track } }
            if let target { taken.append(target) }
            plans.append((target, source, pieces))
        }
        let untouched = mutableTracks.filter { track in !taken.contains { $0 === track } }
        for plan in plans {
            let track = plan.track ?? state.withLock { state in
                var values = CompositionTrackState(mediaType: plan.source.mediaType)
                let facts = plan.source.facts
                values.preferredTransform = facts.preferredTransform
                values.preferredVolume = facts.preferredVolume
                values.languageCode = facts.languageCode
                values.extendedLanguageTag = facts.extendedLanguageTag
                values.isEnabled = facts.isEnabled
                return addTrack(plan.source.mediaType, preferredTrackID: plan.source.trackID, to: &state, values: values)
            }
            track?.state.withLock { $0.table.insert(plan.pieces, at: startTime) }
        }
        for track in untouched {
            track.insertEmptyTimeRange(CMTimeRange(start: startTime, duration: timeRange.duration))
        }
    }

    /// Inserts empty time in every track at `timeRange.start` (nothing past a track's end).
    ///
    /// - Parameter timeRange: Where the empty time starts, and how long it lasts.
    open func insertEmptyTimeRange(_ timeRange: CMTimeRange) {
        for track in mutableTracks { track.insertEmptyTimeRange(timeRange) }
    }

    /// Removes `timeRange` from every track, pulling later content in; tracks are kept even when
    /// emptied.
    ///
    /// - Parameter timeRange: The part of the composition's timeline to remove.
    open func removeTimeRange(_ timeRange: CMTimeRange) {
        for track in mutableTracks { track.removeTimeRange(timeRange) }
    }

    /// Scales `timeRange` of every track to last `duration`, moving later content with its end.
    ///
    /// - Parameters:
    ///   - timeRange: The part of the composition's timeline to scale.
    ///   - duration: How long that part lasts afterwards.
    open func scaleTimeRange(_ timeRange: CMTimeRange, toDuration duration: CMTime) {
        for track in mutableTracks { track.scaleTimeRange(timeRange, toDuration: duration) }
    }
}

// The accessors whose types differ from AVComposition's (see `_AVAssetAccessors`).
extension _AVAssetAccessors where Self: AVMutableComposition {
    /// The composition's tracks, synchronously.
    public var tracks: [AVMutableCompositionTrack] { mutableTracks }

    /// The track with `trackID`, synchronously.
    ///
    /// - Parameter trackID: The track's ID.
    /// - Returns: The track; nil when the composition has none with that ID.
    public func track(withTrackID trackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        mutableTracks.first { $0.trackID == trackID }
    }

    /// The tracks of `mediaType`, synchronously.
    ///
    /// - Parameter mediaType: The media type, such as ``AVMediaType/audio``.
    /// - Returns: The tracks of that type, in the composition's order.
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVMutableCompositionTrack] {
        mutableTracks.filter { $0.mediaType == mediaType }
    }

    /// The tracks that have `mediaCharacteristic`, synchronously.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/visual``.
    /// - Returns: The tracks whose characteristics contain it.
    public func tracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> [AVMutableCompositionTrack] {
        mutableTracks.filter { $0.mediaCharacteristics.contains(mediaCharacteristic) }
    }
}
