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

extension ByteSource {
    /// Reads until `buffer` is full or the source ends (a read may return fewer bytes than asked for
    /// anywhere, not only at the end). Returns the number read.
    package func readFully(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = try read(at: offset.addingSaturating(Int64(filled)),
                             into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), cancellation: cancellation)
            guard n > 0 else { break }
            filled += min(n, buffer.count - filled)
        }
        return filled
    }
}
