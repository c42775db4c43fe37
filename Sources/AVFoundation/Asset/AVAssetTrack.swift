internal import MediaEngine
import Foundation

/// One uniformly typed stream of an asset: video, audio, subtitles, ...
///
/// Tracks come from an asset's header parse, so nearly every property is loaded when the track exists:
/// `load(_:)` returns at once for them. `totalSampleDataLength` and `estimatedDataRate` need a pass
/// over the file's packets for containers without a complete sample index (everything but MP4/MOV);
/// that pass runs on the engine's threads, once per asset, only when one of them is asked for.
public class AVAssetTrack: NSObject, AVAsynchronousKeyValueLoading, @unchecked Sendable {
    // @unchecked Sendable: immutable after init except the status table, which guards itself.
    public let trackID: CMPersistentTrackID
    public let mediaType: AVMediaType
    /// The asset that owns this track (not retained).
    public private(set) weak var asset: AVAsset?

    let properties = PropertyStore()
    /// The open container, held strongly: a track keeps loading after its asset is gone (the demuxer
    /// holds no reference back, so there is no cycle).
    let demuxer: Demuxer
    let stream: StreamInfo
    /// Index of the stream in the container, for packet statistics.
    let streamIndex: Int

    init(asset: AVAsset, demuxer: Demuxer, trackID: CMPersistentTrackID, mediaType: AVMediaType, stream: StreamInfo, values: [String: Any]) {
        self.asset = asset
        self.demuxer = demuxer
        self.trackID = trackID
        self.mediaType = mediaType
        self.stream = stream
        self.streamIndex = stream.index
        super.init()
        properties.fill(values)
    }

    public override var description: String {
        "<AVAssetTrack trackID=\(trackID) mediaType=\(mediaType.rawValue)>"
    }

    /// The loadable keys, for the legacy string API.
    static let keys: [AVAnyAsyncProperty] = [
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

    /// A value that needs the packet scan (it was not known from the header).
    /// One pass over the file's packets, kept by the demuxer, on an engine thread.
    func scannedValue(_ key: String) async throws -> Any {
        let stats = try await AVError.converting { try await demuxer.scanPackets() }
        return TrackFacts.scanned(key, stats: stats[streamIndex], stream: stream)
    }

    func scannedValueBlocking(_ key: String) throws -> Any {
        let stats = try AVError.converting { try demuxer.scanPackets(cancellation: CancellationToken()) }
        return TrackFacts.scanned(key, stats: stats[streamIndex], stream: stream)
    }

    // MARK: - Legacy key-value loading

    @available(*, deprecated, message: "Use status(of:) instead")
    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        KeyValueLoading.status(of: key, in: properties, knownKeys: AVAssetTrack.keys, error: outError)
    }

    @available(*, deprecated, message: "Use load(_:) instead")
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (() -> Void)?) {
        KeyValueLoading.load(self, keys: keys, store: properties, knownKeys: AVAssetTrack.keys, immediateFailure: nil, handler: handler)
    }

    // MARK: - Segments and metadata

    /// The segment that holds `trackTime`, or nil when none does.
    public func loadSegment(forTrackTime trackTime: CMTime) async throws -> AVAssetTrackSegment? {
        try await load(.segments).first { $0.timeMapping.target.containsTime(trackTime) }
    }

    /// The track's metadata items in `format`.
    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        try await load(.metadata).filter { $0.keySpace?.format == format }
    }
}
