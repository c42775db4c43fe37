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
            return stream.codecName == "eia_608" ? .closedCaption : .subtitle
        case .data:
            if stream.codecName == "timed_id3" { return .metadata }
            if fourCC(stream.codecTag) == "tmcd" { return .timecode }
            // QuickTime chapter lists are text tracks (FFmpeg reads them as "bin_data").
            return info.isQuickTimeFamily ? .text : .metadata
        case .attachment, .unknown: return nil
        }
    }

    /// The codec's four-character code.
    static func subType(of stream: StreamInfo) -> SubType {
        switch stream.codecName {
        case "h264": return preferredTag(stream, among: ["avc1", "avc3"]) ?? .h264
        case "hevc": return preferredTag(stream, among: ["hvc1", "hev1"]) ?? .hevc
        case "mpeg4": return .mpeg4Video
        case "mpeg2video": return .mpeg2Video
        case "mpeg1video": return .mpeg1Video
        case "mjpeg": return .jpeg
        case "png": return .png
        case "vp9": return .vp9
        case "vp8": return SubType(string: "vp08")
        case "av1": return .av1
        case "prores": return preferredTag(stream, among: ["apcn", "apch", "apcs", "apco", "ap4h", "ap4x"]) ?? .proRes422
        case "aac": return .mpeg4AAC
        case "mp3": return .mpegLayer3
        case "mp2": return .mpegLayer2
        case "mp1": return .mpegLayer1
        case "flac": return .flac
        case "opus": return .opus
        case "vorbis": return SubType(string: "vorb")
        case "alac": return .appleLossless
        case "ac3": return .ac3
        case "eac3": return .enhancedAC3
        case "pcm_mulaw": return .uLaw
        case "pcm_alaw": return .aLaw
        case "mov_text": return .text3G
        case "webvtt": return .webVTT
        case "subrip": return SubType(string: "srt ")
        case "bin_data", "text": return .qt
        default:
            if stream.codecName.hasPrefix("pcm_") { return .linearPCM }
            if let tag = fourCC(stream.codecTag) { return SubType(string: tag) }
            return SubType(string: String(stream.codecName.prefix(4)))
        }
    }

    static func make(for stream: StreamInfo, mediaType: AVMediaType) -> CMFormatDescription {
        let subType = subType(of: stream)
        let cookie = stream.extradata
        switch mediaType {
        case .audio:
            return CMFormatDescription(mediaType: .audio, mediaSubType: subType, extensions: audioExtensions(stream),
                                       audioStreamBasicDescription: asbd(for: stream, subType: subType), magicCookie: cookie)
        case .video:
            return CMFormatDescription(
                mediaType: .video, mediaSubType: subType, extensions: videoExtensions(stream),
                dimensions: CMVideoDimensions(width: Int32(stream.width ?? 0), height: Int32(stream.height ?? 0)),
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
            return CMFormatDescription(mediaType: type, mediaSubType: subType, extensions: CMFormatDescription.Extensions(),
                                       magicCookie: cookie)
        }
    }

    /// The stream description Apple fills in: compressed formats leave byte counts at zero; linear PCM
    /// fills every field.
    static func asbd(for stream: StreamInfo, subType: SubType) -> AudioStreamBasicDescription {
        let channels = UInt32(stream.channels ?? 0)
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = Double(stream.sampleRate ?? 0)
        asbd.mFormatID = subType.rawValue
        asbd.mChannelsPerFrame = channels
        switch stream.codecName {
        case "aac":
            switch stream.profile {
            case "HE-AAC": asbd.mFormatID = kAudioFormatMPEG4AAC_HE; asbd.mFormatFlags = kMPEG4Object_AAC_SBR
            case "HE-AACv2": asbd.mFormatID = kAudioFormatMPEG4AAC_HE_V2; asbd.mFormatFlags = 29
            case "Main": asbd.mFormatFlags = kMPEG4Object_AAC_Main
            case "LTP": asbd.mFormatFlags = kMPEG4Object_AAC_LTP
            default: asbd.mFormatFlags = kMPEG4Object_AAC_LC
            }
            asbd.mFramesPerPacket = UInt32(stream.frameSize ?? 1024)
        case "mp3", "mp2", "mp1":
            asbd.mFramesPerPacket = UInt32(stream.frameSize ?? 1152)
        case "opus":
            asbd.mFramesPerPacket = UInt32(stream.frameSize ?? 960)
        case "flac", "alac":
            asbd.mFramesPerPacket = UInt32(stream.frameSize ?? 0)
            switch stream.bitsPerSample ?? 0 {
            case 16: asbd.mFormatFlags = kAppleLosslessFormatFlag_16BitSourceData
            case 20: asbd.mFormatFlags = kAppleLosslessFormatFlag_20BitSourceData
            case 24: asbd.mFormatFlags = kAppleLosslessFormatFlag_24BitSourceData
            case 32: asbd.mFormatFlags = kAppleLosslessFormatFlag_32BitSourceData
            default: break
            }
        case "ac3", "eac3":
            asbd.mFramesPerPacket = 1536
        default:
            if asbd.mFormatID == kAudioFormatLinearPCM, let bits = stream.bitsPerSample {
                let name = stream.codecName
                var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
                if name.hasPrefix("pcm_f") { flags |= kAudioFormatFlagIsFloat } else if name.hasPrefix("pcm_s") { flags |= kAudioFormatFlagIsSignedInteger }
                if name.hasSuffix("be") { flags |= kAudioFormatFlagIsBigEndian }
                asbd.mFormatFlags = flags
                asbd.mBitsPerChannel = UInt32(bits)
                asbd.mBytesPerFrame = UInt32(bits / 8) * channels
                asbd.mFramesPerPacket = 1
                asbd.mBytesPerPacket = asbd.mBytesPerFrame
            } else {
                asbd.mFramesPerPacket = UInt32(stream.frameSize ?? 0)
            }
        }
        return asbd
    }

    private static func audioExtensions(_ stream: StreamInfo) -> CMFormatDescription.Extensions {
        var ext = CMFormatDescription.Extensions()
        ext[.formatName] = .init(displayName(stream.codecName))
        return ext
    }

    private static func videoExtensions(_ stream: StreamInfo) -> CMFormatDescription.Extensions {
        var ext = CMFormatDescription.Extensions()
        ext[.formatName] = .init(displayName(stream.codecName))
        ext[.depth] = .init(24)
        if let sar = stream.sampleAspectRatio, sar.numerator > 0, sar.denominator > 0, sar.numerator != sar.denominator {
            ext[.pixelAspectRatio] = .pixelAspectRatio(horizontalSpacing: Int(sar.numerator), verticalSpacing: Int(sar.denominator))
        }
        if stream.pixelFormat?.hasPrefix("yuvj") == true { ext[.fullRangeVideo] = .init(true) }
        return ext
    }

    private static func displayName(_ codec: String) -> String {
        let names = ["h264": "H.264", "hevc": "HEVC", "vp9": "VP9", "vp8": "VP8", "av1": "AV1", "mpeg4": "MPEG-4 Video",
                     "mjpeg": "Photo - JPEG", "png": "PNG", "prores": "Apple ProRes", "aac": "AAC", "mp3": "MPEG Layer 3",
                     "flac": "FLAC", "opus": "Opus", "vorbis": "Vorbis", "alac": "Apple Lossless", "ac3": "AC-3", "eac3": "Enhanced AC-3"]
        return names[codec] ?? (codec.hasPrefix("pcm_") ? "Linear PCM" : codec.uppercased())
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
