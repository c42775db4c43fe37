/// A file type, by its uniform type identifier.
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    /// The uniform type identifier.
    public let rawValue: String
    /// A file type from its uniform type identifier.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A file type from its uniform type identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// QuickTime movie (`com.apple.quicktime-movie`).
    public static let mov = AVFileType(rawValue: "com.apple.quicktime-movie")
    /// MPEG-4 (`public.mpeg-4`).
    public static let mp4 = AVFileType(rawValue: "public.mpeg-4")
    /// iTunes video (`com.apple.m4v-video`).
    public static let m4v = AVFileType(rawValue: "com.apple.m4v-video")
    /// MPEG-4 audio (`com.apple.m4a-audio`).
    public static let m4a = AVFileType(rawValue: "com.apple.m4a-audio")
    /// Core Audio Format (`com.apple.coreaudio-format`).
    public static let caf = AVFileType(rawValue: "com.apple.coreaudio-format")
    /// WAVE audio (`com.microsoft.waveform-audio`).
    public static let wav = AVFileType(rawValue: "com.microsoft.waveform-audio")
    /// AIFF audio (`public.aiff-audio`).
    public static let aiff = AVFileType(rawValue: "public.aiff-audio")
    /// AIFF-C audio (`public.aifc-audio`).
    public static let aifc = AVFileType(rawValue: "public.aifc-audio")
    /// Adaptive Multi-Rate audio (`org.3gpp.adaptive-multi-rate-audio`).
    public static let amr = AVFileType(rawValue: "org.3gpp.adaptive-multi-rate-audio")
    /// MPEG Layer 3 audio (`public.mp3`).
    public static let mp3 = AVFileType(rawValue: "public.mp3")
    /// Sun/NeXT audio (`public.au-audio`).
    public static let au = AVFileType(rawValue: "public.au-audio")
    /// AC-3 audio (`public.ac3-audio`).
    public static let ac3 = AVFileType(rawValue: "public.ac3-audio")
    /// Enhanced AC-3 audio (`public.enhanced-ac3-audio`).
    public static let eac3 = AVFileType(rawValue: "public.enhanced-ac3-audio")
    /// 3GPP (`public.3gpp`).
    public static let mobile3GPP = AVFileType(rawValue: "public.3gpp")
    /// 3GPP2 (`public.3gpp2`).
    public static let mobile3GPP2 = AVFileType(rawValue: "public.3gpp2")
    /// JPEG image (`public.jpeg`).
    public static let jpg = AVFileType(rawValue: "public.jpeg")
    /// HEIC image (`public.heic`).
    public static let heic = AVFileType(rawValue: "public.heic")
    /// HEIF image (`public.heif`).
    public static let heif = AVFileType(rawValue: "public.heif")
    /// TIFF image (`public.tiff`).
    public static let tif = AVFileType(rawValue: "public.tiff")
    /// Digital negative, a camera's raw image (`com.adobe.raw-image`).
    public static let dng = AVFileType(rawValue: "com.adobe.raw-image")
    /// AVC-coded still image in HEIF (`public.avci`).
    public static let avci = AVFileType(rawValue: "public.avci")
    /// Scenarist closed captions (`com.scenarist.closed-caption`).
    public static let SCC = AVFileType(rawValue: "com.scenarist.closed-caption")
    /// iTunes Timed Text (`com.apple.itunes-timed-text`).
    public static let appleiTT = AVFileType(rawValue: "com.apple.itunes-timed-text")
    /// Matroska. Avocet's: Apple has none.
    public static let mkv = AVFileType(rawValue: "org.matroska.mkv")
    /// WebM. Avocet's.
    public static let webm = AVFileType(rawValue: "org.webmproject.webm")
    /// FLAC. Avocet's.
    public static let flac = AVFileType(rawValue: "org.xiph.flac")
    /// Ogg (Vorbis, Opus). Avocet's.
    public static let ogg = AVFileType(rawValue: "org.xiph.ogg")
}
