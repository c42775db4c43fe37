import Foundation

// CMBlockBuffer's C-style API, with Apple's names, argument labels and OSStatus results. Each call
// works on the buffer's own memory: nothing here blocks or does I/O.

/// Options of the block buffer calls (`kCMBlockBuffer...Flag`).
public typealias CMBlockBufferFlags = UInt32
/// Allocate a block at once rather than on demand.
public let kCMBlockBufferAssureMemoryNowFlag: CMBlockBufferFlags = 1 << 0
/// ``CMBlockBufferCreateContiguous(allocator:sourceBuffer:blockAllocator:customBlockSource:offsetToData:dataLength:flags:blockBufferOut:)``
/// copies even a range that is contiguous already.
public let kCMBlockBufferAlwaysCopyDataFlag: CMBlockBufferFlags = 1 << 1
/// Keep references to references rather than flattening them (accepted; Avocet always flattens).
public let kCMBlockBufferDontOptimizeDepthFlag: CMBlockBufferFlags = 1 << 2
/// A reference to an empty buffer is not an error.
public let kCMBlockBufferPermitEmptyReferenceFlag: CMBlockBufferFlags = 1 << 3

/// No error.
public let kCMBlockBufferNoErr: OSStatus = 0
/// The buffer itself could not be allocated.
public let kCMBlockBufferStructureAllocationFailedErr: OSStatus = -12700
/// A memory block could not be allocated (or the allocator allocates nothing, as `kCFAllocatorNull`).
public let kCMBlockBufferBlockAllocationFailedErr: OSStatus = -12701
/// The custom block source is of another version, or can neither allocate nor was given memory.
public let kCMBlockBufferBadCustomBlockSourceErr: OSStatus = -12702
/// An offset outside the buffer or block.
public let kCMBlockBufferBadOffsetParameterErr: OSStatus = -12703
/// A length of 0 where one is needed, negative, or past the end.
public let kCMBlockBufferBadLengthParameterErr: OSStatus = -12704
/// A pointer that is needed is missing.
public let kCMBlockBufferBadPointerParameterErr: OSStatus = -12705
/// The buffer has no blocks or references.
public let kCMBlockBufferEmptyBBufErr: OSStatus = -12706
/// The bytes lie in a block not yet allocated (nothing was written there).
public let kCMBlockBufferUnallocatedBlockErr: OSStatus = -12707
/// More bytes than the destination holds.
public let kCMBlockBufferInsufficientSpaceErr: OSStatus = -12708
/// The version of ``CMBlockBufferCustomBlockSource`` this API reads.
public let kCMBlockBufferCustomBlockSourceVersion: UInt32 = 0

/// How a block's memory is allocated and freed by the caller's own functions.
public struct CMBlockBufferCustomBlockSource {
    /// ``kCMBlockBufferCustomBlockSourceVersion`` (0); any other is refused.
    public var version: UInt32
    /// Allocates a block of the size given; called with `refCon`.
    public var AllocateBlock: (@convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?)?
    /// Frees a block (its pointer and size); called with `refCon`.
    public var FreeBlock: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer, Int) -> Void)?
    /// Passed to both functions.
    public var refCon: UnsafeMutableRawPointer?

    /// Version 0, no functions, no refCon.
    public init() {
        version = kCMBlockBufferCustomBlockSourceVersion
    }

    /// A source with these functions.
    public init(version: UInt32,
                AllocateBlock: (@convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?)?,
                FreeBlock: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer, Int) -> Void)?,
                refCon: UnsafeMutableRawPointer?) {
        self.version = version
        self.AllocateBlock = AllocateBlock
        self.FreeBlock = FreeBlock
        self.refCon = refCon
    }
}

