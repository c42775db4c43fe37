/// The file formats the engine writes.
package enum OutputContainer: String, Sendable, CaseIterable {
    case mp4, mov, m4v, m4a, matroska, webm

    /// FFmpeg's muxer name.
    var muxerName: String {
        switch self {
        case .mp4, .m4v: return "mp4"
        case .mov: return "mov"
        case .m4a: return "ipod"
        case .matroska: return "matroska"
        case .webm: return "webm"
        }
    }

    /// MP4 and QuickTime: moov atoms, edit lists, `faststart`.
    package var isQuickTimeFamily: Bool { [.mp4, .mov, .m4v, .m4a].contains(self) }
}
