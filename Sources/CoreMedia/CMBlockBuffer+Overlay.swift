import Foundation

// CMBlockBuffer's Swift overlay (Apple's, iOS 13 / macOS 10.15): throwing initializers and methods
// over the C-style calls. Failures throw the `CMBlockBuffer.Error` values: NSErrors in
// `NSOSStatusErrorDomain` whose codes are the calls' OSStatus.

extension CMBlockBuffer: CMBlockBufferProtocol {
    /// The buffer itself.
    public var owner: CMBlockBuffer { self }
    /// 0.
    public var startIndex: Int { 0 }
    /// The buffer's length.
    public var endIndex: Int { length }

    /// Options of block buffer creation: the `kCMBlockBuffer...Flag` bits, such as
    /// ``kCMBlockBufferAssureMemoryNowFlag``.
    public struct Flags: OptionSet, Sendable {
        /// The `kCMBlockBuffer...Flag` bits.
        public let rawValue: CMBlockBufferFlags
        /// Flags from their bits.
        public init(rawValue: CMBlockBufferFlags) { self.rawValue = rawValue }
        /// Allocate memory at once, not on demand.
        public static let assureMemoryNow = Flags(rawValue: kCMBlockBufferAssureMemoryNowFlag)
        /// Copy even contiguous data when making a buffer contiguous.
        public static let alwaysCopyData = Flags(rawValue: kCMBlockBufferAlwaysCopyDataFlag)
        /// Accepted; Avocet always flattens references.
        public static let dontOptimizeDepth = Flags(rawValue: kCMBlockBufferDontOptimizeDepthFlag)
        /// A reference to an empty buffer is not an error.
        public static let permitEmptyReference = Flags(rawValue: kCMBlockBufferPermitEmptyReferenceFlag)
    }

    /// The errors the overlay throws, one per `kCMBlockBuffer...Err`.
    public enum Error {
        /// ``kCMBlockBufferStructureAllocationFailedErr``.
        public static var structureAllocationFailed: NSError { StatusCode(kCMBlockBufferStructureAllocationFailedErr).nsError }
        /// ``kCMBlockBufferBlockAllocationFailedErr``.
        public static var blockAllocationFailed: NSError { StatusCode(kCMBlockBufferBlockAllocationFailedErr).nsError }
        /// ``kCMBlockBufferBadCustomBlockSourceErr``.
        public static var badCustomBlockSource: NSError { StatusCode(kCMBlockBufferBadCustomBlockSourceErr).nsError }
        /// ``kCMBlockBufferBadOffsetParameterErr``.
        public static var badOffsetParameter: NSError { StatusCode(kCMBlockBufferBadOffsetParameterErr).nsError }
        /// ``kCMBlockBufferBadLengthParameterErr``.
        public static var badLengthParameter: NSError { StatusCode(kCMBlockBufferBadLengthParameterErr).nsError }
        /// ``kCMBlockBufferBadPointerParameterErr``.
        public static var badPointerParameter: NSError { StatusCode(kCMBlockBufferBadPointerParameterErr).nsError }
        /// ``kCMBlockBufferEmptyBBufErr``.
        public static var emptyBlockBuffer: NSError { StatusCode(kCMBlockBufferEmptyBBufErr).nsError }
        /// ``kCMBlockBufferUnallocatedBlockErr``.
        public static var unallocatedBlock: NSError { StatusCode(kCMBlockBufferUnallocatedBlockErr).nsError }
        /// ``kCMBlockBufferInsufficientSpaceErr``.
        public static var insufficientSpace: NSError { StatusCode(kCMBlockBufferInsufficientSpaceErr).nsError }
    }

    /// A range of a block buffer's bytes, sharing its memory.
    public struct Slice: CMBlockBufferProtocol {
        /// The buffer whose bytes these are.
        public let owner: CMBlockBuffer
        /// The first byte's offset in `owner`.
        public let startIndex: Int
        /// One past the last byte's offset in `owner`.
        public let endIndex: Int
    }

    /// Allocates `size` bytes for a block (nil: the allocation failed).
    public typealias CustomBlockAllocator = (Int) -> UnsafeMutableRawPointer?
    /// Frees a block: its address and size.
    public typealias CustomBlockDeallocator = (UnsafeMutableRawPointer, Int) -> Void

    /// An empty buffer, to append to (`capacity` is a hint, unused).
    ///
    /// - Parameters:
    ///   - capacity: A hint of how many blocks and references will be appended; unused.
    ///   - flags: Unused.
    /// - Throws: Nothing: the initializer throws only as Apple's does.
    public convenience init(capacity: Int = 0, flags: Flags = []) throws {
        self.init(pieces: [])
    }