/// A memory block as the C calls describe it: given (freed with `blockAllocator` or the custom
/// source's `FreeBlock`, never with `kCFAllocatorNull`) or allocated on demand by them.
func makeBlock(_ memoryBlock: UnsafeMutableRawPointer?, length: Int, blockAllocator: CFAllocator?,
               customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?) -> Result<BlockMemory, StatusCode> {
    guard length > 0 else { return .failure(.init(kCMBlockBufferBadLengthParameterErr)) }
    if let source = customBlockSource?.pointee {
        guard source.version == kCMBlockBufferCustomBlockSourceVersion, memoryBlock != nil || source.AllocateBlock != nil else {
            return .failure(.init(kCMBlockBufferBadCustomBlockSourceErr))
        }
        let refCon = source.refCon
        let allocate = source.AllocateBlock.map { function in { (size: Int) in function(refCon, size) } }
        let free = source.FreeBlock.map { function in { (pointer: UnsafeMutableRawPointer, size: Int) in function(refCon, pointer, size) } }
        return .success(BlockMemory(pointer: memoryBlock, length: length, allocate: allocate, release: free))
    }
    let allocator = blockAllocator.resolved
    return .success(BlockMemory(pointer: memoryBlock, length: length, allocate: { allocator.allocate($0) },
                                release: { pointer, _ in allocator.deallocate(pointer) }))
}


/// Checks `offset` and `length` against a buffer of `total` bytes; `length` 0 means "the rest" where
/// `zeroMeansRest`. The range, or the status that refuses it.
func checkedRange(_ offset: Int, _ length: Int, in total: Int, zeroMeansRest: Bool) -> Result<Range<Int>, StatusCode> {
    guard offset >= 0, offset <= total else { return .failure(.init(kCMBlockBufferBadOffsetParameterErr)) }
    let count = length == 0 && zeroMeansRest ? total - offset : length
    guard count >= 0, count <= total - offset else { return .failure(.init(kCMBlockBufferBadLengthParameterErr)) }
    return .success(offset ..< offset + count)
}

/// An empty buffer, to which blocks and references can be appended.
///
/// - Parameters:
///   - structureAllocator: Ignored.
///   - subBlockCapacity: A hint of how many blocks and references will be appended; unused.
///   - flags: Unused.
///   - blockBufferOut: Receives the buffer.
/// - Returns: ``kCMBlockBufferNoErr``, always.
@discardableResult
public func CMBlockBufferCreateEmpty(allocator structureAllocator: CFAllocator?, capacity subBlockCapacity: UInt32,
                                     flags: CMBlockBufferFlags, blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    blockBufferOut.pointee = CMBlockBuffer(pieces: [])
    return kCMBlockBufferNoErr
}

/// A buffer over `dataLength` bytes at `offsetToData` of a memory block of `blockLength` bytes: the
/// block given (freed with `blockAllocator` or the custom source; `kCFAllocatorNull`: never), or, for
/// a nil block, one allocated on demand (at once with ``kCMBlockBufferAssureMemoryNowFlag``).
///
/// - Parameters:
///   - structureAllocator: Ignored.
///   - memoryBlock: The block, or nil to have one allocated.
///   - blockLength: The block's length in bytes; more than 0.
///   - blockAllocator: Allocates a nil block and frees the block when the last buffer using it goes;
///     nil for the C heap. Not used when `customBlockSource` is given.
///   - customBlockSource: The caller's functions that allocate and free the block, or nil.
///   - offsetToData: Where the buffer's bytes start in the block.
///   - dataLength: How many bytes of the block, from `offsetToData`, the buffer holds.
///   - flags: ``kCMBlockBufferAssureMemoryNowFlag`` to allocate a nil block now.
///   - blockBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferBadLengthParameterErr`` for a block length of 0
///   or less or a range past the block's end; ``kCMBlockBufferBadOffsetParameterErr`` for an offset
///   outside the block; ``kCMBlockBufferBadCustomBlockSourceErr`` for a source of another version, or
///   one without `AllocateBlock` for a nil block; ``kCMBlockBufferBlockAllocationFailedErr`` when the
///   block is to be allocated now and cannot be. A given block stays the caller's when the call fails.
@discardableResult
public func CMBlockBufferCreateWithMemoryBlock(allocator structureAllocator: CFAllocator?, memoryBlock: UnsafeMutableRawPointer?,
                                               blockLength: Int, blockAllocator: CFAllocator?,
                                               customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?,
                                               offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
                                               blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    let buffer = CMBlockBuffer(pieces: [])
    let status = CMBlockBufferAppendMemoryBlock(buffer, memoryBlock: memoryBlock, length: blockLength, blockAllocator: blockAllocator,
                                                customBlockSource: customBlockSource, offsetToData: offsetToData,
                                                dataLength: dataLength, flags: flags)
    blockBufferOut.pointee = status == kCMBlockBufferNoErr ? buffer : nil
    return status
}

