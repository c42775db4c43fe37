import Foundation

// CoreVideo's C-style functions on pixel buffers and their pools, with Apple's names, argument
// labels and CVReturn codes. None blocks or does I/O.

/// A new buffer of `width` x `height` pixels in `pixelFormatType`, zeroed (by the C heap: large
/// buffers cost no work until written). The explicit arguments win over the attributes, of which
/// ``kCVPixelBufferBytesPerRowAlignmentKey`` is read; other keys are accepted.
///
/// - Parameters:
///   - allocator: Ignored: the memory comes from the C heap.
///   - width: The width in pixels, 1 to 65536.
///   - height: The height in pixels, 1 to 65536.
///   - pixelFormatType: One of the formats Avocet's buffers hold, such as ``kCVPixelFormatType_32BGRA``
///     or ``kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange``.
///   - pixelBufferAttributes: The attributes, or nil: rows are then aligned to 16 bytes.
///   - pixelBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: ``kCVReturnSuccess``; ``kCVReturnInvalidSize`` for a size outside 1...65536,
///   ``kCVReturnInvalidPixelBufferAttributes`` for a row alignment outside 1...4096,
///   ``kCVReturnInvalidPixelFormat`` for a format Avocet's buffers do not hold (both: a buffer Avocet
///   cannot hold), ``kCVReturnAllocationFailed`` when the memory cannot be had.
@discardableResult
public func CVPixelBufferCreate(_ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
                                _ pixelBufferAttributes: CFDictionary?, _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    pixelBufferOut.pointee = nil
    guard width > 0, height > 0, width <= 65536, height <= 65536 else { return kCVReturnInvalidSize }
    let alignment = number(pixelBufferAttributes?[kCVPixelBufferBytesPerRowAlignmentKey]) ?? 16
    guard (1...4096).contains(alignment) else { return kCVReturnInvalidPixelBufferAttributes }
    guard CVBuffer.layout(width: width, height: height, pixelFormat: pixelFormatType, rowAlignment: alignment) != nil else {
        return kCVReturnInvalidPixelFormat
    }
    guard let buffer = CVBuffer(width: width, height: height, pixelFormat: pixelFormatType, rowAlignment: alignment) else {
        return kCVReturnAllocationFailed
    }
    pixelBufferOut.pointee = buffer
    return kCVReturnSuccess
}

/// A pool of buffers as `pixelBufferAttributes` describe them (pixel format, width and height are
/// required; ``kCVPixelBufferBytesPerRowAlignmentKey`` is read); `poolAttributes` may give
/// ``kCVPixelBufferPoolMinimumBufferCountKey``, the memory ``CVPixelBufferPoolFlush(_:_:)`` keeps.
///
/// Creating the pool allocates no buffer: the first ones come with
/// ``CVPixelBufferPoolCreatePixelBuffer(_:_:_:)``.
///
/// - Parameters:
///   - allocator: Ignored.
///   - poolAttributes: The pool's attributes, or nil (a minimum of 0 buffers). Kept, and given back by
///     ``CVPixelBufferPoolGetAttributes(_:)``.
///   - pixelBufferAttributes: The buffers' attributes: ``kCVPixelBufferPixelFormatTypeKey``,
///     ``kCVPixelBufferWidthKey`` and ``kCVPixelBufferHeightKey`` are required. Kept, and given back by
///     ``CVPixelBufferPoolGetPixelBufferAttributes(_:)``.
///   - poolOut: Receives the pool; nil when the call fails.
/// - Returns: ``kCVReturnSuccess``; ``kCVReturnInvalidPixelBufferAttributes`` when a required key is
///   missing or the format, size or row alignment is not one Avocet's buffers hold;
///   ``kCVReturnInvalidPoolAttributes`` for a negative minimum buffer count.
@discardableResult
public func CVPixelBufferPoolCreate(_ allocator: CFAllocator?, _ poolAttributes: CFDictionary?, _ pixelBufferAttributes: CFDictionary?,
                                    _ poolOut: UnsafeMutablePointer<CVPixelBufferPool?>) -> CVReturn {
    poolOut.pointee = nil
    guard let format = pixelFormat(in: pixelBufferAttributes),
          let width = number(pixelBufferAttributes?[kCVPixelBufferWidthKey]),
          let height = number(pixelBufferAttributes?[kCVPixelBufferHeightKey]) else { return kCVReturnInvalidPixelBufferAttributes }
    let alignment = number(pixelBufferAttributes?[kCVPixelBufferBytesPerRowAlignmentKey]) ?? 16
    guard let layout = CVBuffer.layout(width: width, height: height, pixelFormat: format, rowAlignment: alignment) else {
        return kCVReturnInvalidPixelBufferAttributes
    }
    let minimum = number(poolAttributes?[kCVPixelBufferPoolMinimumBufferCountKey]) ?? 0
    guard minimum >= 0 else { return kCVReturnInvalidPoolAttributes }
    poolOut.pointee = CVPixelBufferPool(width: width, height: height, pixelFormat: format, planes: layout.planes,
                                        byteCount: layout.byteCount, minimumBufferCount: minimum,
                                        attributes: poolAttributes, pixelBufferAttributes: pixelBufferAttributes)
    return kCVReturnSuccess
}

/// A buffer from the pool (reused memory when there is some).
///
/// - Parameters:
///   - allocator: Ignored.
///   - pixelBufferPool: The pool to take the buffer from.
///   - pixelBufferOut: Receives the buffer; nil when the call fails. A reused buffer holds the pixels
///     it last held, as with Apple's pools; a new one is zeroed.
/// - Returns: ``kCVReturnSuccess``, or ``kCVReturnPoolAllocationFailed`` when the memory cannot be had.
@discardableResult
public func CVPixelBufferPoolCreatePixelBuffer(_ allocator: CFAllocator?, _ pixelBufferPool: CVPixelBufferPool,
                                               _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(allocator, pixelBufferPool, nil, pixelBufferOut)
}

