import Dispatch
import Foundation

extension _AVAssetAccessors where Self: AVAsset {
    /// The tracks of `mediaType`. Loads the header if needed (on the engine's threads).
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try await load(.tracks).filter { $0.mediaType == mediaType }
    }

    /// The track with `trackID`, or nil.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        try await load(.tracks).first { $0.trackID == trackID }
    }

    /// The tracks that have `mediaCharacteristic`.
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
    /// The asset's metadata items in `format`.
    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        try await load(.metadata).filter { $0.keySpace?.format == format }
    }

    /// Calls `completionHandler` on a background queue with the tracks of `mediaType`, or the error.
    public func loadTracks(withMediaType mediaType: AVMediaType,
                           completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await self.loadTracks(withMediaType: mediaType) }
    }

    /// Calls `completionHandler` on a background queue with the track (or nil), or the error.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID,
                          completionHandler: @escaping @Sendable (AVAssetTrack?, (any Error)?) -> Void) {
        AVAsset.complete({ track, error in completionHandler(track ?? nil, error) }) { try await self.loadTrack(withTrackID: trackID) }
    }

    /// Calls `completionHandler` on a background queue with the tracks that have the characteristic.
    public func loadTracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic,
                           completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await self.loadTracks(withMediaCharacteristic: mediaCharacteristic) }
    }

    /// Calls `completionHandler` on a background queue with the metadata in `format`, or the error.
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
