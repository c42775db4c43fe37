import Foundation

// The keys of pixel-buffer attribute dictionaries, with Apple's raw values. Constants of an
// immutable class (NSString, as CFString is here), so shared without a lock.

/// The pixel format: an ``OSType`` as a number (or an array of them, of which the first is used).
nonisolated(unsafe) public let kCVPixelBufferPixelFormatTypeKey: CFString = "PixelFormatType"
/// The width in pixels (a number).
nonisolated(unsafe) public let kCVPixelBufferWidthKey: CFString = "Width"
/// The height in pixels (a number).
nonisolated(unsafe) public let kCVPixelBufferHeightKey: CFString = "Height"
/// The alignment of each row's length in bytes (a number; 16 unless given).
nonisolated(unsafe) public let kCVPixelBufferBytesPerRowAlignmentKey: CFString = "BytesPerRowAlignment"
/// IOSurface backing (accepted and ignored: Linux has no IOSurface).
nonisolated(unsafe) public let kCVPixelBufferIOSurfacePropertiesKey: CFString = "IOSurfaceProperties"
/// Metal compatibility (accepted and ignored).
nonisolated(unsafe) public let kCVPixelBufferMetalCompatibilityKey: CFString = "MetalCompatibility"
/// CGImage compatibility (accepted; every buffer is plain memory).
nonisolated(unsafe) public let kCVPixelBufferCGImageCompatibilityKey: CFString = "CGImageCompatibility"
/// CGBitmapContext compatibility (accepted; every buffer is plain memory).
nonisolated(unsafe) public let kCVPixelBufferCGBitmapContextCompatibilityKey: CFString = "CGBitmapContextCompatibility"
/// OpenGL ES compatibility (accepted and ignored).
nonisolated(unsafe) public let kCVPixelBufferOpenGLESCompatibilityKey: CFString = "OpenGLESCompatibility"
/// OpenGL compatibility (accepted and ignored).
nonisolated(unsafe) public let kCVPixelBufferOpenGLCompatibilityKey: CFString = "OpenGLCompatibility"
/// A pool attribute: buffers the pool keeps for reuse at least (a number).
nonisolated(unsafe) public let kCVPixelBufferPoolMinimumBufferCountKey: CFString = "MinimumBufferCount"
/// A pool attribute: seconds an unused buffer is kept for reuse (a number; accepted, buffers are kept
/// until the pool is flushed or goes).
nonisolated(unsafe) public let kCVPixelBufferPoolMaximumBufferAgeKey: CFString = "MaximumBufferAge"
/// An auxiliary attribute: the most buffers of the pool alive at once before creating one more fails
/// with ``kCVReturnWouldExceedAllocationThreshold`` (a number). Read by
/// ``CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(_:_:_:_:)``.
nonisolated(unsafe) public let kCVPixelBufferPoolAllocationThresholdKey: CFString = "AllocationThreshold"

/// The numbers an attribute dictionary holds (as NSNumber, or Swift integers bridged into it).
func number(_ value: Any?) -> Int? {
    switch value {
    case let number as NSNumber: return number.intValue
    case let integer as any BinaryInteger: return Int(clamping: integer)
    default: return nil
    }
}

/// The pixel format an attribute dictionary names: a number, or the first of an array of them.
func pixelFormat(in attributes: CFDictionary?) -> OSType? {
    let value = attributes?[kCVPixelBufferPixelFormatTypeKey]
    if let list = value as? [Any], let first = list.first { return number(first).map { OSType(truncatingIfNeeded: $0) } }
    if let list = value as? NSArray, let first = list.firstObject { return number(first).map { OSType(truncatingIfNeeded: $0) } }
    return number(value).map { OSType(truncatingIfNeeded: $0) }
}