/// A buffer from the pool, unless ``kCVPixelBufferPoolAllocationThresholdKey`` in `auxAttributes` says
/// that many of the pool's buffers are alive already (``kCVReturnWouldExceedAllocationThreshold``).
///
/// - Parameters:
///   - allocator: Ignored.
///   - pixelBufferPool: The pool to take the buffer from.
///   - auxAttributes: Attributes of this call, or nil (no threshold); only
///     ``kCVPixelBufferPoolAllocationThresholdKey`` is read.
///   - pixelBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: ``kCVReturnSuccess``; ``kCVReturnWouldExceedAllocationThreshold`` when the threshold's
///   count of the pool's buffers are alive; ``kCVReturnPoolAllocationFailed`` when the memory cannot
///   be had.
@discardableResult
public func CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(_ allocator: CFAllocator?, _ pixelBufferPool: CVPixelBufferPool,
                                                                _ auxAttributes: CFDictionary?,
                                                                _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    let threshold = number(auxAttributes?[kCVPixelBufferPoolAllocationThresholdKey])
    switch pixelBufferPool.makeBuffer(threshold: threshold) {
    case .success(let buffer):
        pixelBufferOut.pointee = buffer
        return kCVReturnSuccess
    case .failure(let refusal):
        pixelBufferOut.pointee = nil
        return refusal.status
    }
}

/// The pool's own attributes, as given.
///
/// - Returns: The `poolAttributes` given to ``CVPixelBufferPoolCreate(_:_:_:_:)``; nil when none were.
public func CVPixelBufferPoolGetAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? { pool.attributes }
/// The attributes of the buffers the pool makes, as given.
///
/// - Returns: The `pixelBufferAttributes` given to ``CVPixelBufferPoolCreate(_:_:_:_:)``.
public func CVPixelBufferPoolGetPixelBufferAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? { pool.pixelBufferAttributes }
/// Frees the memory kept for reuse beyond the pool's minimum
/// (``kCVPixelBufferPoolMinimumBufferCountKey``), whatever `options` says.
///
/// Buffers still in use are not touched: their memory returns to the pool when they go.
///
/// - Parameters:
///   - pool: The pool to flush.
///   - options: Accepted and not read: every flush frees what ``CVPixelBufferPoolFlushFlags/excessBuffers``
///     asks for.
public func CVPixelBufferPoolFlush(_ pool: CVPixelBufferPool, _ options: CVPixelBufferPoolFlushFlags) { pool.flush() }

/// The width in pixels.
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.width }
/// The height in pixels.
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.height }
/// The pixel format, such as ``kCVPixelFormatType_32BGRA``.
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { pixelBuffer.pixelFormat }
/// Whether the buffer has more than one plane (the 4:2:0 bi-planar formats).
public func CVPixelBufferIsPlanar(_ pixelBuffer: CVPixelBuffer) -> Bool { pixelBuffer.isPlanar }
/// 0 for a single-plane buffer, as Apple's.
///
/// - Returns: The number of planes: 2 for the 4:2:0 bi-planar formats, 0 for the others.
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.isPlanar ? pixelBuffer.planes.count : 0 }
/// The bytes of the buffer's memory, every plane included.
public func CVPixelBufferGetDataSize(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.byteCount }

/// The first plane's row length in bytes (a planar buffer's Y plane).
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.planes.first?.bytesPerRow ?? 0 }

/// The pixels (for a planar buffer, the first plane's).
///
/// The memory is addressable whether or not the buffer is locked (see
/// ``CVPixelBufferLockBaseAddress(_:_:)``).
///
/// - Returns: The first byte of the buffer's memory, valid while the buffer lives.
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? { pixelBuffer.memory }

/// The first byte of plane `planeIndex`; nil for a plane the buffer does not have.
///
/// - Parameters:
///   - pixelBuffer: The buffer.
///   - planeIndex: 0 for the Y plane, 1 for the CbCr plane (4:2:0 planar: 1 for Cb, 2 for Cr). A
///     single-plane buffer has plane 0 only.
/// - Returns: The plane's first byte, valid while the buffer lives; nil for a plane the buffer does
///   not have.
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> UnsafeMutableRawPointer? {
    guard pixelBuffer.planes.indices.contains(planeIndex) else { return nil }
    return pixelBuffer.memory + pixelBuffer.planes[planeIndex].offset
}

/// The row length in bytes of plane `planeIndex`; 0 for a plane the buffer does not have.
///
/// - Parameters:
///   - pixelBuffer: The buffer.
///   - planeIndex: 0 for the Y plane, 1 for the CbCr plane (4:2:0 planar: 1 for Cb, 2 for Cr).
/// - Returns: The bytes from one row's start to the next's, padding included; 0 for a plane the
///   buffer does not have.
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
///
/// Each lock is ended by one ``CVPixelBufferUnlockBaseAddress(_:_:)``.
///
/// - Parameters:
///   - pixelBuffer: The buffer to lock.
///   - lockFlags: Accepted and not read (``CVPixelBufferLockFlags/readOnly`` changes nothing here).
/// - Returns: ``kCVReturnSuccess``, always.
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn {
    pixelBuffer.locks.add(1, ordering: .relaxed)
    return kCVReturnSuccess
}

/// Ends a lock; unlocking a buffer that is not locked is an invalid argument.
///
/// - Parameters:
///   - pixelBuffer: The buffer to unlock.
///   - unlockFlags: Accepted and not read.
/// - Returns: ``kCVReturnSuccess``, or ``kCVReturnInvalidArgument`` when the buffer is not locked.
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
