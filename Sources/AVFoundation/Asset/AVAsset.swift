internal import MediaEngine
import Foundation
import Synchronization

/// Lets `AVAsset(url:)` create an ``AVURLAsset``, as Apple's class cluster does. Not for direct use.
public protocol _AVAssetURLInitializable {}

extension _AVAssetURLInitializable {
    /// Creates an ``AVURLAsset`` for `URL` with no options. Does no I/O.
    ///
    /// - Parameter URL: A file URL, an http(s) URL, or a URL a resource loader delegate serves.
    public init(url URL: URL) {
        guard let asset = AVURLAsset(url: URL, options: nil) as? Self else {
            preconditionFailure("init(url:) makes an AVURLAsset; \(Self.self) cannot hold one")
        }
        self = asset
    }
}

/// A timed media resource: its duration, tracks and metadata, loaded asynchronously on demand.
///
/// Creating an asset does no I/O. The first load of any header-level property (duration, tracks,
/// metadata, playable, ...) parses the container once, on the engine's threads, and fills every
/// header-level property at once; later loads return at once. Loads never block the calling thread.
/// Once loaded, an asset keeps its facts, not the file: it holds no file descriptor while nothing loads.
open class AVAsset: NSObject, NSCopying, AVAsynchronousKeyValueLoading, _AVAssetURLInitializable, _AVAssetAccessors, @unchecked Sendable {
    // @unchecked Sendable: state lives in the shared loads (behind their locks) and in atomics.
    /// Where the bytes come from, and the packet scan the asset and its tracks share.
    let source: AssetSource
    /// The header parse: every header-level property comes from its one result.
    let headerLoad: SharedLoad<AssetFacts>
    /// How many times the header was parsed: one per asset, however many keys load (tests read it).
    let headerParses = Atomic<Int>(0)

    /// An asset whose bytes come from `open` (called on an engine thread for each piece of work).
    init(options: DemuxerOptions = DemuxerOptions(), open: @escaping @Sendable () throws -> any ByteSource) {
        source = AssetSource(options: options, open: open)
        headerLoad = SharedLoad()
        super.init()
    }

    /// An asset whose bytes a slow feeder brings into `feed`, one cache for every piece of work; each
    /// piece starts by forgetting an earlier failure of the feeder (a timeout, a server error). With
    /// `restartsHeaderParse`, the header parse holds an engine thread only while bytes are there to
    /// parse (see `IOExecutor.submitRestarting`); without (a playlist, whose parse opens many sources),
    /// it waits on its thread, set aside from the engine's.
    init(feed: BufferedByteSource, restartsHeaderParse: Bool = true, options: DemuxerOptions = DemuxerOptions()) {
        source = AssetSource(options: options) {
            feed.recoverIfFailed()
            return feed
        }
        headerLoad = SharedLoad(restartingOver: restartsHeaderParse ? feed : nil, readBudget: BufferedByteSource.headerReadBudget)
        super.init()
    }

