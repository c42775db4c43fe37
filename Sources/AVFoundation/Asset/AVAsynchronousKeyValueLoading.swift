import Foundation
internal import Locking

/// Asynchronous loading of property values, adopted by ``AVAsset``, ``AVAssetTrack`` and
/// ``AVMetadataItem``.
///
/// The typed API (``load(_:)``, ``status(of:)``) and the legacy string API share one status table per
/// object: a value loaded through either is loaded for both.
public protocol AVAsynchronousKeyValueLoading {
    /// Where the value for `key` stands, without starting a load.
    ///
    /// - Parameters:
    ///   - key: The property's name, such as `"duration"`.
    ///   - outError: Receives the reason for ``AVKeyValueStatus/failed``, and an
    ///     ``AVError/Code-swift.enum/operationCancelled`` error for ``AVKeyValueStatus/cancelled``; may
    ///     be nil.
    /// - Returns: The key's status; ``AVKeyValueStatus/unknown`` for a key that was never asked for, or
    ///   that the object does not have.
    @available(*, deprecated, message: "Use status(of:) instead")
    func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus

    /// Loads the values of `keys` that are not loaded yet and calls `handler` exactly once. Check each
    /// key with ``statusOfValue(forKey:error:)`` in the handler.
    ///
    /// - Parameters:
    ///   - keys: The properties' names, such as `"duration"` and `"tracks"`; names the object does not
    ///     have are ignored.
    ///   - handler: Runs at once, on the calling thread, when every key is already loaded or has already
    ///     failed (a missing file fails at once); otherwise on a background queue when every key has
    ///     loaded, failed or been cancelled.
    @available(*, deprecated, message: "Use load(_:) instead")
    func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (() -> Void)?)
}

extension AVAsynchronousKeyValueLoading {
    /// Loads a property and returns its value: `let duration = try await asset.load(.duration)`.
    ///
    /// Never blocks the calling thread: I/O runs on the engine's own threads. Properties that come from
    /// the file's header share one header parse. Cancelling the calling task ends the wait at once (and
    /// the load itself when nobody else waits for it).
    ///
    /// - Parameter property: The property, such as `.duration` or `.tracks`.
    /// - Returns: The property's value, loaded once and kept.
    /// - Throws: The load's ``AVError`` (such as ``AVError/Code-swift.enum/fileFormatNotRecognized`` or
    ///   ``AVError/Code-swift.enum/failedToLoadMediaData``),
    ///   ``AVError/Code-swift.enum/operationCancelled`` after ``AVAsset/cancelLoading()``, or
    ///   `CancellationError` when the calling task was cancelled.
    public func load<T>(_ property: AVAsyncProperty<Self, T>) async throws -> T {
        try await property.loader(self)
    }

    /// Loads several properties in one request and returns their values in order, for any number of
    /// properties: `let (duration, tracks) = try await asset.load(.duration, .tracks)`. Header-level
    /// properties share one header parse.
    ///
    /// - Parameters:
    ///   - propertyA: The first property.
    ///   - propertyB: The second property.
    ///   - properties: Any further properties.
    /// - Returns: The values, in the order of the properties.
    /// - Throws: The first failure, as ``load(_:)`` throws it.
    public func load<A, B, each C>(
        _ propertyA: AVAsyncProperty<Self, A>, _ propertyB: AVAsyncProperty<Self, B>, _ properties: repeat AVAsyncProperty<Self, each C>
    ) async throws -> (A, B, repeat each C) {
        (try await propertyA.loader(self), try await propertyB.loader(self), repeat try await (each properties).loader(self))
    }

    /// Where `property` stands, without starting a load. O(1).
    ///
    /// - Parameter property: The property, such as `.duration`.
    /// - Returns: Not yet loaded, loading, loaded (with the value) or failed (with the error).
    public func status<T>(of property: AVAsyncProperty<Self, T>) -> AVAsyncProperty<Self, T>.Status {
        AVAsyncProperty<Self, T>.publicStatus(property.statusReader(self))
    }

    /// The `async` form of ``loadValuesAsynchronously(forKeys:completionHandler:)``: returns when every
    /// key has loaded, failed or been cancelled.
    ///
    /// - Parameter keys: The properties' names; check each with ``statusOfValue(forKey:error:)``.
    @available(*, deprecated, message: "Use load(_:) instead")
    public func loadValues(forKeys keys: [String]) async {
        await withHandOffContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loadValuesAsynchronously(forKeys: keys) { continuation.resume() }
        }
    }
}
