import Foundation

/// A run of bytes, `0..<dataLength`, over memory blocks that need not be contiguous: blocks of its
/// own, and ranges of other block buffers it references (sharing their memory, never copying it).
///
/// Apple's CoreMedia type, with its C-style functions
/// (``CMBlockBufferCreateWithMemoryBlock(allocator:memoryBlock:blockLength:blockAllocator:customBlockSource:offsetToData:dataLength:flags:blockBufferOut:)``,
/// ``CMBlockBufferGetDataPointer(_:atOffset:lengthAtOffsetOut:totalLengthOut:dataPointerOut:)``, ...) and
/// Swift overlay (``init(length:allocator:range:flags:)``, ``CMBlockBufferProtocol/dataBytes()``,
/// slices). A block may be allocated on demand: creating a buffer of a length costs nothing until its
/// memory is assured or written. Appending, and writing to a block not yet allocated, are not
/// thread-safe, as on Apple's platforms, and the type is not `Sendable`. A buffer's length never passes
/// `Int.max`: an append that would is refused. Memory handed in is freed with the allocator or deallocator given, when the last buffer
/// using it goes.
public final class CMBlockBuffer {
    /// A range of one memory block.
    struct Piece {
        let memory: BlockMemory
        let offset: Int
        let length: Int
    }

    var pieces: [Piece]
    /// The buffer's attachments (`CMSetAttachment`): made when first used.
    var attachmentStorage: AttachmentStorage { lazyAttachments.storage }
    /// The attachments for reading: nil while none was ever set (a read makes nothing).
    var existingAttachments: AttachmentStorage? { lazyAttachments.existing }
    private let lazyAttachments = LazyAttachmentStorage()

    init(pieces: [Piece]) {
        self.pieces = pieces
    }

    /// The bytes of the buffer: the sum of its pieces' lengths.
    var length: Int { pieces.reduce(0) { $0 + $1.length } }

    /// The piece holding byte `offset` and the offset within it; nil past the end.
    func locate(_ offset: Int) -> (index: Int, within: Int)? {
        guard offset >= 0 else { return nil }
        var start = 0
        for (index, piece) in pieces.enumerated() {
            if offset < start + piece.length { return (index, offset - start) }
            start += piece.length
        }
        return nil
    }

    /// The pieces covering `range` of this buffer (a reference shares their memory).
    func pieces(in range: Range<Int>) -> [Piece] {
        var result: [Piece] = []
        var start = 0
        for piece in pieces {
            let end = start + piece.length
            let lower = max(range.lowerBound, start), upper = min(range.upperBound, end)
            if lower < upper {
                result.append(Piece(memory: piece.memory, offset: piece.offset + lower - start, length: upper - lower))
            }
            start = end
            if start >= range.upperBound { break }
        }
        return result
    }

    /// Allocates every block not yet allocated; false when an allocation fails.
    func assureMemory() -> Bool {
        pieces.allSatisfy { $0.memory.assure() }
    }

    /// Copies the bytes of `range` to `destination`; false when a block was never allocated.
    func copyBytes(in range: Range<Int>, to destination: UnsafeMutableRawPointer) -> Bool {
        var written = 0
        return forEachRun(in: range, assuring: false) { run in
            if let base = run.baseAddress { (destination + written).copyMemory(from: base, byteCount: run.count) }
            written += run.count
        }
    }

    /// Calls `body` with each contiguous run of `range`, in order (its memory allocated first when
    /// `assuring`); false when a block is not allocated, or could not be.
    func forEachRun(in range: Range<Int>, assuring: Bool, _ body: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        for piece in pieces(in: range) {
            if assuring { guard piece.memory.assure() else { return false } }
            guard let base = piece.memory.pointer else { return false }
            body(UnsafeMutableRawBufferPointer(start: base + piece.offset, count: piece.length))
        }
        return true
    }
}

/// One memory block, shared by every buffer that holds a range of it: allocated on demand and
/// freed, when the last of them goes, as its owner said.
final class BlockMemory {
    private(set) var pointer: UnsafeMutableRawPointer?
    let length: Int
    private let allocate: ((Int) -> UnsafeMutableRawPointer?)?
    private let release: ((UnsafeMutableRawPointer, Int) -> Void)?

    /// A block of `length` bytes: at `pointer` (nil: allocated on demand with `allocate`), freed with
    /// `release` (nil: never freed here).
    init(pointer: UnsafeMutableRawPointer?, length: Int, allocate: ((Int) -> UnsafeMutableRawPointer?)?,
         release: ((UnsafeMutableRawPointer, Int) -> Void)?) {
        self.pointer = pointer
        self.length = length
        self.allocate = allocate
        self.release = release
    }

    /// A block of `length` bytes allocated on the C heap now or on demand, freed there.
    static func heap(length: Int) -> BlockMemory {
        BlockMemory(pointer: nil, length: length, allocate: { malloc($0) }, release: { pointer, _ in free(pointer) })
    }

    /// Allocates the block if it is not yet; false when that fails.
    func assure() -> Bool {
        if pointer != nil { return true }
        guard length > 0, let allocate, let memory = allocate(length) else { return false }
        pointer = memory
        return true
    }

    deinit {
        if let pointer { release?(pointer, length) }
    }
}
