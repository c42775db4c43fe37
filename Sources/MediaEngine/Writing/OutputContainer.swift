internal import CFFmpeg

/// The file formats the engine writes.
package enum OutputContainer: String, Sendable, CaseIterable {
    case mp4, mov, m4v, m4a, matroska, webm
    /// Audio files (`AVAudioFile`'s): RIFF WAVE, AIFF, Core Audio Format, FLAC, Ogg (Opus).
    case wav, aiff, caf, flac, ogg

    /// FFmpeg's muxer name.
    var muxerName: String {
        switch self {
        case .mp4, .m4v: return "mp4"
        case .mov: return "mov"
        case .m4a: return "ipod"
        case .matroska: return "matroska"
        case .webm: return "webm"
        case .wav: return "wav"
        case .aiff: return "aiff"
        case .caf: return "caf"
        case .flac: return "flac"
        case .ogg: return "ogg"
        }
    }

    /// MP4 and QuickTime: moov atoms, edit lists, `faststart`.
    package var isQuickTimeFamily: Bool { [.mp4, .mov, .m4v, .m4a].contains(self) }

    /// Whether the container holds a copy of a stream of the codec FFmpeg names `codecName`: its
    /// muxer has a way to state the codec, and it is not one QuickTime's muxer refuses (VP8, VP9, AV1,
    /// Opus and FLAC go only into MP4). A lookup in FFmpeg's tables; nothing is opened.
    package func holdsCopy(ofCodecNamed codecName: String) -> Bool {
        guard let descriptor = avcodec_descriptor_get_by_name(codecName), let format = av_guess_format(muxerName, nil, nil) else {
            return false
        }
        let id = descriptor.pointee.id
        if self == .mov && [AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1, AV_CODEC_ID_OPUS, AV_CODEC_ID_FLAC].contains(id) { return false }
        return avformat_query_codec(format, id, FF_COMPLIANCE_EXPERIMENTAL) == 1
    }
}