    override init() {
        source = AssetSource {
            throw AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "This asset has no media to load."])
        }
        headerLoad = SharedLoad()
        super.init()
    }

    /// The asset itself: assets are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Whether `duration` and timing must be exact even where the header only estimates them.
    var prefersPreciseDurationAndTiming: Bool { false }

    /// The loadable keys, for the legacy string API (and the probe that loads every one of them).
    package static let keys: [AVAnyAsyncProperty] = [
        AVPartialAsyncProperty<AVAsset>.duration, AVPartialAsyncProperty<AVAsset>.providesPreciseDurationAndTiming,
        AVPartialAsyncProperty<AVAsset>.tracks, AVPartialAsyncProperty<AVAsset>.metadata,
        AVPartialAsyncProperty<AVAsset>.commonMetadata, AVPartialAsyncProperty<AVAsset>.availableMetadataFormats,
        AVPartialAsyncProperty<AVAsset>.creationDate, AVPartialAsyncProperty<AVAsset>.lyrics,
        AVPartialAsyncProperty<AVAsset>.isPlayable, AVPartialAsyncProperty<AVAsset>.isExportable,
        AVPartialAsyncProperty<AVAsset>.isReadable, AVPartialAsyncProperty<AVAsset>.isComposable,
        AVPartialAsyncProperty<AVAsset>.preferredRate, AVPartialAsyncProperty<AVAsset>.preferredVolume,
        AVPartialAsyncProperty<AVAsset>.preferredTransform, AVPartialAsyncProperty<AVAsset>.hasProtectedContent,
        AVPartialAsyncProperty<AVAsset>.canContainFragments, AVPartialAsyncProperty<AVAsset>.containsFragments,
        AVPartialAsyncProperty<AVAsset>.overallDurationHint, AVPartialAsyncProperty<AVAsset>.availableChapterLocales,
        AVPartialAsyncProperty<AVAsset>.trackGroups,
        AVPartialAsyncProperty<AVAsset>.availableMediaCharacteristicsWithMediaSelectionOptions,
        AVPartialAsyncProperty<AVAsset>.preferredMediaSelection, AVPartialAsyncProperty<AVAsset>.allMediaSelections,
    ]

    /// A failure known before any I/O worth doing (a missing local file); the legacy API reports it at once.
    func immediateFailure() -> AVError? { nil }

    // MARK: - The header parse

    /// The parsed header's facts: shared by every load of the asset; parsed once. The open, the parse
    /// and the building of tracks and metadata run in one job on the engine's threads, and the file is
    /// closed when it ends.
    func facts() async throws -> AssetFacts {
        try await headerLoad.value(parseOperation)
    }

    /// The facts, waiting on the calling thread while the engine parses (deprecated getters only).
    func blockingFacts() -> Result<AssetFacts, any Error> {
        headerLoad.blockingValue(parseOperation)
    }

    /// Where the facts stand, without loading them. (A composition's are always loaded: it overrides
    /// all three, giving facts made from its segments.)
    func factsStatus() -> LoadStatus<AssetFacts> {
        headerLoad.status()
    }

    private var parseOperation: SharedLoad<AssetFacts>.Operation {
        { [self] token in
            let demuxer = try source.openDemuxer(cancellation: token)
            headerParses.add(1, ordering: .relaxed)
            return AssetFacts(demuxer.info, asset: self, source: source, precise: prefersPreciseDurationAndTiming)
        }
    }

    /// The error `cancelLoading()` ends loads with.
    static let cancelledError = AVError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "Loading was cancelled."])

    // MARK: - Legacy key-value loading

    /// Where the value for `key` stands, without starting a load (see
    /// ``AVAsynchronousKeyValueLoading/statusOfValue(forKey:error:)``).
    ///
    /// - Parameters:
    ///   - key: The property's name, such as `"duration"`.
    ///   - outError: Receives the reason when the status is failed or cancelled; may be nil.
    /// - Returns: The key's status; ``AVKeyValueStatus/unknown`` for a key never asked for or unknown.
    @available(*, deprecated, message: "Use status(of:) instead")
    open func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        KeyValueLoading.status(of: key, in: self, knownKeys: AVAsset.keys, error: outError)
    }

    /// Loads the values of `keys` and calls `handler` exactly once (see
    /// ``AVAsynchronousKeyValueLoading/loadValuesAsynchronously(forKeys:completionHandler:)``). A
    /// missing local file fails the header load at once, before any I/O.
    ///
    /// - Parameters:
    ///   - keys: The properties' names, such as `"duration"` and `"tracks"`.
    ///   - handler: Runs on the calling thread when every key is already settled, otherwise on a
    ///     background queue once every key has loaded, failed or been cancelled.
    @available(*, deprecated, message: "Use load(_:) instead")
    open func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (() -> Void)?) {
        if let failure = immediateFailure(), case .notYetLoaded = headerLoad.status() {
            headerLoad.fail(failure)
        }
        KeyValueLoading.load(self, keys: keys, knownKeys: AVAsset.keys, handler: handler)
    }

    /// Cancels every load of this asset and its tracks in flight. Waiting loads throw
    /// ``AVError/Code-swift.enum/operationCancelled``; their keys report cancelled and may be loaded
    /// again.
    open func cancelLoading() {
        headerLoad.cancelAll(with: AVAsset.cancelledError)
        source.scan.cancelAll(with: AVAsset.cancelledError)
    }
}
