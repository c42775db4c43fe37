internal import MediaEngine
import Foundation

/// What a writer input writes, read from its settings dictionary (and source format hint) once, when
/// it is made: a video or audio encoder's settings, or samples written as they come. Settings it
/// cannot use are a `problem` that makes `canAdd` false and `startWriting()` fail, where Apple's
/// initializer raises an exception.
enum WriterInputFormat {
    case video(WriterTrackSettings.VideoEncoding)
    case audio(WriterTrackSettings.AudioEncoding)
    /// Passthrough: the samples' own format, from the source format hint.
    case passthrough(WriterTrackSettings.CopiedStream)

    /// Ticks a second of a video track's times (the QuickTime default for video is 600; finer here so
    /// variable frame rates keep their times).
    static let videoTimeScale: Int32 = 90_000

    static func parse(_ settings: [String: Any]?, mediaType: AVMediaType, hint: CMFormatDescription?,
                      timeScale: CMTimeScale) -> Result<WriterInputFormat, AVError> {
        if let hint, hint.mediaType.rawValue != FourCharCode(fourCharString: mediaType == .video ? "vide" : mediaType == .audio ? "soun" : "????") {
            return .failure(invalid("the source format hint is not \(mediaType.rawValue)"))
        }
        guard let settings else {
            guard let hint else {
                return .failure(invalid("passthrough (nil output settings) needs a sourceFormatHint describing the samples"))
            }
            return passthrough(hint, mediaType: mediaType, timeScale: timeScale).map { .passthrough($0) }
        }
        switch mediaType {
        case .video: return video(settings, hint: hint, timeScale: timeScale).map { .video($0) }
        case .audio: return audio(settings, hint: hint).map { .audio($0) }
        default: return .failure(invalid("Avocet's writer writes video and audio; \(mediaType.rawValue) is not encoded"))
        }
    }

    private static func video(_ settings: [String: Any], hint: CMFormatDescription?, timeScale: CMTimeScale) -> Result<WriterTrackSettings.VideoEncoding, AVError> {
        if settings[kCVPixelBufferPixelFormatTypeKey as String] != nil {
            return .failure(invalid("a writer input writes compressed video: the settings need AVVideoCodecKey, not kCVPixelBuffer keys"))
        }
        guard let name = (settings[AVVideoCodecKey] as? String) ?? (settings[AVVideoCodecKey] as? AVVideoCodecType)?.rawValue else {
            return .failure(invalid("AVVideoSettings dictionary must contain AVVideoCodecKey"))
        }
        let codecs: [String: WriterTrackSettings.VideoEncoding.Codec] = [
            "avc1": .h264, "hvc1": .hevc, "jpeg": .jpeg, "apco": .proResProxy, "apcs": .proResLT, "apcn": .proRes422,
            "apch": .proResHQ, "ap4h": .proRes4444,
        ]
        guard let codec = codecs[name] else { return .failure(unsupported("Avocet cannot encode video as \(name)")) }
        let width = settings[AVVideoWidthKey].flatMap(SettingsValue.number) ?? hint.map { Double($0.dimensions.width) }
        let height = settings[AVVideoHeightKey].flatMap(SettingsValue.number) ?? hint.map { Double($0.dimensions.height) }
        guard let width, let height else {
            return .failure(invalid("AVVideoSettings dictionary must specify a width and a height"))
        }
        guard width >= 2, height >= 2, width <= 16384, height <= 16384, width == width.rounded(), height == height.rounded() else {
            return .failure(invalid("AVVideoSettings dictionary must specify a positive width and height up to 16384 (\(width)x\(height))"))
        }
        if let mode = settings[AVVideoScalingModeKey] as? String {
            guard [AVVideoScalingModeResize, AVVideoScalingModeResizeAspect, AVVideoScalingModeResizeAspectFill].contains(mode) else {
                return .failure(invalid("Value for AVVideoScalingModeKey must be one of Resize, ResizeAspect or ResizeAspectFill"))
            }
        }
        var encoding = WriterTrackSettings.VideoEncoding(codec: codec, width: Int(width), height: Int(height),
                                                          timeScale: timeScale > 0 ? timeScale : videoTimeScale)
        if let properties = settings[AVVideoCompressionPropertiesKey] as? [String: Any] {
            for key in properties.keys where !supportedProperties.contains(key) {
                return .failure(invalid("Compression property \(key) is not supported for video codec type \(name)"))
            }
            if let rate = properties[AVVideoAverageBitRateKey].flatMap(SettingsValue.number) {
                guard rate > 0, rate < 1e10 else { return .failure(invalid("AVVideoAverageBitRateKey must be positive")) }
                if codec != .jpeg { encoding.bitRate = Int(rate) }
            }
            if let quality = properties[AVVideoQualityKey].flatMap(SettingsValue.number) {
                guard (0...1).contains(quality) else { return .failure(invalid("must specify a value between 0.0 and 1.0 for AVVideoQualityKey")) }
                encoding.quality = quality
            }
            if let interval = properties[AVVideoMaxKeyFrameIntervalKey].flatMap(SettingsValue.number) {
                guard interval >= 1, interval <= 1e6 else { return .failure(invalid("AVVideoMaxKeyFrameIntervalKey must be positive")) }
                encoding.maxKeyFrameInterval = Int(interval)
            }
            if let seconds = properties[AVVideoMaxKeyFrameIntervalDurationKey].flatMap(SettingsValue.number) {
                guard seconds >= 0, seconds.isFinite else { return .failure(invalid("AVVideoMaxKeyFrameIntervalDurationKey must not be negative")) }
                if seconds > 0 { encoding.maxKeyFrameIntervalSeconds = seconds }
            }
            if let reorder = properties[AVVideoAllowFrameReorderingKey].flatMap(SettingsValue.flag) { encoding.allowsFrameReordering = reorder }
            if let rate = properties[AVVideoExpectedSourceFrameRateKey].flatMap(SettingsValue.number) {
                guard rate > 0, rate <= 1000 else { return .failure(invalid("AVVideoExpectedSourceFrameRateKey must be from 0 to 1000")) }
                encoding.expectedFrameRate = rate
            }
            if let profile = properties[AVVideoProfileLevelKey] as? String {
                guard let named = profileName(profile, codec: codec) else {
                    return .failure(invalid("Compression property ProfileLevel \(profile) is not supported for video codec type \(name)"))
                }
                encoding.profile = named
            }
        }
        return .success(encoding)
    }

