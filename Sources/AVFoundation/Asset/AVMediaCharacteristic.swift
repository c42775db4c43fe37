/// A characteristic of media a track may have (visual, audible, legible, ...).
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let visual = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicVisual")
    public static let audible = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicAudible")
    public static let legible = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicLegible")
    public static let frameBased = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicFrameBased")
    public static let containsHDRVideo = AVMediaCharacteristic(rawValue: "public.contains-hdr-video")
    public static let containsAlphaChannel = AVMediaCharacteristic(rawValue: "public.contains-alpha-channel")
    public static let usesWideGamutColorSpace = AVMediaCharacteristic(rawValue: "public.uses-wide-gamut-color-space")
    public static let isMainProgramContent = AVMediaCharacteristic(rawValue: "public.main-program-content")
    public static let isAuxiliaryContent = AVMediaCharacteristic(rawValue: "public.auxiliary-content")
    public static let isOriginalContent = AVMediaCharacteristic(rawValue: "public.original-content")
    public static let containsOnlyForcedSubtitles = AVMediaCharacteristic(rawValue: "public.subtitles.forced-only")
    public static let transcribesSpokenDialogForAccessibility = AVMediaCharacteristic(rawValue: "public.accessibility.transcribes-spoken-dialog")
    public static let describesMusicAndSoundForAccessibility = AVMediaCharacteristic(rawValue: "public.accessibility.describes-music-and-sound")
    public static let describesVideoForAccessibility = AVMediaCharacteristic(rawValue: "public.accessibility.describes-video")
    public static let easyToRead = AVMediaCharacteristic(rawValue: "public.easy-to-read")
    public static let languageTranslation = AVMediaCharacteristic(rawValue: "public.translation")
    public static let dubbedTranslation = AVMediaCharacteristic(rawValue: "public.translation.dubbed")
    public static let voiceOverTranslation = AVMediaCharacteristic(rawValue: "public.translation.voice-over")
    public static let enhancesSpeechIntelligibility = AVMediaCharacteristic(rawValue: "public.accessibility.enhances-speech-intelligibility")
}
