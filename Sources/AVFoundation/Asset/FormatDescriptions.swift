internal import MediaEngine
import Foundation

/// Builds the `CMFormatDescription` Apple would give for a demuxed stream.
enum FormatDescriptions {
    typealias SubType = CMFormatDescription.MediaSubType

    /// The media type of a stream as AVFoundation names it; nil for streams that are not tracks
    /// (cover art, attachments).
    static func mediaType(of stream: StreamInfo, in info: ContainerInfo) -> AVMediaType? {
        switch stream.kind {
        case .video: return stream.disposition.contains(.attachedPicture) ? nil : .video
        case .audio: return .audio
        case .subtitle:
            return stream.codec == .eia608 ? .closedCaption : .subtitle
        case .data:
            if stream.codec == .timedID3 { return .metadata }
            if fourCC(stream.codecTag) == "tmcd" { return .timecode }
            // QuickTime timed metadata (a phone's boxed metadata, GoPro's telemetry).
            if ["mebx", "gpmd"].contains(fourCC(stream.codecTag)) { return .metadata }
            // QuickTime chapter lists are text tracks (FFmpeg reads them as "bin_data").
            return info.isQuickTimeFamily ? .text : .metadata
        case .attachment, .unknown: return nil
        }
    }

    /// The codec's four-character code.
    static func subType(of stream: StreamInfo) -> SubType {
        switch stream.codec {
        case .h264: return preferredTag(stream, among: ["avc1", "avc3"]) ?? .h264
        case .hevc: return preferredTag(stream, among: ["hvc1", "hev1"]) ?? .hevc
        case .mpeg4: return .mpeg4Video
        case .mpeg2Video: return .mpeg2Video
        case .mpeg1Video: return .mpeg1Video
        case .h263: return SubType(string: "h263")
        case .mjpeg: return .jpeg
        case .png: return .png
        case .vp9: return .vp9
        case .vp8: return SubType(string: "vp08")
        case .av1: return .av1
        case .proRes: return preferredTag(stream, among: ["apcn", "apch", "apcs", "apco", "ap4h", "ap4x"]) ?? .proRes422
        case .aac, .mp3, .mp2, .mp1, .flac, .opus, .vorbis, .alac, .ac3, .eac3, .amrNB, .amrWB, .pcm, .muLaw, .aLaw:
            return SubType(rawValue: AudioStreamBasicDescription.formatID(of: stream.codec) ?? kAudioFormatLinearPCM)
        case .movText: return .text3G
        case .webVTT: return .webVTT
        case .subRip: return SubType(string: "srt ")
        case .data: return fourCC(stream.codecTag).flatMap { ["mebx", "gpmd"].contains($0) ? SubType(string: $0) : nil } ?? .qt
        case .timedID3: return SubType(rawValue: kCMMetadataFormatType_ID3)
        case .ass, .eia608, .other:
            if let tag = fourCC(stream.codecTag) { return SubType(string: tag) }
            return SubType(string: String(codecLabel(stream.codec).prefix(4)))
        }
    }

    /// The codec a four-character code names (the inverse of `subType(of:)` for the codecs samples are
    /// written as they come); nil for codes Avocet does not map.
    static func codec(of subType: SubType) -> Codec? {
        switch subType.rawValue.fourCharString {
        case "avc1", "avc3": return .h264
        case "hvc1", "hev1": return .hevc
        case "mp4v": return .mpeg4
        case "mp2v": return .mpeg2Video
        case "jpeg": return .mjpeg
        case "png ": return .png
        case "vp09": return .vp9
        case "vp08": return .vp8
        case "av01": return .av1
        case "apcn", "apch", "apcs", "apco", "ap4h", "ap4x": return .proRes
        case "aac ", "aach", "aacp": return .aac
        case ".mp3": return .mp3
        case ".mp2": return .mp2
        case "flac": return .flac
        case "opus": return .opus
        case "alac": return .alac
        case "ac-3": return .ac3
        case "ec-3": return .eac3
        default: return nil
        }
    }