    /// A buffer of `length` bytes in one block from `allocator`, allocated on demand (at once with
    /// ``Flags/assureMemoryNow``); `range` limits the buffer to part of the block.
    ///
    /// - Parameters:
    ///   - length: The block's length in bytes; more than 0.
    ///   - allocator: Allocates and frees the block; nil for the C heap.
    ///   - range: The block's bytes the buffer holds; nil for all of them.
    ///   - flags: ``Flags/assureMemoryNow`` to allocate the block now.
    /// - Throws: ``Error/badLengthParameter`` for a length of 0 or less or a range past the block's
    ///   end; ``Error/badOffsetParameter`` for a range starting outside the block;
    ///   ``Error/blockAllocationFailed`` when the block is to be allocated now and cannot be.
    public convenience init(length: Int, allocator: CFAllocator? = kCFAllocatorDefault, range: Range<Int>? = nil,
                            flags: Flags = []) throws {
        self.init(pieces: [])
        try append(length: length, allocator: allocator, range: range, flags: flags)
    }

    /// A buffer over memory the caller allocated, freed with `allocator` when the buffer goes
    /// (`kCFAllocatorNull`: never).
    ///
    /// - Parameters:
    ///   - buffer: The memory; the buffer holds all of it.
    ///   - allocator: Frees the memory; nil for `free`, `kCFAllocatorNull` to leave it the caller's.
    ///   - flags: Options; the memory is allocated already, so ``Flags/assureMemoryNow`` changes nothing.
    /// - Throws: ``Error/badPointerParameter`` for memory with no address; ``Error/badLengthParameter``
    ///   for empty memory. The memory stays the caller's when the initializer throws.
    public convenience init(buffer: UnsafeMutableRawBufferPointer, allocator: CFAllocator? = kCFAllocatorDefault,
                            flags: Flags = []) throws {
        self.init(pieces: [])
        try append(buffer: buffer, allocator: allocator, flags: flags)
    }

    /// A buffer over memory the caller allocated, freed by `deallocator` when the buffer goes.
    ///
    /// - Parameters:
    ///   - buffer: The memory; the buffer holds all of it.
    ///   - deallocator: Called with the memory's address and size when the last buffer using it goes.
    ///   - flags: Unused.
    /// - Throws: ``Error/badPointerParameter`` for empty memory or memory with no address; the memory
    ///   stays the caller's.
    public convenience init(buffer: UnsafeMutableRawBufferPointer, deallocator: @escaping CustomBlockDeallocator,
                            flags: Flags = []) throws {
        self.init(pieces: [])
        try append(buffer: buffer, deallocator: deallocator, flags: flags)
    }

    /// A buffer referencing another buffer's bytes, or a slice of them (sharing the memory).
    ///
    /// - Parameters:
    ///   - bufferReference: A ``CMBlockBuffer`` or a ``Slice`` of one.
    ///   - flags: ``Flags/permitEmptyReference`` to accept no bytes; ``Flags/assureMemoryNow`` to
    ///     allocate the referenced blocks now.
    /// - Throws: ``Error/emptyBlockBuffer`` for no bytes without ``Flags/permitEmptyReference``;
    ///   ``Error/blockAllocationFailed`` when a block is to be allocated now and cannot be.
    public convenience init<T: CMBlockBufferProtocol>(bufferReference: T, flags: Flags = []) throws {
        self.init(pieces: [])
        try append(bufferReference: bufferReference, flags: flags)
    }

    /// Appends a block of `length` bytes from `allocator`, allocated on demand (at once with
    /// ``Flags/assureMemoryNow``); `range` limits it to part of the block.
    ///
    /// - Parameters:
    ///   - length: The block's length in bytes; more than 0.
    ///   - allocator: Allocates and frees the block; nil for the C heap.
    ///   - range: The block's bytes to append; nil for all of them.
    ///   - flags: ``Flags/assureMemoryNow`` to allocate the block now.
    /// - Throws: ``Error/badLengthParameter`` for a length of 0 or less, a range past the block's end,
    ///   or a buffer that would pass `Int.max` bytes; ``Error/badOffsetParameter`` for a range starting
    ///   outside the block; ``Error/blockAllocationFailed`` when the block is to be allocated now and
    ///   cannot be. The buffer is unchanged when the call throws.
    public func append(length: Int, allocator: CFAllocator? = kCFAllocatorDefault, range: Range<Int>? = nil, flags: Flags = []) throws {
        let part = range ?? 0 ..< length
        try StatusCode.check(CMBlockBufferAppendMemoryBlock(self, memoryBlock: nil, length: length, blockAllocator: allocator,
                                                      customBlockSource: nil, offsetToData: part.lowerBound,
                                                      dataLength: part.count, flags: flags.rawValue))
    }

