import CoreVideo
import Foundation
import Testing

/// Pixel buffers and their pools through Apple's C functions: each format's planes and rows, the
/// attribute dictionaries as Apple code writes them, reuse of a pool's memory, and refusals with
/// Apple's CVReturn codes.
@Suite("CVPixelBuffer")
struct CVPixelBufferTests {
    @Test(arguments: [
        (kCVPixelFormatType_32BGRA, 0, [64 * 4]),
        (kCVPixelFormatType_32ARGB, 0, [64 * 4]),
        (kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, 2, [64, 64]),
        (kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, 2, [64, 64]),
        (kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, 2, [128, 128]),
        (kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, 2, [128, 128]),
    ] as [(OSType, Int, [Int])])
    func eachFormatHasApplesPlanes(format: OSType, planeCount: Int, rows: [Int]) throws {
        var made: CVPixelBuffer?
        #expect(CVPixelBufferCreate(kCFAllocatorDefault, 64, 35, format, nil, &made) == kCVReturnSuccess)
        let buffer = try #require(made)
        #expect(CVPixelBufferGetWidth(buffer) == 64 && CVPixelBufferGetHeight(buffer) == 35)
        #expect(CVPixelBufferGetPixelFormatType(buffer) == format)
        #expect(CVPixelBufferGetPlaneCount(buffer) == planeCount && CVPixelBufferIsPlanar(buffer) == (planeCount > 0))
        if planeCount == 0 {
            #expect(CVPixelBufferGetBytesPerRow(buffer) == rows[0])
        } else {
            #expect((0..<2).map { CVPixelBufferGetBytesPerRowOfPlane(buffer, $0) } == rows)
            #expect(CVPixelBufferGetWidthOfPlane(buffer, 1) == 32 && CVPixelBufferGetHeightOfPlane(buffer, 1) == 18, "half, rounded up")
            let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
            let chroma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
            #expect(chroma - luma == rows[0] * 35, "the CbCr plane follows the Y plane")
            #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 2) == nil)
        }
        #expect(CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnInvalidArgument, "not locked any more")
    }

