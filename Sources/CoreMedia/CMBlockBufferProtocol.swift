import Foundation

/// What `CMBlockBuffer` and its slices share: a range of a block buffer's bytes. The operations run on
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

    /// A copy of the bytes. Throws `CMBlockBuffer.Error.unallocatedBlock` where memory was never
    /// allocated or written.
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
    public func copyDataBytes(to destination: UnsafeMutableRawBufferPointer) throws {
        guard dataLength > 0 else { return }
        guard let base = destination.baseAddress, destination.count >= dataLength else {
            throw CMBlockBuffer.Error.insufficientSpace
        }
        try StatusCode.check(CMBlockBufferCopyDataBytes(owner, atOffset: startIndex, dataLength: dataLength, destination: base))
    }

    /// Writes `sourceBytes` over the first of these bytes (allocating memory first); more source bytes
    /// than there are bytes here is `insufficientSpace`.
    public func replaceDataBytes(with sourceBytes: UnsafeRawBufferPointer) throws {
        guard !sourceBytes.isEmpty, let base = sourceBytes.baseAddress else { return }
        guard sourceBytes.count <= dataLength else { throw CMBlockBuffer.Error.insufficientSpace }
        try StatusCode.check(CMBlockBufferReplaceDataBytes(with: base, blockBuffer: owner, offsetIntoDestination: startIndex,
                                                              dataLength: sourceBytes.count))
    }

    /// Sets every byte to `fillByte` (allocating memory first).
    public func fillDataBytes(with fillByte: UInt8) throws {
        guard dataLength > 0 else { return }
        try StatusCode.check(CMBlockBufferFillDataBytes(with: CChar(bitPattern: fillByte), blockBuffer: owner,
                                                           offsetIntoDestination: startIndex, dataLength: dataLength))
    }

    /// Calls `body` with the bytes in one piece of memory: in place when they are contiguous, else a
    /// temporary copy (valid only during the call).
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
    /// `.alwaysCopyData`), else a new block with a copy.
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