    private static let supportedProperties: Set<String> = [
        AVVideoAverageBitRateKey, AVVideoQualityKey, AVVideoMaxKeyFrameIntervalKey, AVVideoMaxKeyFrameIntervalDurationKey,
        AVVideoAllowFrameReorderingKey, AVVideoProfileLevelKey, AVVideoExpectedSourceFrameRateKey, AVVideoH264EntropyModeKey,
        AVVideoAverageNonDroppableFrameRateKey,
    ]

    /// FFmpeg's profile name for an Apple profile-level string ("H264_High_AutoLevel" is "high").
    private static func profileName(_ profile: String, codec: WriterTrackSettings.VideoEncoding.Codec) -> String? {
        switch codec {
        case .h264:
            if profile.hasPrefix("H264_Baseline") { return "baseline" }
            if profile.hasPrefix("H264_Main") { return "main" }
            if profile.hasPrefix("H264_High") { return "high" }
        case .hevc:
            if profile.hasPrefix("HEVC_Main10") { return "main10" }
            if profile.hasPrefix("HEVC_Main") { return "main" }
        default: break
        }
        return nil
    }

    private static func audio(_ settings: [String: Any], hint: CMFormatDescription?) -> Result<WriterTrackSettings.AudioEncoding, AVError> {
        if settings[AVSampleRateConverterAudioQualityKey] != nil {
            return .failure(invalid("AVSampleRateConverterAudioQualityKey is not supported by writer inputs"))
        }
        guard let format = settings[AVFormatIDKey].flatMap(SettingsValue.number).flatMap({ UInt32(exactly: $0) }) else {
            return .failure(invalid("the audio settings must contain AVFormatIDKey"))
        }
        let rate = settings[AVSampleRateKey].flatMap(SettingsValue.number) ?? hint?.audioStreamBasicDescription.map(\.mSampleRate)
        let channels = settings[AVNumberOfChannelsKey].flatMap(SettingsValue.number) ?? hint?.audioStreamBasicDescription.map { Double($0.mChannelsPerFrame) }
        guard let rate, let channels else {
            return .failure(invalid("the audio settings must contain AVSampleRateKey and AVNumberOfChannelsKey (or come with a sourceFormatHint)"))
        }
        guard rate >= 1000, rate <= 384_000, rate == rate.rounded(), channels >= 1, channels <= 8, channels == channels.rounded() else {
            return .failure(invalid("a sample rate of \(rate) Hz with \(channels) channels is out of range"))
        }
        let codec: WriterTrackSettings.AudioEncoding.Codec
        switch format {
        case kAudioFormatMPEG4AAC: codec = .aac
        case kAudioFormatFLAC: codec = .flac
        case kAudioFormatAppleLossless: codec = .alac
        case kAudioFormatOpus:
            guard [8000, 12000, 16000, 24000, 48000].contains(rate) else {
                return .failure(unsupported("Opus is encoded at 8, 12, 16, 24 or 48 kHz, not \(rate) Hz"))
            }
            codec = .opus
        case kAudioFormatLinearPCM:
            let isFloat = settings[AVLinearPCMIsFloatKey].flatMap(SettingsValue.flag) ?? false
            // A fraction dropped; NaN, infinite or huge depths count as 0 bits, which is refused.
            let bits = settings[AVLinearPCMBitDepthKey].flatMap(SettingsValue.number).map { Int(exactly: $0.rounded(.towardZero)) ?? 0 } ?? (isFloat ? 32 : 16)
            guard (isFloat ? [32, 64] : [8, 16, 24, 32]).contains(bits) else {
                return .failure(invalid("linear PCM of \(bits) bits\(isFloat ? " floating point" : "") is not supported"))
            }
            if settings[AVLinearPCMIsNonInterleaved].flatMap(SettingsValue.flag) == true {
                return .failure(unsupported("a file's linear PCM is interleaved: AVLinearPCMIsNonInterleaved must be false"))
            }
            codec = .linearPCM(bits: bits, isFloat: isFloat, isBigEndian: settings[AVLinearPCMIsBigEndianKey].flatMap(SettingsValue.flag) ?? false)
        default:
            return .failure(unsupported("Avocet cannot encode audio as \(format.fourCharString)"))
        }
        // Whole bits per second (a fraction dropped); NaN, infinite or huge rates count as -1, which is refused.
        let wholeRate = { (rate: Double) -> Int in Int(exactly: rate.rounded(.towardZero)) ?? -1 }
        var bitRate = settings[AVEncoderBitRateKey].flatMap(SettingsValue.number).map(wholeRate)
        if bitRate == nil, let perChannel = settings[AVEncoderBitRatePerChannelKey].flatMap(SettingsValue.number) {
            bitRate = wholeRate(perChannel * channels)
        }
        if let bitRate, !(bitRate >= 6000 && bitRate <= 2_000_000) {
            return .failure(invalid("AVEncoderBitRateKey \(bitRate) is out of range"))
        }
        return .success(WriterTrackSettings.AudioEncoding(codec: codec, sampleRate: Int32(rate), channels: Int32(channels), bitRate: bitRate))
    }