/// A buffer over `dataLength` bytes (0: the rest) of another, sharing its memory.
///
/// - Parameters:
///   - structureAllocator: Ignored.
///   - bufferReference: The buffer whose bytes to reference.
///   - offsetToData: Where the bytes start in `bufferReference`.
///   - dataLength: How many bytes; 0 for all from `offsetToData` to the end.
///   - flags: ``kCMBlockBufferPermitEmptyReferenceFlag`` to accept an empty `bufferReference` (the
///     result is then empty); ``kCMBlockBufferAssureMemoryNowFlag`` to allocate the referenced blocks
///     now.
///   - blockBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferEmptyBBufErr`` for an empty `bufferReference`
///   without ``kCMBlockBufferPermitEmptyReferenceFlag``; ``kCMBlockBufferBadOffsetParameterErr`` or
///   ``kCMBlockBufferBadLengthParameterErr`` for a range outside it;
///   ``kCMBlockBufferBlockAllocationFailedErr`` when a block is to be allocated now and cannot be.
@discardableResult
public func CMBlockBufferCreateWithBufferReference(allocator structureAllocator: CFAllocator?, referenceBuffer bufferReference: CMBlockBuffer,
                                                   offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
                                                   blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    let buffer = CMBlockBuffer(pieces: [])
    let status = CMBlockBufferAppendBufferReference(buffer, targetBBuf: bufferReference, offsetToData: offsetToData,
                                                    dataLength: dataLength, flags: flags)
    blockBufferOut.pointee = status == kCMBlockBufferNoErr ? buffer : nil
    return status
}

/// A buffer whose `dataLength` bytes (0: the rest) from `offsetToData` of `sourceBuffer` are
/// contiguous: a reference when they are already (unless ``kCMBlockBufferAlwaysCopyDataFlag``), else a
/// new block (from `blockAllocator` or the custom source) holding a copy.
///
/// Costs at most one copy of the bytes.
///
/// - Parameters:
///   - structureAllocator: Ignored.
///   - sourceBuffer: The buffer whose bytes to make contiguous.
///   - blockAllocator: Allocates the copy's block; nil for the C heap. Not used when
///     `customBlockSource` is given.
///   - customBlockSource: The caller's functions that allocate and free the copy's block, or nil.
///   - offsetToData: Where the bytes start in `sourceBuffer`.
///   - dataLength: How many bytes; 0 for all from `offsetToData` to the end.
///   - flags: ``kCMBlockBufferAlwaysCopyDataFlag`` to copy bytes that are contiguous already.
///   - blockBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferEmptyBBufErr`` for a `sourceBuffer` with no
///   blocks; ``kCMBlockBufferBadOffsetParameterErr`` or ``kCMBlockBufferBadLengthParameterErr`` for a
///   range outside it; and, when a copy is to be made, ``kCMBlockBufferBadCustomBlockSourceErr`` for
///   a source of another version or without `AllocateBlock`, ``kCMBlockBufferBlockAllocationFailedErr``
///   when the copy's block cannot be allocated, ``kCMBlockBufferUnallocatedBlockErr`` when the bytes
///   lie in a block never allocated.
@discardableResult
public func CMBlockBufferCreateContiguous(allocator structureAllocator: CFAllocator?, sourceBuffer: CMBlockBuffer,
                                          blockAllocator: CFAllocator?, customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?,
                                          offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
                                          blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    blockBufferOut.pointee = nil
    guard !sourceBuffer.pieces.isEmpty else { return kCMBlockBufferEmptyBBufErr }
    let range: Range<Int>
    switch checkedRange(offsetToData, dataLength, in: sourceBuffer.length, zeroMeansRest: true) {
    case .success(let r): range = r
    case .failure(let e): return e.status
    }
    let pieces = sourceBuffer.pieces(in: range)
    if pieces.count == 1 && flags & kCMBlockBufferAlwaysCopyDataFlag == 0 {
        blockBufferOut.pointee = CMBlockBuffer(pieces: pieces)
        return kCMBlockBufferNoErr
    }
    guard !range.isEmpty else {
        blockBufferOut.pointee = CMBlockBuffer(pieces: [])
        return kCMBlockBufferNoErr
    }
    let block: BlockMemory
    switch makeBlock(nil, length: range.count, blockAllocator: blockAllocator, customBlockSource: customBlockSource) {
    case .success(let b): block = b
    case .failure(let e): return e.status
    }
    guard block.assure(), let destination = block.pointer else { return kCMBlockBufferBlockAllocationFailedErr }
    guard sourceBuffer.copyBytes(in: range, to: destination) else { return kCMBlockBufferUnallocatedBlockErr }
    blockBufferOut.pointee = CMBlockBuffer(pieces: [.init(memory: block, offset: 0, length: range.count)])
    return kCMBlockBufferNoErr
}

