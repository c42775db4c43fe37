import Foundation

// CoreFoundation's names for the Foundation types that CoreVideo and CoreMedia take and give (Avocet's
// stand-ins: Linux's Foundation exports none of CoreFoundation's types). They are the bridged
// Foundation classes, so Apple's spellings compile: `[kCVPixelBufferPixelFormatTypeKey as String:
// kCVPixelFormatType_32BGRA] as CFDictionary`, `"key" as CFString`, `value as? NSNumber`.

/// A count or index of CoreFoundation's (a signed machine word).
public typealias CFIndex = Int
/// A string (Foundation's `NSString`).
public typealias CFString = NSString
/// A dictionary (Foundation's `NSDictionary`).
public typealias CFDictionary = NSDictionary
/// A mutable dictionary (Foundation's `NSMutableDictionary`).
public typealias CFMutableDictionary = NSMutableDictionary
/// An array (Foundation's `NSArray`).
public typealias CFArray = NSArray
/// A number (Foundation's `NSNumber`).
public typealias CFNumber = NSNumber
/// Any CoreFoundation object.
public typealias CFTypeRef = AnyObject

/// Four ASCII characters packed big-endian into 32 bits (`'soun'` is 0x736F756E).
public typealias FourCharCode = UInt32
/// A four-character code used as a type identifier.
public typealias OSType = FourCharCode
/// Status codes of the C-style functions (0: no error).
public typealias OSStatus = Int32
/// A boolean (Foundation's `NSNumber`).
public typealias CFBoolean = NSNumber
/// True, as CoreFoundation's boolean.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// False, as CoreFoundation's boolean.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// A range of CoreFoundation's: a start and a length.
public struct CFRange: Hashable, Sendable {
    /// The first index.
    public var location: CFIndex
    /// How many.
    public var length: CFIndex
    /// A range of `length` items from `location`.
    public init(location: CFIndex, length: CFIndex) {
        self.location = location
        self.length = length
    }
}

/// A range of `len` items from `loc`, as ``CFRange/init(location:length:)`` makes it.
public func CFRangeMake(_ loc: CFIndex, _ len: CFIndex) -> CFRange { CFRange(location: loc, length: len) }
