import Foundation

/// What a reader output hands out, read from its settings dictionary once, when it is made: the
/// stored samples, decoded pictures in a pixel format and size, or decoded sound as linear PCM.
/// Settings the output cannot produce are a `problem` that fails `startReading()`, where Apple's
/// initializer raises an exception.
enum ReaderOutputFormat {
    case stored
    case pictures(PictureSettings)
    case sound(PCMSettings)

    /// Pixel buffers in `pixelFormat`, at `width` x `height` (nil: the decoded size).
    struct PictureSettings: Equatable {
        var pixelFormat: OSType
        var width: Int?
        var height: Int?
    }

    /// Linear PCM. Rate and channels nil: the track's own.
    struct PCMSettings: Equatable {
        var sampleRate: Double?
        var channels: Int?
        var bitDepth: Int
        var isFloat: Bool
        var isBigEndian: Bool
        var isNonInterleaved: Bool
    }

    /// The pixel formats a reader output converts to, in the order it prefers them when a setting
    /// lists several.
    static let pixelFormats: [OSType] = [
        kCVPixelFormatType_32BGRA, kCVPixelFormatType_32ARGB, kCVPixelFormatType_32RGBA,
        kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
        kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr10BiPlanarFullRange,
        kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange,
    ]

    /// The format `settings` ask of an output of `mediaType`, or what is wrong with them.
    static func parse(_ settings: [String: Any]?, mediaType: AVMediaType) -> Result<ReaderOutputFormat, AVError> {
        guard let settings else { return .success(.stored) }
        if settings[AVVideoCodecKey] != nil || (settings[AVFormatIDKey].flatMap(SettingsValue.number).map { UInt32(exactly: $0) ?? 0 }).map({ $0 != kAudioFormatLinearPCM }) == true {
            return .failure(unsupported("AVAssetReaderOutput does not currently support compressed output"))
        }
        switch mediaType {
        case .video: return pictures(settings).map { .pictures($0) }
        case .audio: return sound(settings).map { .sound($0) }
        default: return .failure(unsupported("Output settings are not compatible with media type \(mediaType.rawValue)"))
        }
    }

    private static func pictures(_ settings: [String: Any]) -> Result<PictureSettings, AVError> {
        for key in [AVVideoCleanApertureKey, AVVideoPixelAspectRatioKey, AVVideoScalingModeKey] where settings[key] != nil {
            return .failure(unsupported("AVAssetReaderOutput does not currently support \(key)"))
        }
        if settings[AVFormatIDKey] != nil || settings[AVSampleRateKey] != nil || settings[AVNumberOfChannelsKey] != nil {
            return .failure(unsupported("Output settings are not compatible with media type vide"))
        }
        var format = kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        if let value = settings[kCVPixelBufferPixelFormatTypeKey as String] {
            let asked = (value as? [Any] ?? [value]).compactMap(SettingsValue.number).compactMap { UInt32(exactly: $0) }
            guard let supported = asked.first(where: pixelFormats.contains) else {
                let names = asked.map { $0.fourCharString }.joined(separator: ", ")
                return .failure(unsupported("Avocet cannot decode pictures to the pixel format \(names.isEmpty ? "given" : names)"))
            }
            format = supported
        }
        let width = settings[kCVPixelBufferWidthKey as String].flatMap(SettingsValue.number)
        let height = settings[kCVPixelBufferHeightKey as String].flatMap(SettingsValue.number)
        for side in [width, height].compactMap({ $0 }) where !(side >= 1 && side <= 16384 && side == side.rounded()) {
            return .failure(unsupported("a picture side of \(side) pixels is out of range (1 to 16384)"))
        }
        return .success(PictureSettings(pixelFormat: format, width: width.map { Int($0) }, height: height.map { Int($0) }))
    }

    private static func sound(_ settings: [String: Any]) -> Result<PCMSettings, AVError> {
        if settings[AVSampleRateConverterAudioQualityKey] != nil {
            return .failure(unsupported("AVAssetReaderOutput does not currently support AVSampleRateConverterAudioQualityKey"))
        }
        if settings[kCVPixelBufferPixelFormatTypeKey as String] != nil || settings[AVVideoWidthKey] != nil {
            return .failure(unsupported("Output settings are not compatible with media type soun"))
        }
        let rate = settings[AVSampleRateKey].flatMap(SettingsValue.number)
        if let rate, !(rate >= 1000 && rate <= 768_000) {
            return .failure(unsupported("a sample rate of \(rate) Hz is out of range (1000 to 768000)"))
        }
        let channels = settings[AVNumberOfChannelsKey].flatMap(SettingsValue.number)
        if let channels, !(channels >= 1 && channels <= 64 && channels == channels.rounded()) {
            return .failure(unsupported("\(channels) channels is out of range (1 to 64)"))
        }
        let isFloat = settings[AVLinearPCMIsFloatKey].flatMap(SettingsValue.flag) ?? false
        let depth = settings[AVLinearPCMBitDepthKey].flatMap(SettingsValue.number).map { Int(exactly: $0) ?? 0 } ?? (isFloat ? 32 : 16)
        let allowed = isFloat ? [32, 64] : [8, 16, 24, 32]
        guard allowed.contains(depth) else {
            return .failure(unsupported("linear PCM of \(depth) bits\(isFloat ? " floating point" : "") is not supported"))
        }
        return .success(PCMSettings(sampleRate: rate, channels: channels.map { Int($0) }, bitDepth: depth, isFloat: isFloat,
                                    isBigEndian: settings[AVLinearPCMIsBigEndianKey].flatMap(SettingsValue.flag) ?? false,
                                    isNonInterleaved: settings[AVLinearPCMIsNonInterleaved].flatMap(SettingsValue.flag) ?? false))
    }

    private static func unsupported(_ reason: String) -> AVError {
        AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedDescriptionKey: "The output settings cannot be used: \(reason).",
                                                       NSLocalizedFailureReasonErrorKey: reason])
    }
}

