import Foundation

/// The codec strings of an HLS playlist's `CODECS` attribute (RFC 6381: `avc1.42c00d`, `mp4a.40.2`),
/// as Apple's four-character codes. Pure.
enum HLSCodecs {
    /// The video codec type of `codec`; nil for audio, text or an unknown codec.
    static func videoCodecType(_ codec: String) -> CMVideoCodecType? {
        switch codec.split(separator: ".").first.map(String.init) {
        case "avc1", "avc3": return kCMVideoCodecType_H264
        case "hvc1", "hev1": return kCMVideoCodecType_HEVC
        case "dvh1", "dvhe": return FourCharCode(fourCharString: "dvh1")
        case "av01": return FourCharCode(fourCharString: "av01")
        case "vp09": return FourCharCode(fourCharString: "vp09")
        case "mp4v": return kCMVideoCodecType_MPEG4Video
        default: return nil
        }
    }

    /// The audio format of `codec`; nil for video, text or an unknown codec.
    static func audioFormatID(_ codec: String) -> AudioFormatID? {
        let parts = codec.split(separator: ".").map(String.init)
        switch parts.first {
        case "mp4a":
            // The object type: 40 is MPEG-4 audio, whose next part names the kind (5: HE-AAC, 29:
            // HE-AAC v2, 34: MP3); 69 and 6B are MPEG-1/2 audio (MP3).
            guard parts.count >= 2 else { return kAudioFormatMPEG4AAC }
            switch (parts[1].lowercased(), parts.count >= 3 ? parts[2] : "") {
            case ("40", "5"): return kAudioFormatMPEG4AAC_HE
            case ("40", "29"): return kAudioFormatMPEG4AAC_HE_V2
            case ("40", "34"), ("69", _), ("6b", _): return kAudioFormatMPEGLayer3
            default: return kAudioFormatMPEG4AAC
            }
        case "ac-3": return kAudioFormatAC3
        case "ec-3": return kAudioFormatEnhancedAC3
        case "fLaC": return kAudioFormatFLAC
        case "Opus": return kAudioFormatOpus
        case "alac": return kAudioFormatAppleLossless
        default: return nil
        }
    }
}
