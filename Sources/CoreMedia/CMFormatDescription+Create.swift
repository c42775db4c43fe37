import Foundation

// The C-style creators of format descriptions, and the overlay's audio initializer with a layout and
// a magic cookie. Nothing here does I/O.

/// A parameter was out of range.
public let kCMFormatDescriptionError_InvalidParameter: OSStatus = -12710
/// Memory could not be had.
public let kCMFormatDescriptionError_AllocationFailed: OSStatus = -12711
/// The value asked for is not in the description.
public let kCMFormatDescriptionError_ValueNotAvailable: OSStatus = -12718

/// An audio description from a stream description, an optional magic cookie (the codec's setup
/// bytes) and extensions. The channel layout is checked (its size must be 0 when it is nil) but not
/// kept: Avocet's descriptions carry the channel count of the stream description only.
///
/// - Parameters:
///   - allocator: Ignored.
///   - asbd: The stream's basic description; its `mFormatID` becomes the media subtype.
///   - layoutSize: The layout's size in bytes; 0 when `layout` is nil, more than 0 when it is not.
///   - layout: The channel layout, or nil; checked, not kept.
///   - magicCookieSize: The cookie's size in bytes; 0 when `magicCookie` is nil, more than 0 when it
///     is not.
///   - magicCookie: The codec's setup bytes (such as an AAC AudioSpecificConfig), or nil; copied into
///     ``CMFormatDescription/magicCookie``.
///   - extensions: String keys and property-list values; values of other types are dropped.
///   - formatDescriptionOut: Receives the description; nil when the call fails.
/// - Returns: `noErr`, or ``kCMFormatDescriptionError_InvalidParameter`` for a sample rate that is not
///   more than 0 and finite, a negative size, or a size that does not match its pointer.
@discardableResult
public func CMAudioFormatDescriptionCreate(allocator: CFAllocator?, asbd: UnsafePointer<AudioStreamBasicDescription>,
                                           layoutSize: Int, layout: UnsafePointer<AudioChannelLayout>?, magicCookieSize: Int,
                                           magicCookie: UnsafeRawPointer?, extensions: CFDictionary?,
                                           formatDescriptionOut: UnsafeMutablePointer<CMAudioFormatDescription?>) -> OSStatus {
    formatDescriptionOut.pointee = nil
    let description = asbd.pointee
    guard description.mSampleRate > 0, description.mSampleRate.isFinite, layoutSize >= 0, magicCookieSize >= 0,
          (layout == nil) == (layoutSize == 0), (magicCookie == nil) == (magicCookieSize == 0) else {
        return kCMFormatDescriptionError_InvalidParameter
    }
    let cookie = magicCookie.map { Data(bytes: $0, count: magicCookieSize) }
    formatDescriptionOut.pointee = CMFormatDescription(
        mediaType: .audio, mediaSubType: CMFormatDescription.MediaSubType(rawValue: description.mFormatID),
        extensions: CMFormatDescription.Extensions(base: extensions as? [String: Any]), audioStreamBasicDescription: description,
        magicCookie: cookie)
    return noErr
}

/// A video description of `width` x `height` encoded pixels of `codecType`.
///
/// - Parameters:
///   - allocator: Ignored.
///   - codecType: The codec, such as ``kCMVideoCodecType_H264``.
///   - width: The encoded width in pixels.
///   - height: The encoded height in pixels.
///   - extensions: String keys and property-list values; values of other types are dropped.
///   - formatDescriptionOut: Receives the description; nil when the call fails.
/// - Returns: `noErr`, or ``kCMFormatDescriptionError_InvalidParameter`` for a negative width or
///   height.
@discardableResult
public func CMVideoFormatDescriptionCreate(allocator: CFAllocator?, codecType: CMVideoCodecType, width: Int32, height: Int32,
                                           extensions: CFDictionary?,
                                           formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>) -> OSStatus {
    formatDescriptionOut.pointee = nil
    guard width >= 0, height >= 0 else { return kCMFormatDescriptionError_InvalidParameter }
    formatDescriptionOut.pointee = CMFormatDescription(
        mediaType: .video, mediaSubType: CMFormatDescription.MediaSubType(rawValue: codecType),
        extensions: CMFormatDescription.Extensions(base: extensions as? [String: Any]),
        dimensions: CMVideoDimensions(width: width, height: height))
    return noErr
}