/// Appends `dataLength` bytes at `offsetToData` of a memory block of `length` bytes (given, or nil:
/// allocated on demand), as
/// ``CMBlockBufferCreateWithMemoryBlock(allocator:memoryBlock:blockLength:blockAllocator:customBlockSource:offsetToData:dataLength:flags:blockBufferOut:)``
/// makes one.
///
/// Not thread-safe: nothing else may use `theBuffer` during the call.
///
/// - Parameters:
///   - theBuffer: The buffer to append to.
///   - memoryBlock: The block, or nil to have one allocated.
///   - blockLength: The block's length in bytes; more than 0.
///   - blockAllocator: Allocates a nil block and frees the block when the last buffer using it goes;
///     nil for the C heap. Not used when `customBlockSource` is given.
///   - customBlockSource: The caller's functions that allocate and free the block, or nil.
///   - offsetToData: Where the appended bytes start in the block.
///   - dataLength: How many bytes of the block, from `offsetToData`, to append.
///   - flags: ``kCMBlockBufferAssureMemoryNowFlag`` to allocate a nil block now.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferBadLengthParameterErr`` for a block length of 0
///   or less, a range past the block's end, or a buffer that would pass `Int.max` bytes;
///   ``kCMBlockBufferBadOffsetParameterErr`` for an offset outside the block;
///   ``kCMBlockBufferBadCustomBlockSourceErr`` for a source of another version, or one without
///   `AllocateBlock` for a nil block; ``kCMBlockBufferBlockAllocationFailedErr`` when the block is to
///   be allocated now and cannot be. A refused call leaves the buffer unchanged and a given block the
///   caller's.
@discardableResult
public func CMBlockBufferAppendMemoryBlock(_ theBuffer: CMBlockBuffer, memoryBlock: UnsafeMutableRawPointer?, length blockLength: Int,
                                           blockAllocator: CFAllocator?, customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?,
                                           offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags) -> OSStatus {
    // Every check before the caller's memory is wrapped: a refused call leaves it the caller's.
    guard blockLength > 0 else { return kCMBlockBufferBadLengthParameterErr }
    let range: Range<Int>
    switch checkedRange(offsetToData, dataLength, in: blockLength, zeroMeansRest: false) {
    case .success(let r): range = r
    case .failure(let e): return e.status
    }
    guard !theBuffer.length.addingReportingOverflow(range.count).overflow else { return kCMBlockBufferBadLengthParameterErr }
    let block: BlockMemory
    switch makeBlock(memoryBlock, length: blockLength, blockAllocator: blockAllocator, customBlockSource: customBlockSource) {
    case .success(let b): block = b
    case .failure(let e): return e.status
    }
    if flags & kCMBlockBufferAssureMemoryNowFlag != 0 && !block.assure() { return kCMBlockBufferBlockAllocationFailedErr }
    theBuffer.pieces.append(.init(memory: block, offset: range.lowerBound, length: range.count))
    return kCMBlockBufferNoErr
}

