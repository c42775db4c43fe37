import CoreMedia
import Foundation
import Testing

/// Block buffers through both of Apple's spellings: the C-style calls with their OSStatus results and
/// the Swift overlay that throws; blocks allocated on demand, references that share memory, ranges
/// across blocks, and every bad offset or length refused with Apple's code.
@Suite("CMBlockBuffer")
struct CMBlockBufferTests {
    /// A buffer of three blocks holding the bytes 0, 1, 2, ... `count - 1`, split 3 / 4 / rest.
    func threeBlocks(_ count: Int = 10) throws -> CMBlockBuffer {
        let buffer = try CMBlockBuffer()
        for range in [0 ..< 3, 3 ..< 7, 7 ..< count] {
            let bytes = Array(range).map { UInt8($0) }
            let block = try CMBlockBuffer(length: bytes.count, flags: .assureMemoryNow)
            try bytes.withUnsafeBytes { try block.replaceDataBytes(with: $0) }
            try buffer.append(bufferReference: block)
        }
        return buffer
    }

    @Test func timingInfoDefaultsAreInvalid() {
        let info = CMSampleTimingInfo()
        #expect(info.duration == .invalid && info.presentationTimeStamp == .invalid && info.decodeTimeStamp == .invalid)
        #expect(CMSampleTimingInfo.invalid == kCMTimingInfoInvalid)
        let one = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
        #expect(one.duration.seconds == 1.0 / 30)
    }