/// A description of any media type.
///
/// - Parameters:
///   - allocator: Ignored.
///   - mediaType: The media type, such as ``kCMMediaType_Text``.
///   - mediaSubType: The codec or format's four-character code.
///   - extensions: String keys and property-list values; values of other types are dropped.
///   - formatDescriptionOut: Receives the description.
/// - Returns: `noErr`, always.
@discardableResult
public func CMFormatDescriptionCreate(allocator: CFAllocator?, mediaType: CMMediaType, mediaSubType: FourCharCode, extensions: CFDictionary?,
                                      formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>) -> OSStatus {
    formatDescriptionOut.pointee = CMFormatDescription(
        mediaType: CMFormatDescription.MediaType(rawValue: mediaType), mediaSubType: CMFormatDescription.MediaSubType(rawValue: mediaSubType),
        extensions: CMFormatDescription.Extensions(base: extensions as? [String: Any]))
    return noErr
}

extension CMFormatDescription {
    /// An audio description with a magic cookie; the layout is checked but not kept (see
    /// ``CMAudioFormatDescriptionCreate(allocator:asbd:layoutSize:layout:magicCookieSize:magicCookie:extensions:formatDescriptionOut:)``).
    /// Throws for a non-positive sample rate.
    ///
    /// - Parameters:
    ///   - asbd: The stream's basic description; its `mFormatID` becomes ``mediaSubType``.
    ///   - layoutSize: The layout's size in bytes; 0 when `layout` is nil, not 0 when it is not.
    ///   - layout: The channel layout, or nil; checked, not kept.
    ///   - magicCookie: The codec's setup bytes, or nil.
    ///   - extensions: The extensions; nil for none.
    /// - Throws: ``CMFormatDescriptionError/invalidParameter`` for a sample rate that is not more than
    ///   0 and finite, or a `layoutSize` that does not match `layout`.
    public convenience init(audioStreamBasicDescription asbd: AudioStreamBasicDescription, layoutSize: Int,
                            layout: UnsafePointer<AudioChannelLayout>?, magicCookie: Data?,
                            extensions: Extensions? = nil) throws {
        guard asbd.mSampleRate > 0, asbd.mSampleRate.isFinite, (layout == nil) == (layoutSize == 0) else {
            throw CMFormatDescriptionError.invalidParameter
        }
        self.init(mediaType: .audio, mediaSubType: MediaSubType(rawValue: asbd.mFormatID), extensions: extensions ?? Extensions(),
                  audioStreamBasicDescription: asbd, dimensions: nil, magicCookie: magicCookie)
    }

    /// A description of `imageBuffer`: its pixel format and size
    /// (``CMVideoFormatDescriptionCreateForImageBuffer(allocator:imageBuffer:formatDescriptionOut:)``).
    ///
    /// - Parameter imageBuffer: The picture; its pixel format becomes ``mediaSubType``.
    /// - Throws: A ``CMFormatDescriptionError`` with the call's status, which is always `noErr` here.
    public convenience init(imageBuffer: CVImageBuffer) throws {
        var made: CMVideoFormatDescription?
        let status = CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: imageBuffer, formatDescriptionOut: &made)
        guard status == noErr, let made else { throw CMFormatDescriptionError(status: status) }
        self.init(mediaType: made.mediaType, mediaSubType: made.mediaSubType, extensions: made.extensions,
                  dimensions: made.dimensions)
    }

    /// Whether the description matches `imageBuffer`'s format and size.
    ///
    /// - Returns: true when the description is of video, its subtype is the buffer's pixel format and
    ///   its ``dimensions`` are the buffer's width and height.
    public func matchesImageBuffer(_ imageBuffer: CVImageBuffer) -> Bool {
        CMVideoFormatDescriptionMatchesImageBuffer(self, imageBuffer: imageBuffer)
    }
}
