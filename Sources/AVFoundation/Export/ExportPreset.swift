internal import MediaEngine

// Apple's preset names (each constant's value is its own name, as on Apple's platforms).
/// H.264 fitting 224x168 (x264 constant rate factor 30) and AAC at 64 kbit/s.
public let AVAssetExportPresetLowQuality = "AVAssetExportPresetLowQuality"
/// H.264 fitting 480x360 (constant rate factor 26) and AAC at 96 kbit/s.
public let AVAssetExportPresetMediumQuality = "AVAssetExportPresetMediumQuality"
/// H.264 at the source's size (constant rate factor 20) and AAC at 160 kbit/s.
public let AVAssetExportPresetHighestQuality = "AVAssetExportPresetHighestQuality"
/// HEVC at the source's size (x265 constant rate factor 22) and AAC at 160 kbit/s.
public let AVAssetExportPresetHEVCHighestQuality = "AVAssetExportPresetHEVCHighestQuality"
/// HEVC with the picture's alpha channel: declared so that code naming it compiles, but not offered.
/// Debian 12's libx265 (3.5) cannot write an alpha layer, so
/// ``AVAssetExportSession/init(asset:presetName:)`` returns nil for it, it is not in
/// ``AVAssetExportSession/allExportPresets()``, and
/// ``AVAssetExportSession/compatibility(ofExportPreset:with:outputFileType:)`` is false, rather than an
/// export silently dropping the alpha.
public let AVAssetExportPresetHEVCHighestQualityWithAlpha = "AVAssetExportPresetHEVCHighestQualityWithAlpha"
/// H.264 fitting 640x480 (constant rate factor 23) and AAC at 128 kbit/s.
public let AVAssetExportPreset640x480 = "AVAssetExportPreset640x480"
/// H.264 fitting 960x540 (constant rate factor 23) and AAC at 128 kbit/s.
public let AVAssetExportPreset960x540 = "AVAssetExportPreset960x540"
/// H.264 fitting 1280x720 (constant rate factor 23) and AAC at 128 kbit/s.
public let AVAssetExportPreset1280x720 = "AVAssetExportPreset1280x720"
/// H.264 fitting 1920x1080 (constant rate factor 23) and AAC at 160 kbit/s.
public let AVAssetExportPreset1920x1080 = "AVAssetExportPreset1920x1080"
/// H.264 fitting 3840x2160 (constant rate factor 23) and AAC at 192 kbit/s.
public let AVAssetExportPreset3840x2160 = "AVAssetExportPreset3840x2160"
/// HEVC fitting 1920x1080 (constant rate factor 26) and AAC at 160 kbit/s.
public let AVAssetExportPresetHEVC1920x1080 = "AVAssetExportPresetHEVC1920x1080"
/// HEVC fitting 3840x2160 (constant rate factor 26) and AAC at 192 kbit/s.
public let AVAssetExportPresetHEVC3840x2160 = "AVAssetExportPresetHEVC3840x2160"
/// Audio only: AAC at 192 kbit/s in an M4A file.
public let AVAssetExportPresetAppleM4A = "AVAssetExportPresetAppleM4A"
/// The media copied as it is (stream copy), with no decoding or encoding.
public let AVAssetExportPresetPassthrough = "AVAssetExportPresetPassthrough"

/// What a preset makes: stream copy, or which codecs at what size and quality. Sizes are boxes the
/// picture is shrunk to fit (never enlarged), keeping its shape, in its stored orientation (a phone's
/// portrait movie keeps its preferred transform).
struct ExportPreset: Sendable {
    enum Kind: Sendable {
        case passthrough
        case audioOnly
        case video(EncodedCodec, box: (width: Int, height: Int)?, quality: Int)
    }

    let name: String
    let kind: Kind
    /// AAC bits a second.
    let audioBitRate: Int

    static let all: [ExportPreset] = [
        ExportPreset(name: AVAssetExportPresetLowQuality, kind: .video(.h264, box: (224, 168), quality: 30), audioBitRate: 64_000),
        ExportPreset(name: AVAssetExportPresetMediumQuality, kind: .video(.h264, box: (480, 360), quality: 26), audioBitRate: 96_000),
        ExportPreset(name: AVAssetExportPresetHighestQuality, kind: .video(.h264, box: nil, quality: 20), audioBitRate: 160_000),
        ExportPreset(name: AVAssetExportPresetHEVCHighestQuality, kind: .video(.hevc, box: nil, quality: 22), audioBitRate: 160_000),
        ExportPreset(name: AVAssetExportPreset640x480, kind: .video(.h264, box: (640, 480), quality: 23), audioBitRate: 128_000),
        ExportPreset(name: AVAssetExportPreset960x540, kind: .video(.h264, box: (960, 540), quality: 23), audioBitRate: 128_000),
        ExportPreset(name: AVAssetExportPreset1280x720, kind: .video(.h264, box: (1280, 720), quality: 23), audioBitRate: 128_000),
        ExportPreset(name: AVAssetExportPreset1920x1080, kind: .video(.h264, box: (1920, 1080), quality: 23), audioBitRate: 160_000),
        ExportPreset(name: AVAssetExportPreset3840x2160, kind: .video(.h264, box: (3840, 2160), quality: 23), audioBitRate: 192_000),
        ExportPreset(name: AVAssetExportPresetHEVC1920x1080, kind: .video(.hevc, box: (1920, 1080), quality: 26), audioBitRate: 160_000),
        ExportPreset(name: AVAssetExportPresetHEVC3840x2160, kind: .video(.hevc, box: (3840, 2160), quality: 26), audioBitRate: 192_000),
        ExportPreset(name: AVAssetExportPresetAppleM4A, kind: .audioOnly, audioBitRate: 192_000),
        ExportPreset(name: AVAssetExportPresetPassthrough, kind: .passthrough, audioBitRate: 0),
    ]

    static func named(_ name: String) -> ExportPreset? { all.first { $0.name == name } }

    /// The x264/x265 speed preset: FFmpeg's default, "medium".
    static let encoderSpeed = "medium"

    /// The file types the preset writes for an asset with `tracks` (nil: not known yet, taken to have
    /// video): MP4 family and QuickTime for video, M4A for audio only, and (Avocet's additions)
    /// Matroska and WebM for stream copy. A stream copy lists only the containers that hold every
    /// copied track's codec (QuickTime takes no VP8, VP9, AV1, Opus or FLAC; WebM only VP8, VP9, AV1,
    /// Vorbis and Opus; MP4 no PCM); a composition's tracks, whose codecs are its segments' files',
    /// are not checked here (a container that cannot hold one fails the export with the muxer's reason).
    func fileTypes(for tracks: [AVAssetTrack]?) -> [AVFileType] {
        let hasVideo = tracks?.contains { $0.mediaType == .video } ?? true
        switch kind {
        case .audioOnly: return [.m4a]
        case .video: return [.mov, .mp4, .m4v]
        case .passthrough:
            let all: [AVFileType] = hasVideo ? [.mov, .mp4, .m4v, .mkv, .webm] : [.mov, .mp4, .m4v, .m4a, .mkv, .webm]
            let codecs = (tracks ?? []).filter { [.audio, .video].contains($0.mediaType) }.compactMap { $0.file?.stream.codecName }
            return all.filter { type in
                guard let container = OutputFiles.container(for: type) else { return false }
                return codecs.allSatisfy { container.holdsCopy(ofCodecNamed: $0) }
            }
        }
    }
}