    /// Appends memory the caller allocated, freed with `allocator` (`kCFAllocatorNull`: never).
    ///
    /// - Parameters:
    ///   - buffer: The memory; all of it is appended.
    ///   - allocator: Frees the memory when the last buffer using it goes; nil for `free`,
    ///     `kCFAllocatorNull` to leave it the caller's.
    ///   - flags: Options; the memory is allocated already, so ``Flags/assureMemoryNow`` changes nothing.
    /// - Throws: ``Error/badPointerParameter`` for memory with no address; ``Error/badLengthParameter``
    ///   for empty memory, or a buffer that would pass `Int.max` bytes. The memory stays the caller's
    ///   when the call throws.
    public func append(buffer: UnsafeMutableRawBufferPointer, allocator: CFAllocator? = kCFAllocatorDefault, flags: Flags = []) throws {
        guard let base = buffer.baseAddress else { throw Error.badPointerParameter }
        try StatusCode.check(CMBlockBufferAppendMemoryBlock(self, memoryBlock: base, length: buffer.count, blockAllocator: allocator,
                                                      customBlockSource: nil, offsetToData: 0, dataLength: buffer.count,
                                                      flags: flags.rawValue))
    }

    /// Appends memory the caller allocated, freed by `deallocator`.
    ///
    /// - Parameters:
    ///   - buffer: The memory; all of it is appended.
    ///   - deallocator: Called with the memory's address and size when the last buffer using it goes.
    ///   - flags: Unused.
    /// - Throws: ``Error/badPointerParameter`` for empty memory or memory with no address;
    ///   ``Error/badLengthParameter`` for a buffer that would pass `Int.max` bytes. The memory stays the
    ///   caller's when the call throws.
    public func append(buffer: UnsafeMutableRawBufferPointer, deallocator: @escaping CustomBlockDeallocator, flags: Flags = []) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw Error.badPointerParameter }
        guard !length.addingReportingOverflow(buffer.count).overflow else { throw Error.badLengthParameter }
        let block = BlockMemory(pointer: base, length: buffer.count, allocate: nil, release: deallocator)
        pieces.append(Piece(memory: block, offset: 0, length: buffer.count))
    }

    /// Appends a reference to another buffer's bytes, or a slice of them.
    ///
    /// - Parameters:
    ///   - bufferReference: A ``CMBlockBuffer`` or a ``Slice`` of one; its memory is shared, not copied.
    ///   - flags: ``Flags/permitEmptyReference`` to accept (and append nothing for) no bytes;
    ///     ``Flags/assureMemoryNow`` to allocate the referenced blocks now.
    /// - Throws: ``Error/emptyBlockBuffer`` for no bytes without ``Flags/permitEmptyReference``;
    ///   ``Error/badLengthParameter`` when the buffer would pass `Int.max` bytes;
    ///   ``Error/blockAllocationFailed`` when a block is to be allocated now and cannot be.
    public func append<T: CMBlockBufferProtocol>(bufferReference: T, flags: Flags = []) throws {
        if bufferReference.dataLength == 0 {
            guard flags.contains(.permitEmptyReference) else { throw Error.emptyBlockBuffer }
            return
        }
        try StatusCode.check(CMBlockBufferAppendBufferReference(self, targetBBuf: bufferReference.owner, offsetToData: bufferReference.startIndex,
                                                          dataLength: bufferReference.dataLength, flags: flags.rawValue))
    }

    /// Allocates every block not yet allocated.
    ///
    /// - Throws: ``Error/blockAllocationFailed`` when a block cannot be allocated: no memory, an
    ///   allocator that allocates nothing (`kCFAllocatorNull`), or a custom block source without
    ///   `AllocateBlock`.
    public func assureBlockMemory() throws {
        try StatusCode.check(CMBlockBufferAssureBlockMemory(self))
    }

    /// Calls `body` with the bytes that are contiguous from `offset` (writable; memory allocated first).
    ///
    /// - Parameters:
    ///   - offset: The offset of the first byte, from the buffer's start.
    ///   - body: Called once with the bytes from `offset` to the end of the block that holds it, which
    ///     may be fewer than the rest of the buffer.
    /// - Returns: What `body` returns.
    /// - Throws: ``Error/blockAllocationFailed`` when a block cannot be allocated;
    ///   ``Error/emptyBlockBuffer`` for a buffer with no blocks; ``Error/badOffsetParameter`` for an
    ///   offset outside the buffer; or what `body` throws.
    public func withUnsafeMutableBytes<R>(atOffset offset: Int = 0, _ body: (UnsafeMutableRawBufferPointer) throws -> R) throws -> R {
        try assureBlockMemory()
        var available = 0
        var pointer: UnsafeMutablePointer<CChar>?
        try StatusCode.check(CMBlockBufferGetDataPointer(self, atOffset: offset, lengthAtOffsetOut: &available, totalLengthOut: nil,
                                                   dataPointerOut: &pointer))
        return try body(UnsafeMutableRawBufferPointer(start: pointer, count: available))
    }

    /// Whether the buffer has no blocks or references (a block not yet allocated counts as one).
    public var isEmpty: Bool { pieces.isEmpty }
}
