/// A characteristic of media a track may have (visual, audible, legible, ...).
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable {
    /// The characteristic's string.
    public let rawValue: String
    /// A characteristic from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A characteristic from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The media is seen: video.
    public static let visual = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicVisual")
    /// The media is heard: audio.
    public static let audible = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicAudible")
    /// The media is read: subtitles, captions, text.
    public static let legible = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicLegible")
    /// The media is made of frames: video.
    public static let frameBased = AVMediaCharacteristic(rawValue: "AVMediaCharacteristicFrameBased")
    /// The video is high dynamic range.
    public static let containsHDRVideo = AVMediaCharacteristic(rawValue: "public.contains-hdr-video")
    /// The video has an alpha channel.
    public static let containsAlphaChannel = AVMediaCharacteristic(rawValue: "public.contains-alpha-channel")
    /// The video uses a wide-gamut colour space.
    public static let usesWideGamutColorSpace = AVMediaCharacteristic(rawValue: "public.uses-wide-gamut-color-space")
    /// The media is the main programme.
    public static let isMainProgramContent = AVMediaCharacteristic(rawValue: "public.main-program-content")
    /// The media is auxiliary to the main programme.
    public static let isAuxiliaryContent = AVMediaCharacteristic(rawValue: "public.auxiliary-content")
    /// The media is in its original language (the container's "original" flag).
    public static let isOriginalContent = AVMediaCharacteristic(rawValue: "public.original-content")
    /// The subtitles are forced ones only (the container's "forced" flag).
    public static let containsOnlyForcedSubtitles = AVMediaCharacteristic(rawValue: "public.subtitles.forced-only")
    /// The text transcribes spoken dialogue, for the hearing impaired.
    public static let transcribesSpokenDialogForAccessibility = AVMediaCharacteristic(rawValue: "public.accessibility.transcribes-spoken-dialog")
    /// The text describes music and sound, for the hearing impaired.
    public static let describesMusicAndSoundForAccessibility = AVMediaCharacteristic(rawValue: "public.accessibility.describes-music-and-sound")
    /// The audio describes the video, for the visually impaired.
    public static let describesVideoForAccessibility = AVMediaCharacteristic(rawValue: "public.accessibility.describes-video")
    /// The text is written to be easy to read.
    public static let easyToRead = AVMediaCharacteristic(rawValue: "public.easy-to-read")
    /// The media is a translation.
    public static let languageTranslation = AVMediaCharacteristic(rawValue: "public.translation")
    /// The audio is a dubbed translation.
    public static let dubbedTranslation = AVMediaCharacteristic(rawValue: "public.translation.dubbed")
    /// The audio is a voice-over translation.
    public static let voiceOverTranslation = AVMediaCharacteristic(rawValue: "public.translation.voice-over")
    /// The audio makes speech easier to understand.
    public static let enhancesSpeechIntelligibility = AVMediaCharacteristic(rawValue: "public.accessibility.enhances-speech-intelligibility")
}