    @Test func aBlockAllocatedOnDemandIsWrittenAndRead() throws {
        var buffer: CMBlockBuffer?
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: kCFAllocatorDefault, memoryBlock: nil, blockLength: 16,
                                                   blockAllocator: kCFAllocatorDefault, customBlockSource: nil, offsetToData: 0,
                                                   dataLength: 16, flags: 0, blockBufferOut: &buffer) == kCMBlockBufferNoErr)
        let block = try #require(buffer)
        #expect(CMBlockBufferGetDataLength(block) == 16 && !CMBlockBufferIsEmpty(block))
        var pointer: UnsafeMutablePointer<CChar>?
        #expect(CMBlockBufferGetDataPointer(block, atOffset: 0, lengthAtOffsetOut: nil, totalLengthOut: nil,
                                            dataPointerOut: &pointer) == kCMBlockBufferUnallocatedBlockErr, "not allocated yet")
        #expect(CMBlockBufferFillDataBytes(with: 7, blockBuffer: block, offsetIntoDestination: 4, dataLength: 0) == kCMBlockBufferNoErr,
                "filling allocates, and 0 means the rest")
        var out = [UInt8](repeating: 0xFF, count: 16)
        #expect(CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: 16, destination: &out) == kCMBlockBufferNoErr)
        #expect(out[4...] .allSatisfy { $0 == 7 })
        var available = 0, total = 0
        #expect(CMBlockBufferGetDataPointer(block, atOffset: 10, lengthAtOffsetOut: &available, totalLengthOut: &total,
                                            dataPointerOut: &pointer) == kCMBlockBufferNoErr)
        #expect(available == 6 && total == 16 && pointer?.pointee == 7)
    }

    @Test func rangesAcrossBlocksCopyReplaceAndReportContiguity() throws {
        let buffer = try threeBlocks()
        #expect(buffer.dataLength == 10)
        #expect(try buffer.dataBytes() == Data(0 ..< 10))
        #expect(CMBlockBufferIsRangeContiguous(buffer, atOffset: 3, length: 4))
        #expect(!CMBlockBufferIsRangeContiguous(buffer, atOffset: 2, length: 2))
        #expect(!buffer.isContiguous && buffer[3 ..< 7].isContiguous)
        #expect(try buffer[2 ..< 8].dataBytes() == Data(2 ..< 8))
        // A write across the three blocks lands in each.
        try [UInt8](repeating: 9, count: 6).withUnsafeBytes { try buffer[2 ..< 8].replaceDataBytes(with: $0) }
        #expect(try buffer.dataBytes() == Data([0, 1, 9, 9, 9, 9, 9, 9, 8, 9]))
        // The two-call pattern of the pointer: what is contiguous from an offset.
        var available = 0
        #expect(CMBlockBufferGetDataPointer(buffer, atOffset: 5, lengthAtOffsetOut: &available, totalLengthOut: nil,
                                            dataPointerOut: nil) == kCMBlockBufferNoErr)
        #expect(available == 2)
        // Made contiguous: one block with the same bytes; a contiguous range is referenced, not copied.
        let flat = try buffer.makeContiguous()
        #expect(try flat.isContiguous && flat.dataBytes() == buffer.dataBytes())
        var middle: CMBlockBuffer?
        #expect(CMBlockBufferCreateContiguous(allocator: nil, sourceBuffer: buffer, blockAllocator: nil, customBlockSource: nil,
                                              offsetToData: 3, dataLength: 4, flags: 0, blockBufferOut: &middle) == kCMBlockBufferNoErr)
        try [UInt8](repeating: 1, count: 1).withUnsafeBytes { try #require(middle).replaceDataBytes(with: $0) }
        #expect(try buffer.dataBytes()[3] == 1, "a contiguous range is shared, not copied")
        // Access: in place when contiguous, else through the temporary block.
        var temporary = [UInt8](repeating: 0, count: 4)
        var returned: UnsafeMutablePointer<CChar>?
        let status = temporary.withUnsafeMutableBytes { raw in
            CMBlockBufferAccessDataBytes(buffer, atOffset: 1, length: 4, temporaryBlock: raw.baseAddress!, returnedPointerOut: &returned)
        }
        #expect(status == kCMBlockBufferNoErr && temporary == [1, 9, 1, 9])
    }

    @Test func referencesShareMemoryAndKeepItAlive() throws {
        var reference: CMBlockBuffer?
        do {
            let source = try threeBlocks()
            #expect(CMBlockBufferCreateWithBufferReference(allocator: nil, referenceBuffer: source, offsetToData: 4, dataLength: 0,
                                                           flags: 0, blockBufferOut: &reference) == kCMBlockBufferNoErr)
        }
        let kept = try #require(reference)
        #expect(try kept.dataBytes() == Data(4 ..< 10), "0 means the rest; the source's memory outlives it")
        let slice = try CMBlockBuffer(bufferReference: kept[5 ..< 6])
        #expect(try slice.dataBytes() == Data([9]))
    }

    @Test func memoryGivenIsFreedAsItsOwnerSaid() throws {
        let freed = FreedCount()
        do {
            let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
            memory.initializeMemory(as: UInt8.self, repeating: 3)
            let buffer = try CMBlockBuffer(buffer: memory) { pointer, size in
                freed.record(size)
                pointer.deallocate()
            }
            #expect(try buffer.dataBytes() == Data(repeating: 3, count: 8))
            #expect(freed.sizes.isEmpty, "not while the buffer lives")
        }
        #expect(freed.sizes == [8], "freed once, with its size, when the buffer went")
        // kCFAllocatorNull: never freed by the buffer.
        let mine = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 4)
        defer { mine.deallocate() }
        mine.initializeMemory(as: UInt8.self, repeating: 5)
        do { _ = try CMBlockBuffer(buffer: mine, allocator: kCFAllocatorNull) }
        #expect(mine.allSatisfy { $0 == 5 }, "still the caller's memory")
    }

    @Test(arguments: [
        (0, 0, kCMBlockBufferBadLengthParameterErr),   // a block of no length
        (8, 9, kCMBlockBufferBadLengthParameterErr),   // data past the block's end
        (8, -1, kCMBlockBufferBadLengthParameterErr),
    ] as [(Int, Int, OSStatus)])
    func badBlocksAreRefusedWithApplesCodes(blockLength: Int, dataLength: Int, expected: OSStatus) {
        var buffer: CMBlockBuffer?
        let status = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: blockLength, blockAllocator: nil,
                                                        customBlockSource: nil, offsetToData: 0, dataLength: dataLength, flags: 0,
                                                        blockBufferOut: &buffer)
        #expect(status == expected && buffer == nil)
    }

    @Test func badOffsetsAndLengthsNeverTouchMemory() throws {
        let buffer = try threeBlocks()
        var byte: UInt8 = 0
        #expect(CMBlockBufferCopyDataBytes(buffer, atOffset: 9, dataLength: 2, destination: &byte) == kCMBlockBufferBadLengthParameterErr)
        #expect(CMBlockBufferCopyDataBytes(buffer, atOffset: -1, dataLength: 1, destination: &byte) == kCMBlockBufferBadOffsetParameterErr)
        #expect(CMBlockBufferCopyDataBytes(buffer, atOffset: 11, dataLength: 1, destination: &byte) == kCMBlockBufferBadOffsetParameterErr)
        #expect(CMBlockBufferCopyDataBytes(buffer, atOffset: 0, dataLength: 0, destination: &byte) == kCMBlockBufferBadLengthParameterErr)
        var pointer: UnsafeMutablePointer<CChar>?
        #expect(CMBlockBufferGetDataPointer(buffer, atOffset: 10, lengthAtOffsetOut: nil, totalLengthOut: nil,
                                            dataPointerOut: &pointer) == kCMBlockBufferBadOffsetParameterErr)
        #expect(CMBlockBufferFillDataBytes(with: 0, blockBuffer: buffer, offsetIntoDestination: 4, dataLength: 7)
                == kCMBlockBufferBadLengthParameterErr)
        let empty = try CMBlockBuffer()
        #expect(empty.isEmpty && empty.dataLength == 0)
        #expect(CMBlockBufferGetDataPointer(empty, atOffset: 0, lengthAtOffsetOut: nil, totalLengthOut: nil,
                                            dataPointerOut: &pointer) == kCMBlockBufferEmptyBBufErr)
        #expect(throws: NSError.self) { try CMBlockBuffer(bufferReference: empty) }
        #expect(try CMBlockBuffer(bufferReference: empty, flags: .permitEmptyReference).isEmpty)
        do {
            try [UInt8](repeating: 0, count: 11).withUnsafeBytes { try buffer.replaceDataBytes(with: $0) }
            Issue.record("11 bytes do not fit in 10")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == Int(kCMBlockBufferInsufficientSpaceErr))
        }
        // A block that was never allocated cannot be read, only written or assured.
        let lazy = try CMBlockBuffer(length: 4)
        #expect(throws: NSError.self) { try lazy.dataBytes() }
        try lazy.assureBlockMemory()
        #expect(try lazy.dataBytes().count == 4)
    }

    @Test func aCustomBlockSourceAllocatesAndFrees() throws {
        var source = CMBlockBufferCustomBlockSource(version: kCMBlockBufferCustomBlockSourceVersion,
                                                    AllocateBlock: { _, size in malloc(size) },
                                                    FreeBlock: { refCon, pointer, _ in
                                                        refCon?.assumingMemoryBound(to: Int.self).pointee += 1
                                                        free(pointer)
                                                    }, refCon: nil)
        let frees = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { frees.deallocate() }
        frees.pointee = 0
        source.refCon = UnsafeMutableRawPointer(frees)
        do {
            var buffer: CMBlockBuffer?
            #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 32, blockAllocator: nil,
                                                       customBlockSource: &source, offsetToData: 0, dataLength: 32,
                                                       flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &buffer) == kCMBlockBufferNoErr)
            #expect(try #require(buffer).isContiguous)
        }
        #expect(frees.pointee == 1)
        var bad = CMBlockBufferCustomBlockSource()
        bad.version = 7
        var buffer: CMBlockBuffer?
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: nil,
                                                   customBlockSource: &bad, offsetToData: 0, dataLength: 8, flags: 0,
                                                   blockBufferOut: &buffer) == kCMBlockBufferBadCustomBlockSourceErr)
    }
}

