/// CoreVideo's result codes (0: success).
public typealias CVReturn = Int32
/// No error.
public let kCVReturnSuccess: CVReturn = 0
/// An unspecified error (the first of CoreVideo's codes).
public let kCVReturnError: CVReturn = -6660
/// An argument was not valid, such as unlocking a buffer that is not locked.
public let kCVReturnInvalidArgument: CVReturn = -6661
/// Memory could not be allocated.
public let kCVReturnAllocationFailed: CVReturn = -6662
/// The operation is not supported.
public let kCVReturnUnsupported: CVReturn = -6663
/// The pixel format is not one Avocet's buffers hold.
public let kCVReturnInvalidPixelFormat: CVReturn = -6680
/// The width or height is 0, negative or too large.
public let kCVReturnInvalidSize: CVReturn = -6681
/// The pixel-buffer attributes contradict each other or name an unknown format.
public let kCVReturnInvalidPixelBufferAttributes: CVReturn = -6682
/// Creating one more buffer would pass the pool's allocation threshold.
public let kCVReturnWouldExceedAllocationThreshold: CVReturn = -6689
/// The pool could not allocate a buffer.
public let kCVReturnPoolAllocationFailed: CVReturn = -6690
/// The pool attributes are not valid.
public let kCVReturnInvalidPoolAttributes: CVReturn = -6691