    private static func passthrough(_ hint: CMFormatDescription, mediaType: AVMediaType, timeScale: CMTimeScale) -> Result<WriterTrackSettings.CopiedStream, AVError> {
        let isVideo = mediaType == .video
        guard let codec = FormatDescriptions.codec(of: hint.mediaSubType) else {
            return .failure(unsupported("Avocet cannot write \(hint.mediaSubType.rawValue.fourCharString) samples as they are"))
        }
        let scale = timeScale > 0 ? timeScale : isVideo ? videoTimeScale : Int32(clamping: Int(hint.audioStreamBasicDescription?.mSampleRate ?? 44_100))
        var stream = WriterTrackSettings.CopiedStream(codec: codec, isVideo: isVideo, extradata: hint.magicCookie, timeScale: max(1, scale))
        if isVideo {
            (stream.width, stream.height) = (Int(hint.dimensions.width), Int(hint.dimensions.height))
        } else if let asbd = hint.audioStreamBasicDescription {
            stream.sampleRate = Int32(clamping: Int(asbd.mSampleRate))
            stream.channels = Int32(clamping: Int(asbd.mChannelsPerFrame))
            stream.frameSize = Int32(clamping: Int(asbd.mFramesPerPacket))
        }
        return .success(stream)
    }

    static func invalid(_ reason: String) -> AVError {
        AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The output settings cannot be used: \(reason).",
                                                       NSLocalizedFailureReasonErrorKey: reason])
    }

    static func unsupported(_ reason: String) -> AVError {
        AVError(.encoderNotFound, userInfo: [NSLocalizedDescriptionKey: "\(reason).", NSLocalizedFailureReasonErrorKey: reason])
    }
}