extension CMBlockBufferTests {
    @Test func aLengthPastIntMaxIsRefused() throws {
        let huge = try CMBlockBuffer(length: 1 << 62)   // allocated on demand: costs nothing
        let buffer = try CMBlockBuffer()
        try buffer.append(bufferReference: huge)
        #expect(throws: NSError.self) {
            try buffer.append(bufferReference: huge)
            try buffer.append(bufferReference: huge)
        }
        #expect(buffer.dataLength > 0)
    }

    /// Memory handed over with a deallocator is refused too, not summed past `Int.max` (a trap); the
    /// refused memory stays the caller's (its deallocator is never called).
    @Test func memoryWithADeallocatorPastIntMaxIsRefused() throws {
        let buffer = try CMBlockBuffer(length: Int.max - 8)   // allocated on demand: costs nothing
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { bytes.deallocate() }
        let frees = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        frees.initialize(to: 0)
        defer { frees.deallocate() }
        #expect(throws: NSError.self) {
            try buffer.append(buffer: bytes, deallocator: { _, _ in frees.pointee += 1 })
        }
        #expect(buffer.dataLength == Int.max - 8)
        #expect(frees.pointee == 0)
    }

    @Test func aRefusedBlockStaysTheCallers() throws {
        var source = CMBlockBufferCustomBlockSource(version: 0, AllocateBlock: nil, FreeBlock: { refCon, _, _ in
            refCon?.assumingMemoryBound(to: Int.self).pointee += 1
        }, refCon: nil)
        let frees = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { frees.deallocate() }
        frees.pointee = 0
        source.refCon = UnsafeMutableRawPointer(frees)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 8)
        defer { memory.deallocate() }
        var buffer: CMBlockBuffer?
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: memory, blockLength: 16, blockAllocator: nil,
                                                   customBlockSource: &source, offsetToData: 20, dataLength: 1, flags: 0,
                                                   blockBufferOut: &buffer) == kCMBlockBufferBadOffsetParameterErr)
        #expect(buffer == nil && frees.pointee == 0, "a refused call frees nothing: the memory is still the caller's")
    }
}

/// Sizes a deallocator was called with.
final class FreedCount: @unchecked Sendable {
    // @unchecked Sendable: written and read on the test's own thread only.
    private(set) var sizes: [Int] = []
    func record(_ size: Int) { sizes.append(size) }
}
