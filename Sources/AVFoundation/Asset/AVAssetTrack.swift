internal import MediaEngine
import Foundation

/// One uniformly typed stream of an asset: video, audio, subtitles, ...
///
/// Tracks come from an asset's header parse, so nearly every property is loaded when the track exists:
/// ``AVAsynchronousKeyValueLoading/load(_:)`` returns at once for them. `totalSampleDataLength` and
/// `estimatedDataRate` need a pass over the file's packets for containers without a complete sample
/// index (everything but MP4/MOV); that pass runs on the engine's threads, once per asset, only when
/// one of them is asked for.
open class AVAssetTrack: NSObject, AVAsynchronousKeyValueLoading, _AVAssetAccessors, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the shared scan guards itself (a composition's track
    // keeps its state behind a lock of its own).
    /// The track's ID: the container's, or its position from 1 where the container has none or repeats them.
    public let trackID: CMPersistentTrackID
    /// The kind of media the track holds.
    public let mediaType: AVMediaType
    /// The asset that owns this track (not retained).
    public private(set) weak var asset: AVAsset?

    /// A stream of a container, and the byte source that reads it.
    struct FileTrack: Sendable {
        /// The asset's byte source and its shared packet scan, held strongly: a track keeps loading
        /// after its asset is gone (the source holds nothing that refers back, so there is no cycle).
        let source: AssetSource
        let stream: StreamInfo
        /// The asset's URL (an `AVURLAsset`'s), kept for compositions that refer to the track.
        let url: URL?
    }

    /// Where the media is: a file's stream, or nil for a composition's track (whose segments say).
    let file: FileTrack?
    /// The values the header gave (a composition track's come from its segments instead).
    private let headerFacts: TrackFacts

    init(asset: AVAsset, source: AssetSource, trackID: CMPersistentTrackID, mediaType: AVMediaType, stream: StreamInfo, facts: TrackFacts) {
        self.asset = asset
        self.file = FileTrack(source: source, stream: stream, url: (asset as? AVURLAsset)?.url)
        self.trackID = trackID
        self.mediaType = mediaType
        self.headerFacts = facts
        super.init()
    }

    /// A track without a file stream of its own (a composition's), whose `facts` its subclass gives.
    init(asset: AVAsset, trackID: CMPersistentTrackID, mediaType: AVMediaType, facts: TrackFacts) {
        self.asset = asset
        self.file = nil
        self.trackID = trackID
        self.mediaType = mediaType
        self.headerFacts = facts
        super.init()
    }

    /// The values of the track's properties: the header's, for a file's track. Every property that
    /// `facts` gives loads at once.
    var facts: TrackFacts { headerFacts }

    /// The statistics of the one packet scan of the track's file (started by the first caller).
    func packetStatistics() async throws -> [PacketStatistics] {
        guard let file else { return [] }
        return try await file.source.packetStatistics()
    }

    func blockingPacketStatistics() -> Result<[PacketStatistics], any Error> {
        guard let file else { return .success([]) }
        return file.source.blockingPacketStatistics()
    }

    func packetScanStatus() -> LoadStatus<[PacketStatistics]> {
        guard let file else { return .loaded([]) }
        return file.source.scan.status()
    }

    /// The track's ID and media type.
    open override var description: String {
        "<AVAssetTrack trackID=\(trackID) mediaType=\(mediaType.rawValue)>"
    }

    /// The loadable keys, for the legacy string API (and the probe that loads every one of them).
    package static let keys: [AVAnyAsyncProperty] = [
        AVPartialAsyncProperty<AVAssetTrack>.formatDescriptions, AVPartialAsyncProperty<AVAssetTrack>.isPlayable,
        AVPartialAsyncProperty<AVAssetTrack>.isDecodable, AVPartialAsyncProperty<AVAssetTrack>.isEnabled,
        AVPartialAsyncProperty<AVAssetTrack>.isSelfContained, AVPartialAsyncProperty<AVAssetTrack>.totalSampleDataLength,
        AVPartialAsyncProperty<AVAssetTrack>.mediaCharacteristics, AVPartialAsyncProperty<AVAssetTrack>.timeRange,
        AVPartialAsyncProperty<AVAssetTrack>.naturalTimeScale, AVPartialAsyncProperty<AVAssetTrack>.estimatedDataRate,
        AVPartialAsyncProperty<AVAssetTrack>.languageCode, AVPartialAsyncProperty<AVAssetTrack>.extendedLanguageTag,
        AVPartialAsyncProperty<AVAssetTrack>.naturalSize, AVPartialAsyncProperty<AVAssetTrack>.preferredTransform,
        AVPartialAsyncProperty<AVAssetTrack>.preferredVolume, AVPartialAsyncProperty<AVAssetTrack>.nominalFrameRate,
        AVPartialAsyncProperty<AVAssetTrack>.minFrameDuration, AVPartialAsyncProperty<AVAssetTrack>.requiresFrameReordering,
        AVPartialAsyncProperty<AVAssetTrack>.metadata, AVPartialAsyncProperty<AVAssetTrack>.commonMetadata,
        AVPartialAsyncProperty<AVAssetTrack>.availableMetadataFormats, AVPartialAsyncProperty<AVAssetTrack>.segments,
        AVPartialAsyncProperty<AVAssetTrack>.hasAudioSampleDependencies,
    ]

    /// This track's share of the packet scan's statistics (empty if the scan saw fewer streams).
    func scanned(_ stats: [PacketStatistics]) -> ScannedTrackFacts {
        guard let stream = file?.stream else { return ScannedTrackFacts(PacketStatistics(), stream: nil) }
        return ScannedTrackFacts(stream.index < stats.count ? stats[stream.index] : PacketStatistics(), stream: stream)
    }

    // MARK: - Legacy key-value loading

    /// Where the value for `key` stands, without starting a load (see
    /// ``AVAsynchronousKeyValueLoading/statusOfValue(forKey:error:)``).
    ///
    /// - Parameters:
    ///   - key: The property's name, such as `"naturalSize"`.
    ///   - outError: Receives the reason when the status is failed or cancelled; may be nil.
    /// - Returns: The key's status; ``AVKeyValueStatus/unknown`` for a key never asked for or unknown.
    @available(*, deprecated, message: "Use status(of:) instead")
    open func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        KeyValueLoading.status(of: key, in: self, knownKeys: AVAssetTrack.keys, error: outError)
    }

    /// Loads the values of `keys` and calls `handler` exactly once (see
    /// ``AVAsynchronousKeyValueLoading/loadValuesAsynchronously(forKeys:completionHandler:)``).
    ///
    /// - Parameters:
    ///   - keys: The properties' names, such as `"naturalSize"` and `"totalSampleDataLength"`.
    ///   - handler: Runs on the calling thread when every key is already settled, otherwise on a
    ///     background queue once every key has loaded, failed or been cancelled.
    @available(*, deprecated, message: "Use load(_:) instead")
    open func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (() -> Void)?) {
        KeyValueLoading.load(self, keys: keys, knownKeys: AVAssetTrack.keys, handler: handler)
    }

    // MARK: - Segments and metadata

    /// The segment that holds `trackTime`. May need the packet scan of the track's file (on the
    /// engine's threads, once per asset).
    ///
    /// - Parameter trackTime: A time on the track's timeline.
    /// - Returns: The segment whose target time range contains `trackTime`, or nil when none does.
    /// - Throws: The load's error, as ``AVAsynchronousKeyValueLoading/load(_:)`` throws it.
    open func loadSegment(forTrackTime trackTime: CMTime) async throws -> AVAssetTrackSegment? {
        try await load(.segments).first { $0.timeMapping.target.containsTime(trackTime) }
    }

    /// The track's metadata items in `format`.
    ///
    /// - Parameter format: The format, such as ``AVMetadataFormat/quickTimeUserData``.
    /// - Returns: The items of the track's metadata whose key space belongs to that format; empty when
    ///   there are none.
    /// - Throws: The load's error, as ``AVAsynchronousKeyValueLoading/load(_:)`` throws it.
    open func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        try await load(.metadata).filter { $0.keySpace?.format == format }
    }
}
