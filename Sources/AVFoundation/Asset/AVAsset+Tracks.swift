import Dispatch
import Foundation

extension _AVAssetAccessors where Self: AVAsset {
    /// The tracks of `mediaType`. Loads the header if needed (on the engine's threads).
    ///
    /// - Parameter mediaType: The media type, such as ``AVMediaType/video``.
    /// - Returns: The tracks of that type, in the asset's order; empty when it has none.
    /// - Throws: The header load's error, as ``AVAsset/load(_:)`` throws it.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try await load(.tracks).filter { $0.mediaType == mediaType }
    }

    /// The track with `trackID`. Loads the header if needed (on the engine's threads).
    ///
    /// - Parameter trackID: The track's ``AVAssetTrack/trackID``.
    /// - Returns: The track, or nil when the asset has no track with that ID.
    /// - Throws: The header load's error, as ``AVAsset/load(_:)`` throws it.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        try await load(.tracks).first { $0.trackID == trackID }
    }

    /// The tracks that have `mediaCharacteristic`. Loads the header, and each track's
    /// characteristics, if needed.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/audible``.
    /// - Returns: The tracks whose ``AVAssetTrack/mediaCharacteristics`` contain it, in the asset's
    ///   order.
    /// - Throws: The first load's error, as ``AVAsset/load(_:)`` throws it.
    public func loadTracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) async throws -> [AVAssetTrack] {
        let tracks = try await load(.tracks)
        var result: [AVAssetTrack] = []
        for track in tracks {
            let characteristics = try await track.load(.mediaCharacteristics)
            if characteristics.contains(mediaCharacteristic) { result.append(track) }
        }
        return result
    }

}

extension AVAsset {
    /// The asset's metadata items in `format`. Loads the header if needed.
    ///
    /// - Parameter format: The format, such as ``AVMetadataFormat/quickTimeMetadata``.
    /// - Returns: The items of ``AVAsset/metadata`` whose key space belongs to that format; empty when
    ///   there are none.
    /// - Throws: The header load's error, as ``AVAsset/load(_:)`` throws it.
    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        try await load(.metadata).filter { $0.keySpace?.format == format }
    }

    /// Calls `completionHandler` on a background queue with the tracks of `mediaType`, or the error
    /// (see ``loadTracks(withMediaType:)``).
    ///
    /// - Parameters:
    ///   - mediaType: The media type, such as ``AVMediaType/video``.
    ///   - completionHandler: Receives the tracks and nil, or nil and the error; called exactly once.
    public func loadTracks(withMediaType mediaType: AVMediaType,
                           completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await self.loadTracks(withMediaType: mediaType) }
    }

    /// Calls `completionHandler` on a background queue with the track (or nil), or the error (see
    /// ``loadTrack(withTrackID:)``).
    ///
    /// - Parameters:
    ///   - trackID: The track's ``AVAssetTrack/trackID``.
    ///   - completionHandler: Receives the track (nil when there is none) and nil, or nil and the
    ///     error; called exactly once.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID,
                          completionHandler: @escaping @Sendable (AVAssetTrack?, (any Error)?) -> Void) {
        AVAsset.complete({ track, error in completionHandler(track ?? nil, error) }) { try await self.loadTrack(withTrackID: trackID) }
    }

    /// Calls `completionHandler` on a background queue with the tracks that have the characteristic,
    /// or the error (see ``loadTracks(withMediaCharacteristic:)``).
    ///
    /// - Parameters:
    ///   - mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/audible``.
    ///   - completionHandler: Receives the tracks and nil, or nil and the error; called exactly once.
    public func loadTracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic,
                           completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await self.loadTracks(withMediaCharacteristic: mediaCharacteristic) }
    }

    /// Calls `completionHandler` on a background queue with the metadata in `format`, or the error (see
    /// ``loadMetadata(for:)``).
    ///
    /// - Parameters:
    ///   - format: The format, such as ``AVMetadataFormat/quickTimeMetadata``.
    ///   - completionHandler: Receives the items and nil, or nil and the error; called exactly once.
    public func loadMetadata(for format: AVMetadataFormat,
                             completionHandler: @escaping @Sendable ([AVMetadataItem]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await self.loadMetadata(for: format) }
    }

    /// Runs `work` and hands its result to `handler` exactly once, on a global queue.
    static func complete<T>(_ handler: @escaping @Sendable (T?, (any Error)?) -> Void,
                            _ work: @escaping @Sendable () async throws -> T) {
        Task.detached {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            let boxed = UncheckedBox(result)
            DispatchQueue.global().async {
                switch boxed.value {
                case .success(let value): handler(value, nil)
                case .failure(let error): handler(nil, error)
                }
            }
        }
    }
}
