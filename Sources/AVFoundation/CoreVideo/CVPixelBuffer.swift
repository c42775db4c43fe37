import Foundation
import Synchronization

/// CoreVideo's result codes.
public typealias CVReturn = Int32
/// No error.
public let kCVReturnSuccess: CVReturn = 0
/// An argument was not valid, such as unlocking a buffer that is not locked.
public let kCVReturnInvalidArgument: CVReturn = -6661
/// The operation is not supported.
public let kCVReturnUnsupported: CVReturn = -6663

/// 8-bit blue, green, red, alpha ('BGRA').
public let kCVPixelFormatType_32BGRA: OSType = 0x4247_5241
/// 4:2:0 Y plane then interleaved CbCr plane, video range ('420v').
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = 0x3432_3076
/// The same, full range ('420f').
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = 0x3432_3066
/// The pixel-buffer attribute naming the pixel format (an `OSType`, as a number).
public let kCVPixelBufferPixelFormatTypeKey = "PixelFormatType"
/// The pixel-buffer attribute for the width in pixels (a number).
public let kCVPixelBufferWidthKey = "Width"
/// The pixel-buffer attribute for the height in pixels (a number).
public let kCVPixelBufferHeightKey = "Height"

/// How a base address is locked.
public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    /// The flag bits.
    public let rawValue: UInt64
    /// Flags from their bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The caller only reads the memory while it is locked.
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 1)
}

/// A picture in memory, in one of the pixel formats above: one plane (BGRA) or two (4:2:0
/// bi-planar: Y, then CbCr at half width and height). Apple's CoreVideo type, as much of it as
/// players' video outputs use; its memory lives as long as the buffer. Locking is counted, as Apple's
/// is, and the memory is readable whether or not it is locked.
public final class CVPixelBuffer: @unchecked Sendable {
    // @unchecked Sendable: the memory is written once, before the buffer is handed out; the lock
    // count is atomic.
    struct Plane {
        let offset: Int
        let width: Int
        let height: Int
        let bytesPerRow: Int
    }

    let width: Int
    let height: Int
    let pixelFormat: OSType
    let planes: [Plane]
    let memory: UnsafeMutableRawPointer
    let byteCount: Int
    let locks = Atomic<Int>(0)

    /// A buffer of `width` x `height` pixels in `pixelFormat` (one of the three above), zeroed; nil for
    /// other formats or sizes.
    init?(width: Int, height: Int, pixelFormat: OSType) {
        guard width > 0, height > 0, width <= 65536, height <= 65536 else { return nil }
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        switch pixelFormat {
        case kCVPixelFormatType_32BGRA:
            planes = [Plane(offset: 0, width: width, height: height, bytesPerRow: width * 4)]
        case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange:
            let chromaWidth = (width + 1) / 2, chromaHeight = (height + 1) / 2
            planes = [Plane(offset: 0, width: width, height: height, bytesPerRow: width),
                      Plane(offset: width * height, width: chromaWidth, height: chromaHeight, bytesPerRow: chromaWidth * 2)]
        default:
            return nil
        }
        byteCount = planes.map { $0.offset + $0.bytesPerRow * $0.height }.max() ?? 0
        memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
    }

    deinit { memory.deallocate() }

    var isPlanar: Bool { planes.count > 1 }
}

/// The width in pixels.
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.width }
/// The height in pixels.
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.height }
/// The pixel format, such as `kCVPixelFormatType_32BGRA`.
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { pixelBuffer.pixelFormat }
/// Whether the buffer has more than one plane (the 4:2:0 bi-planar formats).
public func CVPixelBufferIsPlanar(_ pixelBuffer: CVPixelBuffer) -> Bool { pixelBuffer.isPlanar }
/// 0 for a single-plane buffer, as Apple's.
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.isPlanar ? pixelBuffer.planes.count : 0 }
/// The bytes of the buffer's memory, every plane included.
public func CVPixelBufferGetDataSize(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.byteCount }

/// The first plane's row length in bytes (a planar buffer's Y plane).
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.planes[0].bytesPerRow }

/// The pixels (for a planar buffer, the first plane's).
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? { pixelBuffer.memory }

/// The first byte of plane `planeIndex`; nil for a plane the buffer does not have.
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> UnsafeMutableRawPointer? {
    guard pixelBuffer.planes.indices.contains(planeIndex) else { return nil }
    return pixelBuffer.memory + pixelBuffer.planes[planeIndex].offset
}

/// The row length in bytes of plane `planeIndex`; 0 for a plane the buffer does not have.
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    pixelBuffer.planes.indices.contains(planeIndex) ? pixelBuffer.planes[planeIndex].bytesPerRow : 0
}

/// The width in samples of plane `planeIndex` (half the picture's, rounded up, for CbCr); 0 for a plane the buffer does not have.
public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    pixelBuffer.planes.indices.contains(planeIndex) ? pixelBuffer.planes[planeIndex].width : 0
}

/// The height in rows of plane `planeIndex` (half the picture's, rounded up, for CbCr); 0 for a plane the buffer does not have.
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    pixelBuffer.planes.indices.contains(planeIndex) ? pixelBuffer.planes[planeIndex].height : 0
}

/// Counts a lock (the memory is always addressable here).
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn {
    pixelBuffer.locks.add(1, ordering: .relaxed)
    return kCVReturnSuccess
}

/// Ends a lock; unlocking a buffer that is not locked is an invalid argument.
@discardableResult
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags) -> CVReturn {
    var count = pixelBuffer.locks.load(ordering: .relaxed)
    while true {
        guard count > 0 else { return kCVReturnInvalidArgument }
        let (exchanged, original) = pixelBuffer.locks.compareExchange(expected: count, desired: count - 1, ordering: .relaxed)
        if exchanged { return kCVReturnSuccess }
        count = original
    }
}