    static func make(for stream: StreamInfo, mediaType: AVMediaType) -> CMFormatDescription {
        let subType = subType(of: stream)
        let cookie = stream.extradata
        switch mediaType {
        case .audio:
            return CMFormatDescription(mediaType: .audio, mediaSubType: subType, extensions: audioExtensions(stream),
                                       audioStreamBasicDescription: AudioStreamBasicDescription(stream: stream, formatID: subType.rawValue),
                                       magicCookie: cookie)
        case .video:
            return CMFormatDescription(
                mediaType: .video, mediaSubType: subType, extensions: videoExtensions(stream),
                dimensions: CMVideoDimensions(width: Int32(clamping: stream.width ?? 0), height: Int32(clamping: stream.height ?? 0)),
                magicCookie: cookie)
        default:
            let type: CMFormatDescription.MediaType
            switch mediaType {
            case .subtitle: type = .subtitle
            case .closedCaption: type = .closedCaption
            case .timecode: type = .timeCode
            case .metadata: type = .metadata
            default: type = .text
            }
            let keys = (stream.metadataKeys ?? []).map {
                CMMetadataKeyTableEntry(localID: $0.localID, namespace: $0.namespace, key: Data($0.key), wellKnownType: $0.wellKnownType)
            }
            return CMFormatDescription(mediaType: type, mediaSubType: subType, extensions: CMFormatDescription.Extensions(),
                                       magicCookie: cookie, metadataKeyTable: keys)
        }
    }

    private static func audioExtensions(_ stream: StreamInfo) -> CMFormatDescription.Extensions {
        var ext = CMFormatDescription.Extensions()
        ext[.formatName] = .init(displayName(stream.codec))
        return ext
    }

    private static func videoExtensions(_ stream: StreamInfo) -> CMFormatDescription.Extensions {
        var ext = CMFormatDescription.Extensions()
        ext[.formatName] = .init(displayName(stream.codec))
        ext[.depth] = .init(24)
        if let sar = stream.sampleAspectRatio, sar.numerator > 0, sar.denominator > 0, sar.numerator != sar.denominator {
            ext[.pixelAspectRatio] = .pixelAspectRatio(horizontalSpacing: Int(sar.numerator), verticalSpacing: Int(sar.denominator))
        }
        if stream.isFullRange { ext[.fullRangeVideo] = .init(true) }
        // Apple's values (`kCMFormatDescriptionYCbCrMatrix_...`, the same strings as the settings' ones),
        // where the file states one of them.
        switch stream.yCbCrMatrix {
        case .bt709: ext[.yCbCrMatrix] = .init(AVVideoYCbCrMatrix_ITU_R_709_2)
        case .bt601: ext[.yCbCrMatrix] = .init(AVVideoYCbCrMatrix_ITU_R_601_4)
        case .bt2020: ext[.yCbCrMatrix] = .init(AVVideoYCbCrMatrix_ITU_R_2020)
        case .other, nil: break
        }
        return ext
    }

    /// The codec's name as Apple's format descriptions give it.
    private static func displayName(_ codec: Codec) -> String {
        switch codec {
        case .h264: return "H.264"
        case .hevc: return "HEVC"
        case .vp9: return "VP9"
        case .vp8: return "VP8"
        case .av1: return "AV1"
        case .mpeg4: return "MPEG-4 Video"
        case .h263: return "H.263"
        case .mjpeg: return "Photo - JPEG"
        case .png: return "PNG"
        case .proRes: return "Apple ProRes"
        case .aac: return "AAC"
        case .mp3: return "MPEG Layer 3"
        case .flac: return "FLAC"
        case .opus: return "Opus"
        case .vorbis: return "Vorbis"
        case .alac: return "Apple Lossless"
        case .ac3: return "AC-3"
        case .eac3: return "Enhanced AC-3"
        case .pcm: return "Linear PCM"
        default: return codecLabel(codec).uppercased()
        }
    }

    /// A short label for a codec without a display name of its own.
    private static func codecLabel(_ codec: Codec) -> String {
        switch codec {
        case .other(let name): return name
        default: return String(describing: codec)
        }
    }

    /// The container's tag when it is one of `tags` (FFmpeg stores tags little-endian).
    private static func preferredTag(_ stream: StreamInfo, among tags: [String]) -> SubType? {
        guard let tag = fourCC(stream.codecTag), tags.contains(tag) else { return nil }
        return SubType(string: tag)
    }

    /// FFmpeg's little-endian codec tag as four printable characters, or nil.
    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xff) }
        guard bytes.allSatisfy({ (0x20..<0x7f).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
