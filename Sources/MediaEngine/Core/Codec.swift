/// The codecs Avocet names, so that code outside the engine never matches FFmpeg's codec names.
package enum Codec: Sendable, Hashable {
    case h264, hevc, mpeg4, mpeg2Video, mpeg1Video, h263, mjpeg, png, vp8, vp9, av1, proRes
    case aac, mp3, mp2, mp1, flac, opus, vorbis, alac, ac3, eac3, amrNB, amrWB
    /// Linear PCM with its sample layout.
    case pcm(PCMLayout)
    case muLaw, aLaw
    case movText, webVTT, subRip, ass, eia608
    /// ID3 tags carried as timed metadata (MPEG-TS).
    case timedID3
    /// Opaque data, such as QuickTime chapter lists and timecode tracks.
    case data
    /// Anything else, by FFmpeg's short name (for display only).
    case other(String)

    /// Signed, float and big-endian flags of a linear PCM format.
    package struct PCMLayout: Sendable, Hashable {
        package var isFloat: Bool
        package var isSigned: Bool
        package var isBigEndian: Bool
    }

    init(ffmpegName name: String) {
        switch name {
        case "h264": self = .h264
        case "hevc": self = .hevc
        case "mpeg4": self = .mpeg4
        case "mpeg2video": self = .mpeg2Video
        case "mpeg1video": self = .mpeg1Video
        case "h263", "h263p": self = .h263
        case "mjpeg": self = .mjpeg
        case "png": self = .png
        case "vp8": self = .vp8
        case "vp9": self = .vp9
        case "av1": self = .av1
        case "prores": self = .proRes
        case "aac": self = .aac
        case "mp3": self = .mp3
        case "mp2": self = .mp2
        case "mp1": self = .mp1
        case "flac": self = .flac
        case "opus": self = .opus
        case "vorbis": self = .vorbis
        case "alac": self = .alac
        case "ac3": self = .ac3
        case "eac3": self = .eac3
        case "amr_nb": self = .amrNB
        case "amr_wb": self = .amrWB
        case "pcm_mulaw": self = .muLaw
        case "pcm_alaw": self = .aLaw
        case "mov_text": self = .movText
        case "webvtt": self = .webVTT
        case "subrip": self = .subRip
        case "ass", "ssa": self = .ass
        case "eia_608": self = .eia608
        case "timed_id3": self = .timedID3
        case "bin_data", "text", "none": self = .data
        default:
            if name.hasPrefix("pcm_") {
                let body = name.dropFirst(4)
                self = .pcm(PCMLayout(isFloat: body.hasPrefix("f"), isSigned: body.hasPrefix("s"), isBigEndian: body.hasSuffix("be")))
            } else {
                self = .other(name)
            }
        }
    }

    /// FFmpeg's name of the codec (the inverse of `init(ffmpegName:)`); nil for the few without one.
    var ffmpegName: String? {
        switch self {
        case .h264: return "h264"
        case .hevc: return "hevc"
        case .mpeg4: return "mpeg4"
        case .mpeg2Video: return "mpeg2video"
        case .mpeg1Video: return "mpeg1video"
        case .h263: return "h263"
        case .mjpeg: return "mjpeg"
        case .png: return "png"
        case .vp8: return "vp8"
        case .vp9: return "vp9"
        case .av1: return "av1"
        case .proRes: return "prores"
        case .aac: return "aac"
        case .mp3: return "mp3"
        case .mp2: return "mp2"
        case .mp1: return "mp1"
        case .flac: return "flac"
        case .opus: return "opus"
        case .vorbis: return "vorbis"
        case .alac: return "alac"
        case .ac3: return "ac3"
        case .eac3: return "eac3"
        case .amrNB: return "amr_nb"
        case .amrWB: return "amr_wb"
        case .muLaw: return "pcm_mulaw"
        case .aLaw: return "pcm_alaw"
        case .movText: return "mov_text"
        case .webVTT: return "webvtt"
        case .subRip: return "subrip"
        case .ass: return "ass"
        case .eia608: return "eia_608"
        case .timedID3: return "timed_id3"
        case .pcm, .data: return nil
        case .other(let name): return name
        }
    }

    /// Samples per packet where the codec fixes it and the container does not say.
    func defaultFrameSize(sampleRate: Int) -> Int? {
        switch self {
        case .aac: return 1024
        case .mp3: return sampleRate > 0 && sampleRate < 32000 ? 576 : 1152
        case .mp2, .mp1: return 1152
        case .ac3, .eac3: return 1536
        default: return nil
        }
    }
}

/// The MPEG-4 audio object type of an AAC stream, from its AudioSpecificConfig.
package enum AACProfile: Sendable, Equatable {
    case main, lowComplexity, scalableSampleRate, longTermPrediction
    /// HE-AAC: spectral band replication, signalled explicitly.
    case highEfficiency
    /// HE-AAC v2: SBR with parametric stereo.
    case highEfficiencyV2

    /// The profile of an MPEG-4 audio object type; nil for types that are not AAC's.
    init?(objectType type: Int) {
        switch type {
        case 1: self = .main
        case 2: self = .lowComplexity
        case 3: self = .scalableSampleRate
        case 4: self = .longTermPrediction
        case 5: self = .highEfficiency
        case 29: self = .highEfficiencyV2
        default: return nil
        }
    }

    /// FFmpeg's profile constants (`FF_PROFILE_AAC_*`), as `avformat_find_stream_info` sets them.
    init?(ffmpegProfile: Int32) {
        switch ffmpegProfile {
        case 0: self = .main
        case 1: self = .lowComplexity
        case 2: self = .scalableSampleRate
        case 3: self = .longTermPrediction
        case 4: self = .highEfficiency
        case 28: self = .highEfficiencyV2
        default: return nil
        }
    }
}

/// The first fields of an MPEG-4 AudioSpecificConfig (ISO 14496-3 1.6.2.1), the setup data of AAC:
/// the object type and, in the plain layout, the frame length flag. Every index is checked.
struct AudioSpecificConfig: Equatable {
    var objectType: Int
    /// 960-sample frames instead of 1024: the frame length flag, which follows the object type (5 bits)
    /// and the sampling index (4 bits) only in the plain layout (object types 1 to 4, the index not 15).
    var hasShortFrames: Bool

    init?(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return nil }
        let second = bytes.count >= 2 ? bytes[1] : nil
        var type = Int(first >> 3)
        if type == 31 {
            guard let second else { return nil }
            type = 32 + Int((first & 0x07) << 3 | second >> 5)
        }
        objectType = type
        if let second, (1...4).contains(type) {
            let samplingIndex = (first & 0x07) << 1 | second >> 7
            hasShortFrames = samplingIndex != 15 && second & 0x04 != 0
        } else {
            hasShortFrames = false
        }
    }
}
