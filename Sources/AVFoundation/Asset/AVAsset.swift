internal import MediaEngine
import Foundation
import Synchronization

/// Lets `AVAsset(url:)` create an `AVURLAsset`, as Apple's class cluster does. Not for direct use.
public protocol _AVAssetURLInitializable {}

extension _AVAssetURLInitializable {
    /// Creates an `AVURLAsset` for `URL` with no options. Does no I/O.
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
public class AVAsset: NSObject, NSCopying, AVAsynchronousKeyValueLoading, _AVAssetURLInitializable, @unchecked Sendable {
    // @unchecked Sendable: state lives in the status table (behind its Mutex) and in atomics.
    let properties = PropertyStore()
    /// How many times the header was parsed: one per asset, however many keys load (tests read it).
    let headerParses = Atomic<Int>(0)

    override init() {
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// Whether `duration` and timing must be exact even where the header only estimates them.
    var prefersPreciseDurationAndTiming: Bool { false }

    /// The keys a header parse fills or fails; the legacy string API and status(of:) read them.
    static let keys: [AVAnyAsyncProperty] = [
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
    ]

    // MARK: - Where the bytes come from (AVURLAsset overrides these)

    /// The source of the asset's bytes. Called on an engine thread (opening a file may block).
    func makeByteSource() throws -> any ByteSource {
        throw AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "This asset has no media to load."])
    }

    /// A failure known before any I/O worth doing (a missing local file); the legacy API reports it at once.
    func immediateFailure() -> AVError? { nil }

    // MARK: - The header parse and the packet scan

    /// The parsed header: shared by every load of the asset; parsed once. The open, the parse and the
    /// building of tracks and metadata all run in one job on the engine's threads.
    func header() async throws -> AssetHeader {
        try await properties.value("_header") { [self] in
            do {
                return install(try await IOExecutor.shared.run { token in try self.parseHeader(cancellation: token) })
            } catch {
                throw failHeader(error)
            }
        }
    }

    /// The parsed header, parsing it on the calling thread when no load has yet. Blocking.
    func blockingHeader() throws -> AssetHeader {
        if let header = properties.loadedValue("_header") as? AssetHeader { return header }
        if case .failed(let error) = properties.status("_header") { throw AVError(bridging: error) }
        do {
            return install(try parseHeader(cancellation: CancellationToken()))
        } catch {
            throw failHeader(error)
        }
    }

    /// Opens the container and builds the header. Blocking: runs on an engine thread (or, for the
    /// deprecated synchronous getters, on the caller's).
    private func parseHeader(cancellation: CancellationToken) throws -> AssetHeader {
        let demuxer = try Demuxer(source: makeByteSource(), options: DemuxerOptions(), cancellation: cancellation)
        return AssetHeader(demuxer: demuxer, asset: self, precise: prefersPreciseDurationAndTiming)
    }

    private func install(_ header: AssetHeader) -> AssetHeader {
        headerParses.add(1, ordering: .relaxed)
        var values = header.values
        values["_header"] = header
        properties.fill(values)
        return header
    }

    /// Records a header failure on every header-level key (not a cancellation: that leaves keys free to
    /// load again) and returns the error as an AVError.
    private func failHeader(_ error: any Error) -> any Error {
        let mapped = AVError.converting(error)
        if !PropertyStore.isCancellation(mapped) {
            properties.fail(AVAsset.keys.map(\.key) + ["_header"], error: mapped)
        }
        return mapped
    }

    /// Packet statistics of every stream: one pass over the file, on an engine thread. The demuxer keeps
    /// the result and serialises concurrent requests, so the asset and its tracks share one pass.
    func packetStatistics() async throws -> [PacketStatistics] {
        let demuxer = try await header().demuxer
        return try await AVError.converting { try await demuxer.scanPackets() }
    }

    /// The value of an asset key: from the header, or from the packet scan for exact timing.
    func headerValue<V>(_ key: String) async throws -> V {
        let header = try await header()
        if let raw = header.values[key], let value = raw as? V { return value }
        let stats = try await packetStatistics()
        guard let value = scannedValue(key, header: header, stats: stats) as? V else {
            preconditionFailure("asset property \(key) has no value of type \(V.self)")
        }
        return value
    }

    func scannedValue(_ key: String, header: AssetHeader, stats: [PacketStatistics]) -> Any {
        let duration = header.scannedDuration(stats)
        switch key {
        case "duration": return duration
        case "providesPreciseDurationAndTiming": return true
        case "overallDurationHint": return (header.info.mp4Boxes?.canContainFragments ?? false) ? duration : CMTime.invalid
        default: preconditionFailure("no scanned value for \(key)")
        }
    }

    /// The value of an asset key for the deprecated synchronous getters: loaded, or loaded now on the
    /// calling thread; `fallback` when loading fails.
    func blockingValue<V>(_ key: String, fallback: V) -> V {
        if let raw = properties.loadedValue(key), let value = raw as? V { return value }
        do {
            let header = try blockingHeader()
            if let raw = header.values[key], let value = raw as? V { return value }
            let stats = try header.demuxer.scanPackets(cancellation: CancellationToken())
            let value = scannedValue(key, header: header, stats: stats)
            properties.fill([key: value])
            return value as? V ?? fallback
        } catch {
            return fallback
        }
    }

    // MARK: - Legacy key-value loading

    @available(*, deprecated, message: "Use status(of:) instead")
    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        KeyValueLoading.status(of: key, in: properties, knownKeys: AVAsset.keys, error: outError)
    }

    @available(*, deprecated, message: "Use load(_:) instead")
    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (() -> Void)?) {
        KeyValueLoading.load(self, keys: keys, store: properties, knownKeys: AVAsset.keys,
                             immediateFailure: immediateFailure(), handler: handler)
    }

    /// Cancels every load of this asset and its tracks in flight. Waiting loads throw
    /// `AVError(.operationCancelled)`; their keys report cancelled and may be loaded again.
    public func cancelLoading() {
        if let tracks = properties.loadedValue("tracks") as? [AVAssetTrack] {
            for track in tracks { track.properties.cancelAll() }
        }
        properties.cancelAll()
    }
}
