import Foundation

/// A format description of audio; the same type as ``CMFormatDescription``.
public typealias CMAudioFormatDescription = CMFormatDescription
/// A format description of video; the same type as ``CMFormatDescription``.
public typealias CMVideoFormatDescription = CMFormatDescription

/// Errors of CoreMedia's format-description calls (`OSStatus` codes as Apple defines them).
public struct CMFormatDescriptionError: Error, Hashable, Sendable {
    /// The `OSStatus` code.
    public let status: Int32
    /// A parameter was out of range (``kCMFormatDescriptionError_InvalidParameter``, -12710).
    public static let invalidParameter = CMFormatDescriptionError(status: -12710)
}

/// An immutable description of one kind of media sample: media type, codec subtype, extensions and,
/// for audio and video, the stream's basic description or dimensions.
///
/// A reference type as on Apple's platforms; equality and hashing compare contents, so
/// `Set(track formatDescriptions)` removes duplicates. Creating one does no I/O.
// @unchecked Sendable: every stored property is immutable after init; `asbdPointer` is written once
// in init and freed in deinit.
public final class CMFormatDescription: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The media type, such as ``MediaType/audio`` or ``MediaType/video``.
    public let mediaType: MediaType
    /// The codec, such as ``MediaSubType/h264`` or ``MediaSubType/mpeg4AAC``.
    public let mediaSubType: MediaSubType
    /// The extensions: codec name, pixel aspect ratio, colour properties and the like.
    public let extensions: Extensions
    /// The audio stream's basic description; nil for non-audio media.
    public let audioStreamBasicDescription: AudioStreamBasicDescription?
    /// The codec's private setup data (for example an AAC AudioSpecificConfig); nil when there is none.
    public let magicCookie: Data?
    private let videoDimensions: CMVideoDimensions?
    /// The key table of a boxed metadata description (`'mebx'`); empty for other descriptions.
    package let metadataKeyTable: [CMMetadataKeyTableEntry]
    /// A stable copy of the ASBD for the C-style accessor that returns a pointer.
    fileprivate let asbdPointer: UnsafeMutablePointer<AudioStreamBasicDescription>?

    /// Internal constructor used by AVFoundation to describe demuxed tracks.
    package init(
        mediaType: MediaType, mediaSubType: MediaSubType, extensions: Extensions = Extensions(),
        audioStreamBasicDescription: AudioStreamBasicDescription? = nil, dimensions: CMVideoDimensions? = nil,
        magicCookie: Data? = nil, metadataKeyTable: [CMMetadataKeyTableEntry] = []
    ) {
        self.metadataKeyTable = metadataKeyTable
        self.mediaType = mediaType
        self.mediaSubType = mediaSubType
        self.extensions = extensions
        self.audioStreamBasicDescription = mediaType == .audio ? audioStreamBasicDescription : nil
        self.videoDimensions = dimensions
        self.magicCookie = magicCookie
        if let asbd = self.audioStreamBasicDescription {
            asbdPointer = .allocate(capacity: 1)
            asbdPointer?.initialize(to: asbd)
        } else {
            asbdPointer = nil
        }
    }

    deinit {
        asbdPointer?.deinitialize(count: 1)
        asbdPointer?.deallocate()
    }

    /// A description of any media type.
    ///
    /// It has no stream description and zero ``dimensions``; use
    /// ``init(audioStreamBasicDescription:extensions:)`` or
    /// ``init(videoCodecType:width:height:extensions:)`` for audio and video.
    ///
    /// - Parameters:
    ///   - mediaType: The media type, such as ``MediaType/text``.
    ///   - mediaSubType: The codec or format, such as ``MediaSubType/webVTT``.
    ///   - extensions: The extensions; nil for none.
    /// - Throws: Nothing: the initializer throws only as Apple's does.
    public convenience init(mediaType: MediaType, mediaSubType: MediaSubType, extensions: Extensions? = nil) throws {
        self.init(mediaType: mediaType, mediaSubType: mediaSubType, extensions: extensions ?? Extensions(),
                  audioStreamBasicDescription: nil, dimensions: nil, magicCookie: nil)
    }

    /// An audio description; its subtype is the ASBD's format ID. Throws for a non-positive sample rate.
    ///
    /// - Parameters:
    ///   - asbd: The stream's basic description; its `mFormatID` becomes ``mediaSubType``.
    ///   - extensions: The extensions; nil for none.
    /// - Throws: ``CMFormatDescriptionError/invalidParameter`` when `mSampleRate` is not more than 0.
    public convenience init(audioStreamBasicDescription asbd: AudioStreamBasicDescription, extensions: Extensions? = nil) throws {
        guard asbd.mSampleRate > 0 else { throw CMFormatDescriptionError.invalidParameter }
        self.init(mediaType: .audio, mediaSubType: MediaSubType(rawValue: asbd.mFormatID), extensions: extensions ?? Extensions(),
                  audioStreamBasicDescription: asbd, dimensions: nil, magicCookie: nil)
    }

    /// A video description of `width` by `height` encoded pixels. Throws for a negative or too large size.
    ///
    /// - Parameters:
    ///   - videoCodecType: The codec, such as ``MediaSubType/h264``.
    ///   - width: The encoded width in pixels, 0 to `Int32.max`.
    ///   - height: The encoded height in pixels, 0 to `Int32.max`.
    ///   - extensions: The extensions, such as ``Extensions/Key/pixelAspectRatio``; nil for none.
    /// - Throws: ``CMFormatDescriptionError/invalidParameter`` for a negative width or height, or one
    ///   past `Int32.max`.
    public convenience init(videoCodecType: MediaSubType, width: Int, height: Int, extensions: Extensions? = nil) throws {
        guard let w = Int32(exactly: width), let h = Int32(exactly: height), w >= 0, h >= 0 else {
            throw CMFormatDescriptionError.invalidParameter
        }
        self.init(mediaType: .video, mediaSubType: videoCodecType, extensions: extensions ?? Extensions(),
                  audioStreamBasicDescription: nil, dimensions: CMVideoDimensions(width: w, height: h), magicCookie: nil)
    }

    /// Encoded width and height (no pixel aspect ratio or clean aperture applied); zero for non-video media.
    public var dimensions: CMVideoDimensions { videoDimensions ?? CMVideoDimensions() }

    /// The displayed size: the encoded size with the `pixelAspectRatio` extension applied to the width when
    /// `usePixelAspectRatio` is true. Clean aperture is not carried on Linux, so `useCleanAperture` changes nothing.
    ///
    /// - Parameters:
    ///   - usePixelAspectRatio: Whether to scale the width by the ``Extensions/Key/pixelAspectRatio``
    ///     extension (horizontal over vertical spacing), when there is one.
    ///   - useCleanAperture: Accepted and not read.
    /// - Returns: The size in pixels; zero for non-video media.
    public func presentationDimensions(usePixelAspectRatio: Bool = true, useCleanAperture: Bool = true) -> CGSize {
        let d = dimensions
        var width = CGFloat(d.width)
        if usePixelAspectRatio, let par = extensions[.pixelAspectRatio]?.pixelAspectRatio, par.vertical > 0 {
            width = width * CGFloat(par.horizontal) / CGFloat(par.vertical)
        }
        return CGSize(width: width, height: CGFloat(d.height))
    }

    /// Whether both describe the same media: type, subtype, extensions, stream description, dimensions,
    /// magic cookie and metadata key table.
    public static func == (lhs: CMFormatDescription, rhs: CMFormatDescription) -> Bool {
        lhs === rhs || (lhs.mediaType == rhs.mediaType && lhs.mediaSubType == rhs.mediaSubType
            && lhs.extensions == rhs.extensions && lhs.audioStreamBasicDescription == rhs.audioStreamBasicDescription
            && lhs.videoDimensions == rhs.videoDimensions && lhs.magicCookie == rhs.magicCookie
            && lhs.metadataKeyTable == rhs.metadataKeyTable)
    }

    /// Hashes the same contents that `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaType)
        hasher.combine(mediaSubType)
        hasher.combine(extensions)
        hasher.combine(audioStreamBasicDescription)
        hasher.combine(videoDimensions)
        hasher.combine(magicCookie)
        hasher.combine(metadataKeyTable)
    }

    /// The media type, subtype and, where there are any, sample rate and channels or dimensions.
    public var description: String {
        var parts = ["mediaType:'\(mediaType)'", "mediaSubType:'\(mediaSubType)'"]
        if let asbd = audioStreamBasicDescription {
            parts.append("sampleRate:\(asbd.mSampleRate) channels:\(asbd.mChannelsPerFrame)")
        }
        if let d = videoDimensions { parts.append("dimensions:\(d.width)x\(d.height)") }
        return "<CMFormatDescription \(parts.joined(separator: " "))>"
    }
}

