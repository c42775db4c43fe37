/// A part of another byte source, `offset` up to `end`, seen as a whole: what an HLS segment given
/// by `EXT-X-BYTERANGE` is of the file that holds it.
final class SubrangeByteSource: ByteSource {
    let name: String
    private let base: any ByteSource
    private let offset: Int64
    private let end: Int64?

    init(base: any ByteSource, offset: Int64, end: Int64?) {
        self.base = base
        self.offset = max(0, offset)
        self.end = end
        name = base.name
    }

    func size(cancellation: CancellationToken) throws -> Int64? {
        if let end { return max(0, end - offset) }
        return try base.size(cancellation: cancellation).map { max(0, $0 - offset) }
    }

    func read(at position: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        let from = offset.addingSaturating(max(0, position))
        var count = buffer.count
        if let end {
            guard from < end else { return 0 }
            count = Int(min(Int64(count), end - from))
        }
        return try base.read(at: from, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), cancellation: cancellation)
    }
}