    @Test("4:2:0 planar buffers hold Y, Cb and Cr one after another, chroma rows half as long as luma rows",
          arguments: [kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange])
    func planarLayout(format: OSType) throws {
        // 101 wide: chroma 51 samples; luma rows of 101 aligned to 32 (twice the default 16) are 128, chroma 64.
        var made: CVPixelBuffer?
        #expect(CVPixelBufferCreate(kCFAllocatorDefault, 101, 35, format, nil, &made) == kCVReturnSuccess)
        let buffer = try #require(made)
        #expect(CVPixelBufferGetPlaneCount(buffer) == 3 && CVPixelBufferIsPlanar(buffer))
        #expect((0..<3).map { CVPixelBufferGetBytesPerRowOfPlane(buffer, $0) } == [128, 64, 64])
        #expect((0..<3).map { CVPixelBufferGetWidthOfPlane(buffer, $0) } == [101, 51, 51])
        #expect((0..<3).map { CVPixelBufferGetHeightOfPlane(buffer, $0) } == [35, 18, 18])
        let planes = try (0..<3).map { try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, $0)) }
        #expect(planes[1] - planes[0] == 128 * 35 && planes[2] - planes[1] == 64 * 18)
        #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 3) == nil)
    }

    @Test func attributesAsAppleCodeWritesThem() throws {
        // Rows of 100 BGRA pixels are 400 bytes; aligned to 64 they are 448.
        let attributes = [kCVPixelBufferBytesPerRowAlignmentKey as String: 64,
                          kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any](),
                          kCVPixelBufferCGImageCompatibilityKey as String: kCFBooleanTrue!,
                          kCVPixelBufferOpenGLESCompatibilityKey as String: kCFBooleanFalse!] as CFDictionary
        var made: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 100, 10, kCVPixelFormatType_32BGRA, attributes, &made) == kCVReturnSuccess)
        #expect(CVPixelBufferGetBytesPerRow(try #require(made)) == 448)
        let image: CVImageBuffer = try #require(made)
        #expect(CVPixelBufferGetDataSize(image) == 4480)
    }

    @Test func badSizesAndFormatsAreRefused() {
        var made: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 0, 10, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnInvalidSize && made == nil)
        #expect(CVPixelBufferCreate(nil, 70_000, 10, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnInvalidSize)
        #expect(CVPixelBufferCreate(nil, 10, 10, 0x7975_7673 /* yuvs */, nil, &made) == kCVReturnInvalidPixelFormat)
        let silly = [kCVPixelBufferBytesPerRowAlignmentKey as String: 0] as CFDictionary
        #expect(CVPixelBufferCreate(nil, 10, 10, kCVPixelFormatType_32BGRA, silly, &made) == kCVReturnInvalidPixelBufferAttributes)
    }

    @Test func aPoolReusesTheMemoryOfBuffersLetGo() throws {
        let attributes = [kCVPixelBufferPixelFormatTypeKey as String: [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange],
                          kCVPixelBufferWidthKey as String: 32, kCVPixelBufferHeightKey as String: 16] as CFDictionary
        var created: CVPixelBufferPool?
        #expect(CVPixelBufferPoolCreate(nil, nil, attributes, &created) == kCVReturnSuccess)
        let pool = try #require(created)
        #expect(CVPixelBufferPoolGetPixelBufferAttributes(pool) === attributes)
        var first: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &first) == kCVReturnSuccess)
        let address = try #require(first.flatMap { CVPixelBufferGetBaseAddress($0) })
        #expect(first.map(CVPixelBufferGetPixelFormatType) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(first.map(CVPixelBufferGetWidth) == 32)
        first = nil
        #expect(pool.freeBufferCount == 1, "its memory went back to the pool")
        var second: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &second) == kCVReturnSuccess)
        #expect(second.flatMap { CVPixelBufferGetBaseAddress($0) } == address, "and was taken again")
        // The threshold counts the buffers alive.
        var third: CVPixelBuffer?
        let one = [kCVPixelBufferPoolAllocationThresholdKey as String: 1] as CFDictionary
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, one, &third) == kCVReturnWouldExceedAllocationThreshold)
        #expect(third == nil)
        second = nil
        CVPixelBufferPoolFlush(pool, .excessBuffers)
        #expect(pool.freeBufferCount == 0)
    }

    @Test func aPoolNeedsASizeAndAFormat() {
        var created: CVPixelBufferPool?
        let noSize = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA] as CFDictionary
        #expect(CVPixelBufferPoolCreate(nil, nil, noSize, &created) == kCVReturnInvalidPixelBufferAttributes && created == nil)
        let unknown = [kCVPixelBufferPixelFormatTypeKey as String: 1, kCVPixelBufferWidthKey as String: 8,
                       kCVPixelBufferHeightKey as String: 8] as CFDictionary
        #expect(CVPixelBufferPoolCreate(nil, nil, unknown, &created) == kCVReturnInvalidPixelBufferAttributes)
    }

    @Test func aBufferOutlivesItsPool() throws {
        var buffer: CVPixelBuffer?
        do {
            let attributes = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
                              kCVPixelBufferWidthKey as String: 4, kCVPixelBufferHeightKey as String: 4] as CFDictionary
            var pool: CVPixelBufferPool?
            CVPixelBufferPoolCreate(nil, nil, attributes, &pool)
            CVPixelBufferPoolCreatePixelBuffer(nil, try #require(pool), &buffer)
        }
        let kept = try #require(buffer)
        try #require(CVPixelBufferGetBaseAddress(kept)).storeBytes(of: 7, as: UInt8.self)
        #expect(CVPixelBufferGetWidth(kept) == 4)
    }
}