/// The media type's four-character code.
public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType { desc.mediaType.rawValue }
/// The media subtype's four-character code.
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode { desc.mediaSubType.rawValue }
/// The encoded width and height; zero for non-video media.
public func CMVideoFormatDescriptionGetDimensions(_ videoDesc: CMVideoFormatDescription) -> CMVideoDimensions {
    videoDesc.dimensions
}
/// The displayed size, as ``CMFormatDescription/presentationDimensions(usePixelAspectRatio:useCleanAperture:)``
/// gives it.
public func CMVideoFormatDescriptionGetPresentationDimensions(
    _ videoDesc: CMVideoFormatDescription, usePixelAspectRatio: Bool, useCleanAperture: Bool
) -> CGSize {
    videoDesc.presentationDimensions(usePixelAspectRatio: usePixelAspectRatio, useCleanAperture: useCleanAperture)
}
/// The extension stored under `extensionKey`, as its property-list value (String, Int, Double, Bool,
/// Data, array or dictionary); nil when absent.
///
/// - Parameters:
///   - desc: The format description.
///   - extensionKey: The key's string, such as `"FormatName"`
///     (``CMFormatDescription/Extensions/Key/formatName``).
/// - Returns: The value, as ``CMFormatDescription/Extensions/Value/propertyListRepresentation`` gives
///   it; nil when the description has no extension under `extensionKey`.
public func CMFormatDescriptionGetExtension(_ desc: CMFormatDescription, extensionKey: String) -> Any? {
    desc.extensions[CMFormatDescription.Extensions.Key(rawValue: extensionKey)]?.propertyListRepresentation
}

/// The stream description of an audio format description, as Apple's C accessor returns it: a pointer
/// valid for as long as `desc` lives. Prefer ``CMFormatDescription/audioStreamBasicDescription``.
///
/// - Returns: The stream description; nil for a description that is not of audio.
public func CMAudioFormatDescriptionGetStreamBasicDescription(
    _ desc: CMAudioFormatDescription
) -> UnsafePointer<AudioStreamBasicDescription>? {
    desc.asbdPointer.map { UnsafePointer($0) }
}
