/// Where an asset's bytes come from: a local file, a resource loader delegate, an HTTP server.
///
/// Every method is called on an engine thread and may block. A source that waits (for a network, a
/// delegate) must return early, throwing `MediaEngineError.Code.cancelled`, when `cancellation` fires;
/// `CancellationToken.wait(seconds:)` makes that easy.
package protocol ByteSource: AnyObject, Sendable {
    /// The path or URL, for messages.
    var name: String { get }
    /// Total length in bytes, or nil when unknown.
    func size(cancellation: CancellationToken) throws -> Int64?
    /// Reads up to `buffer.count` bytes starting at `offset`. Returns the number read: 0 only at the end.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int
}
