/// A preset an ``AVOutputSettingsAssistant`` is made with: the largest picture it suggests and the codec.
public struct AVOutputSettingsPreset: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// H.264 at up to 640x480.
    public static let preset640x480 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPreset640x480")
    /// H.264 at up to 960x540.
    public static let preset960x540 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPreset960x540")
    /// H.264 at up to 1280x720.
    public static let preset1280x720 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPreset1280x720")
    /// H.264 at up to 1920x1080.
    public static let preset1920x1080 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPreset1920x1080")
    /// H.264 at up to 3840x2160.
    public static let preset3840x2160 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPreset3840x2160")
    /// HEVC at up to 1920x1080.
    public static let hevc1920x1080 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetHEVC1920x1080")
    /// HEVC at up to 3840x2160.
    public static let hevc3840x2160 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetHEVC3840x2160")
    /// HEVC at up to 7680x4320.
    public static let hevc7680x4320 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetHEVC7680x4320")
    /// HEVC with alpha at up to 1920x1080 (not available in Avocet: its encoder has no alpha).
    public static let hevc1920x1080WithAlpha = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetHEVC1920x1080WithAlpha")
    /// HEVC with alpha at up to 3840x2160 (not available in Avocet).
    public static let hevc3840x2160WithAlpha = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetHEVC3840x2160WithAlpha")
    /// Multiview (stereo) HEVC at up to 960x960 (not available in Avocet).
    public static let mvhevc960x960 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetMVHEVC960x960")
    /// Multiview (stereo) HEVC at up to 1440x1440 (not available in Avocet).
    public static let mvhevc1440x1440 = AVOutputSettingsPreset(rawValue: "AVOutputSettingsPresetMVHEVC1440x1440")
}