/// Appends a reference to `dataLength` bytes (0: the rest) from `offsetToData` of `targetBBuf`.
///
/// The memory is shared, not copied; a reference to a reference is flattened to the blocks
/// themselves. Not thread-safe: nothing else may use `theBuffer` during the call.
///
/// - Parameters:
///   - theBuffer: The buffer to append to.
///   - targetBBuf: The buffer whose bytes to reference.
///   - offsetToData: Where the bytes start in `targetBBuf`.
///   - dataLength: How many bytes; 0 for all from `offsetToData` to the end.
///   - flags: ``kCMBlockBufferPermitEmptyReferenceFlag`` to accept (and append nothing for) an empty
///     `targetBBuf`; ``kCMBlockBufferAssureMemoryNowFlag`` to allocate the referenced blocks now.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferEmptyBBufErr`` for an empty `targetBBuf`
///   without ``kCMBlockBufferPermitEmptyReferenceFlag``; ``kCMBlockBufferBadOffsetParameterErr`` or
///   ``kCMBlockBufferBadLengthParameterErr`` for a range outside it, or a buffer that would pass
///   `Int.max` bytes; ``kCMBlockBufferBlockAllocationFailedErr`` when a block is to be allocated now
///   and cannot be.
@discardableResult
public func CMBlockBufferAppendBufferReference(_ theBuffer: CMBlockBuffer, targetBBuf: CMBlockBuffer, offsetToData: Int,
                                               dataLength: Int, flags: CMBlockBufferFlags) -> OSStatus {
    if targetBBuf.pieces.isEmpty {
        return flags & kCMBlockBufferPermitEmptyReferenceFlag != 0 ? kCMBlockBufferNoErr : kCMBlockBufferEmptyBBufErr
    }
    switch checkedRange(offsetToData, dataLength, in: targetBBuf.length, zeroMeansRest: true) {
    case .success(let range):
        guard !theBuffer.length.addingReportingOverflow(range.count).overflow else { return kCMBlockBufferBadLengthParameterErr }
        let pieces = targetBBuf.pieces(in: range)
        if flags & kCMBlockBufferAssureMemoryNowFlag != 0 && !pieces.allSatisfy({ $0.memory.assure() }) {
            return kCMBlockBufferBlockAllocationFailedErr
        }
        theBuffer.pieces += pieces
        return kCMBlockBufferNoErr
    case .failure(let e):
        return e.status
    }
}

/// Allocates every block of the buffer not yet allocated.
///
/// - Returns: ``kCMBlockBufferNoErr``, or ``kCMBlockBufferBlockAllocationFailedErr`` when a block
///   cannot be allocated: no memory, an allocator that allocates nothing (`kCFAllocatorNull`), or a
///   custom block source without `AllocateBlock`.
@discardableResult
public func CMBlockBufferAssureBlockMemory(_ theBuffer: CMBlockBuffer) -> OSStatus {
    theBuffer.assureMemory() ? kCMBlockBufferNoErr : kCMBlockBufferBlockAllocationFailedErr
}

/// The buffer's length in bytes (0 for an empty one).
public func CMBlockBufferGetDataLength(_ theBuffer: CMBlockBuffer) -> Int { theBuffer.length }

/// Whether the buffer has no blocks or references (a block not yet allocated counts as one).
public func CMBlockBufferIsEmpty(_ theBuffer: CMBlockBuffer) -> Bool { theBuffer.pieces.isEmpty }

