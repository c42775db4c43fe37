import Foundation

/// What ``CMBlockBuffer`` and its slices share: a range of a block buffer's bytes. The operations run on
/// the buffer's memory in the calling thread; none does I/O.
public protocol CMBlockBufferProtocol {
    /// The block buffer whose bytes these are.
    var owner: CMBlockBuffer { get }
    /// The first byte, as an offset into `owner`.
    var startIndex: Int { get }
    /// One past the last byte, as an offset into `owner`.
    var endIndex: Int { get }
}

extension CMBlockBufferProtocol {
    /// The bytes at offsets `bounds` of `owner` (a slice shares its owner's offsets, as a collection's
    /// slice shares its indices), clamped to these bytes.
    ///
    /// - Parameter bounds: Offsets into ``owner``, not into these bytes.
    /// - Returns: A ``CMBlockBuffer/Slice`` sharing the memory; empty when `bounds` lies outside these
    ///   bytes.
    public subscript(bounds: Range<Int>) -> CMBlockBuffer.Slice {
        let lower = min(max(bounds.lowerBound, startIndex), endIndex)
        let upper = min(max(bounds.upperBound, lower), endIndex)
        return CMBlockBuffer.Slice(owner: owner, startIndex: lower, endIndex: upper)
    }

    /// How many bytes.
    public var dataLength: Int { endIndex - startIndex }

    /// Whether the bytes lie in one memory block.
    public var isContiguous: Bool {
        dataLength == 0 || CMBlockBufferIsRangeContiguous(owner, atOffset: startIndex, length: dataLength)
    }

    /// A copy of the bytes.
    ///
    /// - Returns: ``dataLength`` bytes; empty for no bytes.
    /// - Throws: ``CMBlockBuffer/Error/unallocatedBlock`` where memory was never allocated or written.
    public func dataBytes() throws -> Data {
        var data = Data(count: dataLength)
        guard dataLength > 0 else { return data }
        try data.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            try StatusCode.check(CMBlockBufferCopyDataBytes(owner, atOffset: startIndex, dataLength: dataLength, destination: base))
        }
        return data
    }

    /// Copies the bytes to `destination`, which must hold at least `dataLength` bytes.
    ///
    /// - Parameter destination: Memory for at least ``dataLength`` bytes; bytes past them are left
    ///   as they are.
    /// - Throws: ``CMBlockBuffer/Error/insufficientSpace`` when `destination` is smaller or has no
    ///   address; ``CMBlockBuffer/Error/unallocatedBlock`` when some of the bytes lie in a block never
    ///   allocated.
    public func copyDataBytes(to destination: UnsafeMutableRawBufferPointer) throws {
        guard dataLength > 0 else { return }
        guard let base = destination.baseAddress, destination.count >= dataLength else {
            throw CMBlockBuffer.Error.insufficientSpace
        }
        try StatusCode.check(CMBlockBufferCopyDataBytes(owner, atOffset: startIndex, dataLength: dataLength, destination: base))
    }

    /// Writes `sourceBytes` over the first of these bytes (allocating memory first); more source bytes
    /// than there are bytes here is ``CMBlockBuffer/Error/insufficientSpace``.
    ///
    /// - Parameter sourceBytes: The bytes to write; empty writes nothing.
    /// - Throws: ``CMBlockBuffer/Error/insufficientSpace`` for more than ``dataLength`` source bytes;
    ///   ``CMBlockBuffer/Error/blockAllocationFailed`` when a block cannot be allocated.
    public func replaceDataBytes(with sourceBytes: UnsafeRawBufferPointer) throws {
        guard !sourceBytes.isEmpty, let base = sourceBytes.baseAddress else { return }
        guard sourceBytes.count <= dataLength else { throw CMBlockBuffer.Error.insufficientSpace }
        try StatusCode.check(CMBlockBufferReplaceDataBytes(with: base, blockBuffer: owner, offsetIntoDestination: startIndex,
                                                              dataLength: sourceBytes.count))
    }

    /// Sets every byte to `fillByte` (allocating memory first).
    ///
    /// - Throws: ``CMBlockBuffer/Error/blockAllocationFailed`` when a block cannot be allocated.
    public func fillDataBytes(with fillByte: UInt8) throws {
        guard dataLength > 0 else { return }
        try StatusCode.check(CMBlockBufferFillDataBytes(with: CChar(bitPattern: fillByte), blockBuffer: owner,
                                                           offsetIntoDestination: startIndex, dataLength: dataLength))
    }

    /// Calls `body` with the bytes in one piece of memory: in place when they are contiguous, else a
    /// temporary copy (valid only during the call).
    ///
    /// - Parameter body: Called once, on the calling thread, with ``dataLength`` bytes (no address for
    ///   no bytes).
    /// - Returns: What `body` returns.
    /// - Throws: ``CMBlockBuffer/Error/unallocatedBlock`` when some of the bytes lie in a block never
    ///   allocated (then `body` is not called), or what `body` throws.
    public func withContiguousStorage<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        if dataLength == 0 { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        if isContiguous {
            var pointer: UnsafeMutablePointer<CChar>?
            try StatusCode.check(CMBlockBufferGetDataPointer(owner, atOffset: startIndex, lengthAtOffsetOut: nil,
                                                                totalLengthOut: nil, dataPointerOut: &pointer))
            return try body(UnsafeRawBufferPointer(start: pointer, count: dataLength))
        }
        let copy = try dataBytes()
        return try copy.withUnsafeBytes { try body($0) }
    }

    /// A buffer holding these bytes contiguously: a reference when they already are (unless
    /// ``CMBlockBuffer/Flags/alwaysCopyData``), else a new block with a copy.
    ///
    /// - Parameters:
    ///   - allocator: Allocates the new block when a copy is made; nil for the C heap.
    ///   - flags: ``CMBlockBuffer/Flags/alwaysCopyData`` to copy bytes that are contiguous already.
    /// - Returns: A buffer of ``dataLength`` bytes in one block; an empty buffer for no bytes.
    /// - Throws: When a copy is to be made: ``CMBlockBuffer/Error/unallocatedBlock`` when some of the
    ///   bytes lie in a block never allocated; ``CMBlockBuffer/Error/blockAllocationFailed`` when the
    ///   copy's block cannot be allocated (as with `kCFAllocatorNull`).
    public func makeContiguous(allocator: CFAllocator? = kCFAllocatorDefault, flags: CMBlockBuffer.Flags = []) throws -> CMBlockBuffer {
        guard dataLength > 0 else { return CMBlockBuffer(pieces: []) }
        var result: CMBlockBuffer?
        try StatusCode.check(CMBlockBufferCreateContiguous(allocator: nil, sourceBuffer: owner, blockAllocator: allocator,
                                                              customBlockSource: nil, offsetToData: startIndex, dataLength: dataLength,
                                                              flags: flags.rawValue, blockBufferOut: &result))
        guard let result else { throw CMBlockBuffer.Error.structureAllocationFailed }
        return result
    }
}
