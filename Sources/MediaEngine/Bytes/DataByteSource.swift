import Foundation

/// Bytes held in memory, read as a file is: what an audio player made from `Data` plays. Immutable
/// (the `Data` is a value: the caller's later changes to its own copy do not reach it), so any number of
/// containers may read it at once.
package final class DataByteSource: ByteSource {
    package let name: String
    private let data: Data

    /// A source over `data`. Costs nothing (the bytes are shared, not copied); `name` is for messages.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - name: What messages call the bytes ("data" by default).
    package init(_ data: Data, name: String = "data") {
        self.data = data
        self.name = name
    }

    /// The byte count. Never blocks.
    package func size(cancellation: CancellationToken) throws -> Int64? { Int64(data.count) }

    /// Copies up to `buffer.count` bytes from `offset` on the calling thread; 0 at or past the end (or
    /// before the start). Throws only when `cancellation` has fired.
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        if cancellation.isCancelled {
            throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "the operation was cancelled")
        }
        guard offset >= 0, offset < Int64(data.count), buffer.count > 0 else { return 0 }
        let start = data.startIndex + Int(offset)
        let end = start + min(buffer.count, data.endIndex - start)
        return data.copyBytes(to: buffer, from: start..<end)
    }
}
