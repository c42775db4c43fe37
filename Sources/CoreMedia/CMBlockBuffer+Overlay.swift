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

    /// Options of block buffer creation.
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
        /// `kCMBlockBufferStructureAllocationFailedErr`.
        public static var structureAllocationFailed: NSError { StatusCode(kCMBlockBufferStructureAllocationFailedErr).nsError }
        public static var blockAllocationFailed: NSError { StatusCode(kCMBlockBufferBlockAllocationFailedErr).nsError }
        public static var badCustomBlockSource: NSError { StatusCode(kCMBlockBufferBadCustomBlockSourceErr).nsError }
        public static var badOffsetParameter: NSError { StatusCode(kCMBlockBufferBadOffsetParameterErr).nsError }
        public static var badLengthParameter: NSError { StatusCode(kCMBlockBufferBadLengthParameterErr).nsError }
        public static var badPointerParameter: NSError { StatusCode(kCMBlockBufferBadPointerParameterErr).nsError }
        public static var emptyBlockBuffer: NSError { StatusCode(kCMBlockBufferEmptyBBufErr).nsError }
        public static var unallocatedBlock: NSError { StatusCode(kCMBlockBufferUnallocatedBlockErr).nsError }
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
    public convenience init(capacity: Int = 0, flags: Flags = []) throws {
        self.init(pieces: [])
    }

    /// A buffer of `length` bytes in one block from `allocator`, allocated on demand (at once with
    /// `.assureMemoryNow`); `range` limits the buffer to part of the block.
    public convenience init(length: Int, allocator: CFAllocator? = kCFAllocatorDefault, range: Range<Int>? = nil,
                            flags: Flags = []) throws {
        self.init(pieces: [])
        try append(length: length, allocator: allocator, range: range, flags: flags)
    }

    /// A buffer over memory the caller allocated, freed with `allocator` when the buffer goes
    /// (`kCFAllocatorNull`: never).
    public convenience init(buffer: UnsafeMutableRawBufferPointer, allocator: CFAllocator? = kCFAllocatorDefault,
                            flags: Flags = []) throws {
        self.init(pieces: [])
        try append(buffer: buffer, allocator: allocator, flags: flags)
    }

    /// A buffer over memory the caller allocated, freed by `deallocator` when the buffer goes.
    public convenience init(buffer: UnsafeMutableRawBufferPointer, deallocator: @escaping CustomBlockDeallocator,
                            flags: Flags = []) throws {
        self.init(pieces: [])
        try append(buffer: buffer, deallocator: deallocator, flags: flags)
    }

    /// A buffer referencing another buffer's bytes, or a slice of them (sharing the memory).
    public convenience init<T: CMBlockBufferProtocol>(bufferReference: T, flags: Flags = []) throws {
        self.init(pieces: [])
        try append(bufferReference: bufferReference, flags: flags)
    }

    /// Appends a block of `length` bytes from `allocator`, allocated on demand (at once with
    /// `.assureMemoryNow`); `range` limits it to part of the block.
    public func append(length: Int, allocator: CFAllocator? = kCFAllocatorDefault, range: Range<Int>? = nil, flags: Flags = []) throws {
        let part = range ?? 0 ..< length
        try StatusCode.check(CMBlockBufferAppendMemoryBlock(self, memoryBlock: nil, length: length, blockAllocator: allocator,
                                                      customBlockSource: nil, offsetToData: part.lowerBound,
                                                      dataLength: part.count, flags: flags.rawValue))
    }

    /// Appends memory the caller allocated, freed with `allocator` (`kCFAllocatorNull`: never).
    public func append(buffer: UnsafeMutableRawBufferPointer, allocator: CFAllocator? = kCFAllocatorDefault, flags: Flags = []) throws {
        guard let base = buffer.baseAddress else { throw Error.badPointerParameter }
        try StatusCode.check(CMBlockBufferAppendMemoryBlock(self, memoryBlock: base, length: buffer.count, blockAllocator: allocator,
                                                      customBlockSource: nil, offsetToData: 0, dataLength: buffer.count,
                                                      flags: flags.rawValue))
    }

    /// Appends memory the caller allocated, freed by `deallocator`.
    public func append(buffer: UnsafeMutableRawBufferPointer, deallocator: @escaping CustomBlockDeallocator, flags: Flags = []) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw Error.badPointerParameter }
        let block = BlockMemory(pointer: base, length: buffer.count, allocate: nil, release: deallocator)
        pieces.append(Piece(memory: block, offset: 0, length: buffer.count))
    }

    /// Appends a reference to another buffer's bytes, or a slice of them.
    public func append<T: CMBlockBufferProtocol>(bufferReference: T, flags: Flags = []) throws {
        if bufferReference.dataLength == 0 {
            guard flags.contains(.permitEmptyReference) else { throw Error.emptyBlockBuffer }
            return
        }
        try StatusCode.check(CMBlockBufferAppendBufferReference(self, targetBBuf: bufferReference.owner, offsetToData: bufferReference.startIndex,
                                                          dataLength: bufferReference.dataLength, flags: flags.rawValue))
    }

    /// Allocates every block not yet allocated.
    public func assureBlockMemory() throws {
        try StatusCode.check(CMBlockBufferAssureBlockMemory(self))
    }

    /// Calls `body` with the bytes that are contiguous from `offset` (writable; memory allocated first).
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
