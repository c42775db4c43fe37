import Foundation
internal import Locking

/// Suggests output settings for an ``AVAssetWriter`` and its inputs from a preset: a QuickTime movie,
/// H.264 or HEVC video no larger than the preset's box, and AAC sound; the suggestions follow what is
/// known of the source (``sourceVideoFormat`` keeps pictures from being enlarged, the frame durations set
/// the frame rate, ``sourceAudioFormat`` the rate and channels). Every suggestion is one Avocet's
/// writer accepts. Plain value computations: no file is touched.
///
/// Apple does not publish the values its assistant suggests; Avocet's are its own, chosen to be
/// unsurprising: a bit rate of 0.15 bits a pixel a frame for H.264 (about 9.3 Mb/s at 1080p30) and
/// 60% of that for HEVC, a keyframe at least every two seconds, the High (H.264) or Main (HEVC) profile
/// at an automatic level; AAC at 64 kb/s a channel, at 48 kHz when the source is, else 44.1 kHz, mono
/// for a mono source, else stereo. The presets with alpha and the multiview presets are not available
/// (``init(preset:)`` returns nil), as on a platform without those encoders.
open class AVOutputSettingsAssistant: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the source properties are plain values behind a lock.

    /// The presets this platform can use: the H.264 presets and the HEVC ones without alpha or views.
    ///
    /// - Returns: The presets ``init(preset:)`` accepts, H.264 first, smallest first.
    open class func availableOutputSettingsPresets() -> [AVOutputSettingsPreset] {
        [.preset640x480, .preset960x540, .preset1280x720, .preset1920x1080, .preset3840x2160,
         .hevc1920x1080, .hevc3840x2160, .hevc7680x4320]
    }

    private let box: (width: Int, height: Int)
    private let codec: AVVideoCodecType

    private struct Source {
        var audio: CMAudioFormatDescription?
        var video: CMVideoFormatDescription?
        var averageFrameDuration = CMTime(value: 1, timescale: 30)
        var minFrameDuration = CMTime.invalid
    }

    private let source = Locked(Source())

    /// An assistant for `presetIdentifier`.
    ///
    /// - Parameter presetIdentifier: One of ``availableOutputSettingsPresets()``; nil for another,
    ///   such as ``AVOutputSettingsPreset/hevc1920x1080WithAlpha`` or a multiview preset.
    public init?(preset presetIdentifier: AVOutputSettingsPreset) {
        let boxes: [AVOutputSettingsPreset: (Int, Int, AVVideoCodecType)] = [
            .preset640x480: (640, 480, .h264), .preset960x540: (960, 540, .h264), .preset1280x720: (1280, 720, .h264),
            .preset1920x1080: (1920, 1080, .h264), .preset3840x2160: (3840, 2160, .h264),
            .hevc1920x1080: (1920, 1080, .hevc), .hevc3840x2160: (3840, 2160, .hevc), .hevc7680x4320: (7680, 4320, .hevc),
        ]
        guard let (width, height, codec) = boxes[presetIdentifier] else { return nil }
        box = (width, height)
        self.codec = codec
        super.init()
    }

    /// The type of file to write: a QuickTime movie.
    open var outputFileType: AVFileType { .mov }

    /// The format of the sound to be written; the suggested rate and channels follow it.
    open var sourceAudioFormat: CMAudioFormatDescription? {
        get { source.withLock { $0.audio } }
        set { source.withLock { $0.audio = newValue } }
    }

    /// The format of the pictures to be written; the suggested size is the source's when it fits the
    /// preset's box, else the source shrunk into it (never enlarged).
    open var sourceVideoFormat: CMVideoFormatDescription? {
        get { source.withLock { $0.video } }
        set { source.withLock { $0.video = newValue } }
    }

    /// The pictures' average duration (1/30 s unless set); the suggested frame rate follows it.
    open var sourceVideoAverageFrameDuration: CMTime {
        get { source.withLock { $0.averageFrameDuration } }
        set { source.withLock { $0.averageFrameDuration = newValue } }
    }

    /// The pictures' shortest duration (invalid unless set); kept, and used for the frame rate only
    /// when the average is not a positive time.
    open var sourceVideoMinFrameDuration: CMTime {
        get { source.withLock { $0.minFrameDuration } }
        set { source.withLock { $0.minFrameDuration = newValue } }
    }

    /// Settings for a video ``AVAssetWriterInput``: codec, size and compression properties.
    open var videoSettings: [String: Any]? {
        let current = source.withLock { $0 }
        var (width, height) = box
        if let video = current.video {
            let dimensions = video.dimensions
            let (sourceWidth, sourceHeight) = (Double(dimensions.width), Double(dimensions.height))
            if sourceWidth >= 2, sourceHeight >= 2 {
                let scale = min(1, Double(box.width) / sourceWidth, Double(box.height) / sourceHeight)
                width = max(2, Int((sourceWidth * scale).rounded()) & ~1)
                height = max(2, Int((sourceHeight * scale).rounded()) & ~1)
            }
        }
        let rate = Self.frameRate(current)
        let bitsPerPixel = codec == .hevc ? 0.09 : 0.15
        let bitRate = Int((Double(width * height) * rate * bitsPerPixel).rounded())
        return [
            AVVideoCodecKey: codec,
            AVVideoWidthKey: width,
            AVVideoHeightKey: height,
            AVVideoCompressionPropertiesKey: [
                AVVideoAverageBitRateKey: bitRate,
                AVVideoExpectedSourceFrameRateKey: rate,
                AVVideoMaxKeyFrameIntervalKey: max(1, Int((rate * 2).rounded())),
                AVVideoProfileLevelKey: codec == .hevc ? "HEVC_Main_AutoLevel" : AVVideoProfileLevelH264HighAutoLevel,
            ] as [String: Any],
        ]
    }

    /// Settings for an audio ``AVAssetWriterInput``: AAC at the source's rate and channels where AAC
    /// takes them (see the type's comment).
    open var audioSettings: [String: Any]? {
        let basic = source.withLock { $0.audio }?.audioStreamBasicDescription
        let rate = basic?.mSampleRate == 48_000 ? 48_000 : 44_100
        let channels = basic?.mChannelsPerFrame == 1 ? 1 : 2
        return [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
                AVEncoderBitRateKey: 64_000 * channels]
    }

    /// Frames a second from the average duration, else the shortest, else 30; at most 240.
    private static func frameRate(_ source: Source) -> Double {
        for duration in [source.averageFrameDuration, source.minFrameDuration] where duration.isNumeric && duration > .zero {
            let rate = 1 / duration.seconds
            if rate.isFinite, rate > 0 { return min(240, (rate * 1000).rounded() / 1000) }
        }
        return 30
    }
}
