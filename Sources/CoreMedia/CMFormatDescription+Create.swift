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
    /// `CMAudioFormatDescriptionCreate`). Throws for a non-positive sample rate.
    public convenience init(audioStreamBasicDescription asbd: AudioStreamBasicDescription, layoutSize: Int,
                            layout: UnsafePointer<AudioChannelLayout>?, magicCookie: Data?,
                            extensions: Extensions? = nil) throws {
        guard asbd.mSampleRate > 0, asbd.mSampleRate.isFinite, (layout == nil) == (layoutSize == 0) else {
            throw CMFormatDescriptionError.invalidParameter
        }
        self.init(mediaType: .audio, mediaSubType: MediaSubType(rawValue: asbd.mFormatID), extensions: extensions ?? Extensions(),
                  audioStreamBasicDescription: asbd, dimensions: nil, magicCookie: magicCookie)
    }

    /// A description of `imageBuffer`: its pixel format and size (`CMVideoFormatDescriptionCreateForImageBuffer`).
    public convenience init(imageBuffer: CVImageBuffer) throws {
        var made: CMVideoFormatDescription?
        let status = CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: imageBuffer, formatDescriptionOut: &made)
        guard status == noErr, let made else { throw CMFormatDescriptionError(status: status) }
        self.init(mediaType: made.mediaType, mediaSubType: made.mediaSubType, extensions: made.extensions,
                  dimensions: made.dimensions)
    }

    /// Whether the description matches `imageBuffer`'s format and size.
    public func matchesImageBuffer(_ imageBuffer: CVImageBuffer) -> Bool {
        CMVideoFormatDescriptionMatchesImageBuffer(self, imageBuffer: imageBuffer)
    }
}
