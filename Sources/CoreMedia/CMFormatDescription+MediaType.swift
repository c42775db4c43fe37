extension CMFormatDescription {
    /// A four-character media type code such as `'soun'`; `description` prints the four characters.
    public struct MediaType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: FourCharCode
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// The code of up to four ASCII characters, such as `"soun"`.
        public init(string: String) { rawValue = FourCharCode(fourCharString: string) }
        public var description: String { rawValue.fourCharString }

        public static let audio = MediaType(string: "soun")
        public static let video = MediaType(string: "vide")
        public static let muxed = MediaType(string: "muxx")
        public static let text = MediaType(string: "text")
        public static let closedCaption = MediaType(string: "clcp")
        public static let subtitle = MediaType(string: "sbtl")
        public static let timeCode = MediaType(string: "tmcd")
        public static let metadata = MediaType(string: "meta")
        public static let taggedBufferGroup = MediaType(string: "tbgr")
    }

    /// A four-character codec code such as `'avc1'`; `description` prints the four characters.
    public struct MediaSubType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: FourCharCode
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// The code of up to four ASCII characters, such as `"avc1"`.
        public init(string: String) { rawValue = FourCharCode(fourCharString: string) }
        public var description: String { rawValue.fourCharString }

        // Video
        public static let h264 = MediaSubType(string: "avc1")
        public static let hevc = MediaSubType(string: "hvc1")
        public static let hevcWithAlpha = MediaSubType(string: "muxa")
        public static let mpeg4Video = MediaSubType(string: "mp4v")
        public static let mpeg2Video = MediaSubType(string: "mp2v")
        public static let mpeg1Video = MediaSubType(string: "mp1v")
        public static let jpeg = MediaSubType(string: "jpeg")
        public static let proRes422 = MediaSubType(string: "apcn")
        public static let proRes422HQ = MediaSubType(string: "apch")
        public static let proRes422LT = MediaSubType(string: "apcs")
        public static let proRes422Proxy = MediaSubType(string: "apco")
        public static let proRes4444 = MediaSubType(string: "ap4h")
        public static let vp9 = MediaSubType(string: "vp09")
        public static let av1 = MediaSubType(string: "av01")
        public static let png = MediaSubType(string: "png ")
        // Audio
        public static let linearPCM = MediaSubType(string: "lpcm")
        public static let mpeg4AAC = MediaSubType(string: "aac ")
        public static let mpeg4AAC_HE = MediaSubType(string: "aach")
        public static let mpeg4AAC_HE_V2 = MediaSubType(string: "aacp")
        public static let appleLossless = MediaSubType(string: "alac")
        public static let ac3 = MediaSubType(string: "ac-3")
        public static let enhancedAC3 = MediaSubType(string: "ec-3")
        public static let flac = MediaSubType(string: "flac")
        public static let opus = MediaSubType(string: "opus")
        public static let mpegLayer1 = MediaSubType(string: ".mp1")
        public static let mpegLayer2 = MediaSubType(string: ".mp2")
        public static let mpegLayer3 = MediaSubType(string: ".mp3")
        public static let uLaw = MediaSubType(string: "ulaw")
        public static let aLaw = MediaSubType(string: "alaw")
        // Text and subtitles
        public static let webVTT = MediaSubType(string: "wvtt")
        public static let text3G = MediaSubType(string: "tx3g")
        public static let qt = MediaSubType(string: "text")
    }
}

public var kCMMediaType_Video: CMMediaType { CMFormatDescription.MediaType.video.rawValue }
public var kCMMediaType_Audio: CMMediaType { CMFormatDescription.MediaType.audio.rawValue }
public var kCMMediaType_Muxed: CMMediaType { CMFormatDescription.MediaType.muxed.rawValue }
public var kCMMediaType_Text: CMMediaType { CMFormatDescription.MediaType.text.rawValue }
public var kCMMediaType_ClosedCaption: CMMediaType { CMFormatDescription.MediaType.closedCaption.rawValue }
public var kCMMediaType_Subtitle: CMMediaType { CMFormatDescription.MediaType.subtitle.rawValue }
public var kCMMediaType_TimeCode: CMMediaType { CMFormatDescription.MediaType.timeCode.rawValue }
public var kCMMediaType_Metadata: CMMediaType { CMFormatDescription.MediaType.metadata.rawValue }

public var kCMVideoCodecType_H264: CMVideoCodecType { CMFormatDescription.MediaSubType.h264.rawValue }
public var kCMVideoCodecType_HEVC: CMVideoCodecType { CMFormatDescription.MediaSubType.hevc.rawValue }
public var kCMVideoCodecType_MPEG4Video: CMVideoCodecType { CMFormatDescription.MediaSubType.mpeg4Video.rawValue }
public var kCMVideoCodecType_JPEG: CMVideoCodecType { CMFormatDescription.MediaSubType.jpeg.rawValue }
public var kCMVideoCodecType_VP9: CMVideoCodecType { CMFormatDescription.MediaSubType.vp9.rawValue }
public var kCMVideoCodecType_AV1: CMVideoCodecType { CMFormatDescription.MediaSubType.av1.rawValue }
public var kCMVideoCodecType_AppleProRes422: CMVideoCodecType { CMFormatDescription.MediaSubType.proRes422.rawValue }
