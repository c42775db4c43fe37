/// A walk over the top-level boxes of an MP4/MOV file, reading box headers only.
///
/// FFmpeg does not say whether a movie can take fragments (`mvex` inside `moov`) or has some (`moof`);
/// this reads the few bytes that tell. Blocking: call on an engine thread.
package struct MP4Boxes: Sendable, Equatable {
    /// The movie header declares fragments may follow (`moov/mvex`).
    package var canContainFragments = false
    /// At least one movie fragment (`moof`) is present.
    package var containsFragments = false

    package init(canContainFragments: Bool = false, containsFragments: Bool = false) {
        self.canContainFragments = canContainFragments
        self.containsFragments = containsFragments
    }

    /// Walks at most `limit` boxes; stops early once both answers are known.
    package static func scan(_ source: any ByteSource, cancellation: CancellationToken, limit: Int = 100_000) throws -> MP4Boxes {
        var result = MP4Boxes()
        guard let size = try source.size() else { return result }
        var offset: Int64 = 0
        var visited = 0
        while offset.addingSaturating(8) <= size, visited < limit, !(result.canContainFragments && result.containsFragments) {
            visited += 1
            guard let (type, boxSize, headerSize) = try header(source, at: offset, fileSize: size, cancellation: cancellation) else { break }
            switch type {
            case "moov":
                var child = offset.addingSaturating(headerSize)
                let end = min(offset.addingSaturating(boxSize), size)
                while child.addingSaturating(8) <= end, visited < limit {
                    visited += 1
                    guard let (childType, childSize, _) = try header(source, at: child, fileSize: end, cancellation: cancellation) else { break }
                    if childType == "mvex" { result.canContainFragments = true }
                    child = child.addingSaturating(childSize)
                }
            case "moof":
                result.containsFragments = true
            default:
                break
            }
            offset = offset.addingSaturating(boxSize)
        }
        return result
    }

    /// The type, total size and header size of the box at `offset`; nil when it is not a sane box.
    private static func header(_ source: any ByteSource, at offset: Int64, fileSize: Int64,
                               cancellation: CancellationToken) throws -> (String, Int64, Int64)? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = try bytes.withUnsafeMutableBytes { try source.read(at: offset, into: $0, cancellation: cancellation) }
        guard count >= 8 else { return nil }
        let size32 = bytes[0..<4].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let typeBytes = Array(bytes[4..<8])
        guard typeBytes.allSatisfy({ (0x20..<0x7f).contains($0) }) else { return nil }
        let type = String(decoding: typeBytes, as: UTF8.self)
        var size = size32, headerSize: Int64 = 8
        if size32 == 1 {
            guard count >= 16 else { return nil }
            size = bytes[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            headerSize = 16
        } else if size32 == 0 {
            size = fileSize.subtractingSaturating(offset)
        }
        guard size >= headerSize else { return nil }
        return (type, size, headerSize)
    }
}
