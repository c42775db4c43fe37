extension CMFormatDescription {
    /// A four-character media type code such as `'soun'`; `description` prints the four characters.
    public struct MediaType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The four-character code.
        public let rawValue: FourCharCode
        /// A media type from its code.
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// The code of up to four ASCII characters, such as `"soun"`.
        public init(string: String) { rawValue = FourCharCode(fourCharString: string) }
        /// The code's four characters (`soun`).
        public var description: String { rawValue.fourCharString }

        /// Audio (`'soun'`).
        public static let audio = MediaType(string: "soun")
        /// Video (`'vide'`).
        public static let video = MediaType(string: "vide")
        /// Audio and video multiplexed in one stream (`'muxx'`).
        public static let muxed = MediaType(string: "muxx")
        /// Text (`'text'`).
        public static let text = MediaType(string: "text")
        /// Closed captions (`'clcp'`).
        public static let closedCaption = MediaType(string: "clcp")
        /// Subtitles (`'sbtl'`).
        public static let subtitle = MediaType(string: "sbtl")
        /// Time code (`'tmcd'`).
        public static let timeCode = MediaType(string: "tmcd")
        /// Timed metadata (`'meta'`).
        public static let metadata = MediaType(string: "meta")
        /// Groups of tagged buffers (`'tbgr'`).
        public static let taggedBufferGroup = MediaType(string: "tbgr")
    }

    /// A four-character codec code such as `'avc1'`; `description` prints the four characters.
    public struct MediaSubType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The four-character code.
        public let rawValue: FourCharCode
        /// A subtype from its code.
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// The code of up to four ASCII characters, such as `"avc1"`.
        public init(string: String) { rawValue = FourCharCode(fourCharString: string) }
        /// The code's four characters (`avc1`).
        public var description: String { rawValue.fourCharString }

        // Video
        /// H.264/AVC (`'avc1'`).
        public static let h264 = MediaSubType(string: "avc1")
        /// H.265/HEVC (`'hvc1'`).
        public static let hevc = MediaSubType(string: "hvc1")
        /// HEVC with an alpha channel (`'muxa'`).
        public static let hevcWithAlpha = MediaSubType(string: "muxa")
        /// MPEG-4 Part 2 video (`'mp4v'`).
        public static let mpeg4Video = MediaSubType(string: "mp4v")
        /// MPEG-2 video (`'mp2v'`).
        public static let mpeg2Video = MediaSubType(string: "mp2v")
        /// MPEG-1 video (`'mp1v'`).
        public static let mpeg1Video = MediaSubType(string: "mp1v")
        /// Motion JPEG (`'jpeg'`).
        public static let jpeg = MediaSubType(string: "jpeg")
        /// Apple ProRes 422 (`'apcn'`).
        public static let proRes422 = MediaSubType(string: "apcn")
        /// Apple ProRes 422 HQ (`'apch'`).
        public static let proRes422HQ = MediaSubType(string: "apch")
        /// Apple ProRes 422 LT (`'apcs'`).
        public static let proRes422LT = MediaSubType(string: "apcs")
        /// Apple ProRes 422 Proxy (`'apco'`).
        public static let proRes422Proxy = MediaSubType(string: "apco")
        /// Apple ProRes 4444 (`'ap4h'`).
        public static let proRes4444 = MediaSubType(string: "ap4h")
        /// VP9 (`'vp09'`).
        public static let vp9 = MediaSubType(string: "vp09")
        /// AV1 (`'av01'`).
        public static let av1 = MediaSubType(string: "av01")
        /// PNG pictures (`'png '`).
        public static let png = MediaSubType(string: "png ")
        // Audio
        /// Linear PCM (`'lpcm'`).
        public static let linearPCM = MediaSubType(string: "lpcm")
        /// AAC (`'aac '`).
        public static let mpeg4AAC = MediaSubType(string: "aac ")
        /// High Efficiency AAC (`'aach'`).
        public static let mpeg4AAC_HE = MediaSubType(string: "aach")
        /// High Efficiency AAC version 2 (`'aacp'`).
        public static let mpeg4AAC_HE_V2 = MediaSubType(string: "aacp")
        /// Apple Lossless (`'alac'`).
        public static let appleLossless = MediaSubType(string: "alac")
        /// Dolby AC-3 (`'ac-3'`).
        public static let ac3 = MediaSubType(string: "ac-3")
        /// Dolby Enhanced AC-3 (`'ec-3'`).
        public static let enhancedAC3 = MediaSubType(string: "ec-3")
        /// FLAC (`'flac'`).
        public static let flac = MediaSubType(string: "flac")
        /// Opus (`'opus'`).
        public static let opus = MediaSubType(string: "opus")
        /// MPEG Layer 1 audio (`'.mp1'`).
        public static let mpegLayer1 = MediaSubType(string: ".mp1")
        /// MPEG Layer 2 audio (`'.mp2'`).
        public static let mpegLayer2 = MediaSubType(string: ".mp2")
        /// MPEG Layer 3 audio, MP3 (`'.mp3'`).
        public static let mpegLayer3 = MediaSubType(string: ".mp3")
        /// µ-law (`'ulaw'`).
        public static let uLaw = MediaSubType(string: "ulaw")
        /// A-law (`'alaw'`).
        public static let aLaw = MediaSubType(string: "alaw")
        // Text and subtitles
        /// WebVTT subtitles (`'wvtt'`).
        public static let webVTT = MediaSubType(string: "wvtt")
        /// 3GPP timed text (`'tx3g'`).
        public static let text3G = MediaSubType(string: "tx3g")
        /// QuickTime text (`'text'`).
        public static let qt = MediaSubType(string: "text")
    }
}

