import Foundation
import Synchronization

/// A picture in memory, in one of the pixel formats of `CVPixelFormats.swift`: one plane (32-bit RGB
/// orders), two (4:2:0 bi-planar: Y, then CbCr at half width and height, 8 or 10 bits) or three (4:2:0
/// planar: Y, Cb, Cr, 8 bits). Apple's
/// CoreVideo type, reached through its C functions (``CVPixelBufferCreate(_:_:_:_:_:_:)``,
/// ``CVPixelBufferGetWidth(_:)``, ...); ``CVImageBuffer`` and ``CVPixelBuffer`` name the same class, as
/// Apple's typealiases do.
///
/// Its memory lives as long as the buffer (a buffer from a ``CVPixelBufferPool`` gives it back to the
/// pool). Locking is counted, as Apple's is, and the memory is readable whether or not it is locked.
/// Rows are aligned to 16 bytes unless the attributes ask for another alignment.
public final class CVBuffer: @unchecked Sendable {
    // @unchecked Sendable: the layout is immutable; the memory is the caller's to coordinate, as with
    // Apple's buffers (lock, write, unlock); the lock count is atomic.

    /// One plane of the picture: where it starts in the memory, its size in samples, its row length.
    package struct Plane: Sendable, Equatable {
        package let offset: Int
        package let width: Int
        package let height: Int
        package let bytesPerRow: Int
    }

    package let width: Int
    package let height: Int
    package let pixelFormat: OSType
    package let planes: [Plane]
    package let memory: UnsafeMutableRawPointer
    package let byteCount: Int
    package let locks = Atomic<Int>(0)
    /// The buffer's attachments (`CMSetAttachment` and the rest).
    package let attachmentStorage = AttachmentStorage()
    /// Gives the memory back (to its pool, or to the heap).
    private let release: @Sendable (UnsafeMutableRawPointer, Int) -> Void

    /// A buffer of `width` x `height` pixels in `pixelFormat`, zeroed; nil for a format Avocet's buffers
    /// do not hold, a size outside 1...65536, or memory that cannot be had.
    package convenience init?(width: Int, height: Int, pixelFormat: OSType, rowAlignment: Int = 16) {
        guard let layout = Self.layout(width: width, height: height, pixelFormat: pixelFormat, rowAlignment: rowAlignment),
              let memory = Self.zeroedMemory(layout.byteCount) else { return nil }
        self.init(width: width, height: height, pixelFormat: pixelFormat, planes: layout.planes, memory: memory,
                  byteCount: layout.byteCount) { pointer, _ in free(pointer) }
    }

    /// `count` zeroed bytes from the C heap (zeroed lazily by the kernel for large sizes), freed with
    /// `free`; nil when the memory cannot be had, never a trap.
    package static func zeroedMemory(_ count: Int) -> UnsafeMutableRawPointer? {
        calloc(1, max(count, 1))
    }

    /// A buffer over `memory` (of `byteCount` bytes, laid out as `planes`), handed back by `release`.
    package init(width: Int, height: Int, pixelFormat: OSType, planes: [Plane], memory: UnsafeMutableRawPointer, byteCount: Int,
                 release: @escaping @Sendable (UnsafeMutableRawPointer, Int) -> Void) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.planes = planes
        self.memory = memory
        self.byteCount = byteCount
        self.release = release
    }

    /// The planes and byte count of a buffer of this size and format; nil where there is none.
    package static func layout(width: Int, height: Int, pixelFormat: OSType, rowAlignment: Int) -> (planes: [Plane], byteCount: Int)? {
        guard width > 0, height > 0, width <= 65536, height <= 65536, (1...4096).contains(rowAlignment),
              let planes = planeLayout(pixelFormat, width: width, height: height, rowAlignment: rowAlignment) else { return nil }
        return (planes, planes.map { $0.offset + $0.bytesPerRow * $0.height }.max() ?? 0)
    }

    deinit { release(memory, byteCount) }

    package var isPlanar: Bool { planes.count > 1 }
}

/// A buffer holding an image: the same class as ``CVBuffer``, as Apple's typealias makes it.
public typealias CVImageBuffer = CVBuffer
/// A buffer holding pixels in memory: the same class as ``CVBuffer``, as Apple's typealias makes it.
public typealias CVPixelBuffer = CVImageBuffer