/// Whether `length` bytes (0: the rest) from `offset` lie in one memory block.
///
/// - Returns: true when the bytes lie in one block, or there are none; false for a range outside the
///   buffer.
public func CMBlockBufferIsRangeContiguous(_ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int) -> Bool {
    guard case .success(let range) = checkedRange(offset, length, in: theBuffer.length, zeroMeansRest: true) else { return false }
    return theBuffer.pieces(in: range).count <= 1
}

/// A pointer to the byte at `offset`, how many bytes are contiguous from it, and the buffer's length.
/// The pointer is valid while the buffer lives; the block must be allocated.
///
/// - Parameters:
///   - theBuffer: The buffer to read.
///   - offset: The byte's offset from the buffer's start.
///   - lengthAtOffsetOut: Receives how many bytes from `offset` lie in the same block (0 when the call
///     fails); nil when not wanted.
///   - totalLengthOut: Receives the buffer's length, even when the call fails; nil when not wanted.
///   - dataPointerOut: Receives the pointer (nil when the call fails); nil when not wanted.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferEmptyBBufErr`` for a buffer with no blocks;
///   ``kCMBlockBufferBadOffsetParameterErr`` for an offset outside the buffer;
///   ``kCMBlockBufferUnallocatedBlockErr`` when the byte's block is not allocated yet (see
///   ``CMBlockBufferAssureBlockMemory(_:)``).
@discardableResult
public func CMBlockBufferGetDataPointer(_ theBuffer: CMBlockBuffer, atOffset offset: Int, lengthAtOffsetOut: UnsafeMutablePointer<Int>?,
                                       totalLengthOut: UnsafeMutablePointer<Int>?,
                                       dataPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> OSStatus {
    lengthAtOffsetOut?.pointee = 0
    totalLengthOut?.pointee = theBuffer.length
    dataPointerOut?.pointee = nil
    guard !theBuffer.pieces.isEmpty else { return kCMBlockBufferEmptyBBufErr }
    guard let (index, within) = theBuffer.locate(offset) else { return kCMBlockBufferBadOffsetParameterErr }
    let piece = theBuffer.pieces[index]
    guard let base = piece.memory.pointer else { return kCMBlockBufferUnallocatedBlockErr }
    lengthAtOffsetOut?.pointee = piece.length - within
    dataPointerOut?.pointee = (base + piece.offset + within).assumingMemoryBound(to: CChar.self)
    return kCMBlockBufferNoErr
}

/// Copies `dataLength` bytes from `offsetToData` into `destination` (the blocks must be allocated).
///
/// - Parameters:
///   - theSourceBuffer: The buffer to copy from.
///   - offsetToData: Where the bytes start in the buffer.
///   - dataLength: How many bytes; more than 0.
///   - destination: Memory for at least `dataLength` bytes.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferBadLengthParameterErr`` for a length of 0 or
///   less, or one past the buffer's end; ``kCMBlockBufferBadOffsetParameterErr`` for an offset outside
///   the buffer; ``kCMBlockBufferUnallocatedBlockErr`` when some of the bytes lie in a block never
///   allocated.
@discardableResult
public func CMBlockBufferCopyDataBytes(_ theSourceBuffer: CMBlockBuffer, atOffset offsetToData: Int, dataLength: Int,
                                       destination: UnsafeMutableRawPointer) -> OSStatus {
    guard dataLength > 0 else { return kCMBlockBufferBadLengthParameterErr }
    switch checkedRange(offsetToData, dataLength, in: theSourceBuffer.length, zeroMeansRest: false) {
    case .failure(let e): return e.status
    case .success(let range):
        return theSourceBuffer.copyBytes(in: range, to: destination) ? kCMBlockBufferNoErr : kCMBlockBufferUnallocatedBlockErr
    }
}

/// Copies `dataLength` bytes from `sourceBytes` into the buffer at `offsetIntoDestination`,
/// allocating its blocks first.
///
/// - Parameters:
///   - sourceBytes: The bytes to copy, at least `dataLength` of them.
///   - destinationBuffer: The buffer to write to; its length does not change.
///   - offsetIntoDestination: Where the bytes go in the buffer.
///   - dataLength: How many bytes; 0 copies nothing.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferBadOffsetParameterErr`` or
///   ``kCMBlockBufferBadLengthParameterErr`` for a range outside the buffer;
///   ``kCMBlockBufferBlockAllocationFailedErr`` when a block cannot be allocated.
@discardableResult
public func CMBlockBufferReplaceDataBytes(with sourceBytes: UnsafeRawPointer, blockBuffer destinationBuffer: CMBlockBuffer,
                                          offsetIntoDestination: Int, dataLength: Int) -> OSStatus {
    switch checkedRange(offsetIntoDestination, dataLength, in: destinationBuffer.length, zeroMeansRest: false) {
    case .failure(let e): return e.status
    case .success(let range):
        var read = 0
        let done = destinationBuffer.forEachRun(in: range, assuring: true) { run in
            if let base = run.baseAddress { base.copyMemory(from: sourceBytes + read, byteCount: run.count) }
            read += run.count
        }
        return done ? kCMBlockBufferNoErr : kCMBlockBufferBlockAllocationFailedErr
    }
}

/// Sets `dataLength` bytes (0: the rest) from `offsetIntoDestination` to `fillByte`, allocating the
/// blocks first.
///
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferBadOffsetParameterErr`` or
///   ``kCMBlockBufferBadLengthParameterErr`` for a range outside the buffer;
///   ``kCMBlockBufferBlockAllocationFailedErr`` when a block cannot be allocated.
@discardableResult
public func CMBlockBufferFillDataBytes(with fillByte: CChar, blockBuffer destinationBuffer: CMBlockBuffer,
                                       offsetIntoDestination: Int, dataLength: Int) -> OSStatus {
    switch checkedRange(offsetIntoDestination, dataLength, in: destinationBuffer.length, zeroMeansRest: true) {
    case .failure(let e): return e.status
    case .success(let range):
        let done = destinationBuffer.forEachRun(in: range, assuring: true) { run in
            if let base = run.baseAddress { base.initializeMemory(as: CChar.self, repeating: fillByte, count: run.count) }
        }
        return done ? kCMBlockBufferNoErr : kCMBlockBufferBlockAllocationFailedErr
    }
}

/// `length` bytes from `offset`: a pointer into the buffer when they are contiguous there, else a
/// copy in `temporaryBlock` (at least `length` bytes), whose address is returned.
///
/// - Parameters:
///   - theBuffer: The buffer to read.
///   - offset: Where the bytes start in the buffer.
///   - length: How many bytes; more than 0.
///   - temporaryBlock: Memory for at least `length` bytes, used only when the bytes are not
///     contiguous.
///   - returnedPointerOut: Receives a pointer into the buffer or `temporaryBlock`; nil when the call
///     fails.
/// - Returns: ``kCMBlockBufferNoErr``; ``kCMBlockBufferBadLengthParameterErr`` for a length of 0 or
///   less, or one past the buffer's end; ``kCMBlockBufferBadOffsetParameterErr`` for an offset outside
///   the buffer; ``kCMBlockBufferUnallocatedBlockErr`` when the bytes lie in a block never allocated.
@discardableResult
public func CMBlockBufferAccessDataBytes(_ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int,
                                         temporaryBlock: UnsafeMutableRawPointer,
                                         returnedPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OSStatus {
    returnedPointerOut.pointee = nil
    guard length > 0 else { return kCMBlockBufferBadLengthParameterErr }
    if CMBlockBufferIsRangeContiguous(theBuffer, atOffset: offset, length: length) {
        var available = 0
        let status = CMBlockBufferGetDataPointer(theBuffer, atOffset: offset, lengthAtOffsetOut: &available, totalLengthOut: nil,
                                                 dataPointerOut: returnedPointerOut)
        return status
    }
    let status = CMBlockBufferCopyDataBytes(theBuffer, atOffset: offset, dataLength: length, destination: temporaryBlock)
    if status == kCMBlockBufferNoErr { returnedPointerOut.pointee = temporaryBlock.assumingMemoryBound(to: CChar.self) }
    return status
}
