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
}
