/// The container families Avocet tells apart, so that code outside the engine never matches FFmpeg's
/// demuxer names.
package enum ContainerFormat: Sendable, Equatable {
    /// MP4, MOV, M4A, 3GP (FFmpeg's "mov,mp4,m4a,3gp,3g2,mj2" demuxer).
    case quickTime
    /// Matroska and WebM.
    case matroska
    case mp3
    case flac
    case ogg
    case wav
    case aiff
    case caf
    case avi
    case mpegTransportStream
    case mpegProgramStream
    /// Raw ADTS AAC.
    case adts
    /// An HTTP Live Streaming playlist, opened only for assets that really are one.
    case hls
    /// Any other demuxer on the allowed list.
    case other

    init(demuxer name: String) {
        switch name {
        case "mov,mp4,m4a,3gp,3g2,mj2": self = .quickTime
        case "matroska,webm": self = .matroska
        case "mp3": self = .mp3
        case "flac": self = .flac
        case "ogg": self = .ogg
        case "wav", "w64": self = .wav
        case "aiff": self = .aiff
        case "caf": self = .caf
        case "avi": self = .avi
        case "mpegts": self = .mpegTransportStream
        case "mpeg": self = .mpegProgramStream
        case "aac": self = .adts
        case "hls": self = .hls
        default: self = .other
        }
    }

    /// Whether the header alone gives every fact the asset properties need (sizes, rates, durations,
    /// codec setup), so that FFmpeg's `avformat_find_stream_info`, which decodes the first frames of
    /// every stream, can be skipped (FLAC's STREAMINFO is read by the engine itself). Raw MP3, ADTS,
    /// MPEG-TS, AVI and the like need it; so does any file whose header turns out to lack a fact.
    var headerSuffices: Bool {
        switch self {
        case .quickTime, .matroska, .wav, .flac, .ogg: return true
        default: return false
        }
    }

    /// Whether the asset's timeline starts where the earliest stream does rather than at the
    /// container's zero: HLS segments keep the timestamps they were cut with, and MPEG transport and
    /// program streams count from a clock that starts anywhere (1.4 s in what ffmpeg writes, hours
    /// into a broadcast recording), as AVFoundation's HLS timeline and FFmpeg's own tools do.
    package var countsFromItsStart: Bool {
        switch self {
        case .hls, .mpegTransportStream, .mpegProgramStream: return true
        default: return false
        }
    }

    /// FFmpeg demuxers that may open a file: containers of media. Playlists and manifests that name
    /// other files (HLS, DASH, ffconcat), image sequences and device inputs are left out.
    static let allowedDemuxers = [
        "mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "mp3", "flac", "ogg", "wav", "w64", "aiff", "caf",
        "ac3", "eac3", "amr", "amrnb", "amrwb", "au", "avi", "mpegts", "mpeg", "mpegvideo", "aac", "asf", "flv", "ivf",
        "mxf", "dv", "h264", "hevc", "m4v", "dts", "truehd", "wv", "ape", "tta", "srt", "webvtt", "ass", "nut",
    ].joined(separator: ",")

    /// Whether a demuxer (by FFmpeg's short name, which may list several) is on the allowed list.
    static func isAllowed(demuxer name: String) -> Bool {
        let allowed = Set(allowedDemuxers.split(separator: ","))
        return name.split(separator: ",").contains { allowed.contains($0) }
    }
}