/// The C name of ``CMFormatDescription/MediaType/video``.
public var kCMMediaType_Video: CMMediaType { CMFormatDescription.MediaType.video.rawValue }
/// The C name of ``CMFormatDescription/MediaType/audio``.
public var kCMMediaType_Audio: CMMediaType { CMFormatDescription.MediaType.audio.rawValue }
/// The C name of ``CMFormatDescription/MediaType/muxed``.
public var kCMMediaType_Muxed: CMMediaType { CMFormatDescription.MediaType.muxed.rawValue }
/// The C name of ``CMFormatDescription/MediaType/text``.
public var kCMMediaType_Text: CMMediaType { CMFormatDescription.MediaType.text.rawValue }
/// The C name of ``CMFormatDescription/MediaType/closedCaption``.
public var kCMMediaType_ClosedCaption: CMMediaType { CMFormatDescription.MediaType.closedCaption.rawValue }
/// The C name of ``CMFormatDescription/MediaType/subtitle``.
public var kCMMediaType_Subtitle: CMMediaType { CMFormatDescription.MediaType.subtitle.rawValue }
/// The C name of ``CMFormatDescription/MediaType/timeCode``.
public var kCMMediaType_TimeCode: CMMediaType { CMFormatDescription.MediaType.timeCode.rawValue }
/// The C name of ``CMFormatDescription/MediaType/metadata``.
public var kCMMediaType_Metadata: CMMediaType { CMFormatDescription.MediaType.metadata.rawValue }

/// H.264 (`'avc1'`).
public var kCMVideoCodecType_H264: CMVideoCodecType { CMFormatDescription.MediaSubType.h264.rawValue }
/// HEVC (`'hvc1'`).
public var kCMVideoCodecType_HEVC: CMVideoCodecType { CMFormatDescription.MediaSubType.hevc.rawValue }
/// MPEG-4 Part 2 video (`'mp4v'`).
public var kCMVideoCodecType_MPEG4Video: CMVideoCodecType { CMFormatDescription.MediaSubType.mpeg4Video.rawValue }
/// Motion JPEG (`'jpeg'`).
public var kCMVideoCodecType_JPEG: CMVideoCodecType { CMFormatDescription.MediaSubType.jpeg.rawValue }
/// VP9 (`'vp09'`).
public var kCMVideoCodecType_VP9: CMVideoCodecType { CMFormatDescription.MediaSubType.vp9.rawValue }
/// AV1 (`'av01'`).
public var kCMVideoCodecType_AV1: CMVideoCodecType { CMFormatDescription.MediaSubType.av1.rawValue }
/// Apple ProRes 422 (`'apcn'`).
public var kCMVideoCodecType_AppleProRes422: CMVideoCodecType { CMFormatDescription.MediaSubType.proRes422.rawValue }

/// Timed metadata of the ICY protocol (SHOUTcast stream titles) (`'icy '`).
public var kCMMetadataFormatType_ICY: CMMetadataFormatType { FourCharCode(fourCharString: "icy ") }
/// Timed ID3 tags, one a sample, as HLS and MPEG-TS carry them (`'id3 '`).
public var kCMMetadataFormatType_ID3: CMMetadataFormatType { FourCharCode(fourCharString: "id3 ") }
/// Boxed metadata: QuickTime metadata items keyed by a table in the format description (`'mebx'`).
public var kCMMetadataFormatType_Boxed: CMMetadataFormatType { FourCharCode(fourCharString: "mebx") }
/// Event messages of MPEG-DASH and fragmented MP4 (`'emsg'`).
public var kCMMetadataFormatType_EMSG: CMMetadataFormatType { FourCharCode(fourCharString: "emsg") }
