// The declared types Apple's `UTType` names as constants, each a row of the type table.
extension UTType {
    // MARK: Base types

    /// The base type of the physical hierarchy: files, directories, anything on disk.
    ///
    /// The identifier is `public.item`.
    public static let item = UTType(declared: "public.item")

    /// The base type of everything with content people view: documents, media.
    ///
    /// The identifier is `public.content`.
    public static let content = UTType(declared: "public.content")

    /// Content that mixes kinds, such as a PDF document.
    ///
    /// The identifier is `public.composite-content`.
    public static let compositeContent = UTType(declared: "public.composite-content")

    /// A stream of bytes: a file, or data in memory. The default supertype of tag lookups.
    ///
    /// The identifier is `public.data`.
    public static let data = UTType(declared: "public.data")

    /// A directory of the file system.
    ///
    /// The identifier is `public.directory`.
    public static let directory = UTType(declared: "public.directory")

    /// A directory people see as a folder.
    ///
    /// The identifier is `public.folder`.
    public static let folder = UTType(declared: "public.folder")

    /// The root folder of a volume.
    ///
    /// The identifier is `public.volume`.
    public static let volume = UTType(declared: "public.volume")

    /// A directory presented as one file.
    ///
    /// The identifier is `com.apple.package`.
    public static let package = UTType(declared: "com.apple.package")

    /// A directory with a standard layout of resources.
    ///
    /// The identifier is `com.apple.bundle`.
    public static let bundle = UTType(declared: "com.apple.bundle")

    /// The bytes of a URL.
    ///
    /// The identifier is `public.url`.
    public static let url = UTType(declared: "public.url")

    /// The bytes of a `file:` URL.
    ///
    /// The identifier is `public.file-url`.
    public static let fileURL = UTType(declared: "public.file-url")

    /// An archive of files and directories.
    ///
    /// The identifier is `public.archive`.
    public static let archive = UTType(declared: "public.archive")

    /// A ZIP archive (`zip`, `application/zip`).
    ///
    /// The identifier is `public.zip-archive`.
    public static let zip = UTType(declared: "public.zip-archive")

    // MARK: Text

    /// All text, including text with markup.
    ///
    /// The identifier is `public.text`.
    public static let text = UTType(declared: "public.text")

    /// Text with no markup and an unspecified encoding (`txt`, `text/plain`).
    ///
    /// The identifier is `public.plain-text`.
    public static let plainText = UTType(declared: "public.plain-text")

    /// Plain text in UTF-8.
    ///
    /// The identifier is `public.utf8-plain-text`.
    public static let utf8PlainText = UTType(declared: "public.utf8-plain-text")

    /// Text of values separated by a delimiter.
    ///
    /// The identifier is `public.delimited-values-text`.
    public static let delimitedText = UTType(declared: "public.delimited-values-text")

    /// Comma-separated values (`csv`, `text/csv`).
    ///
    /// The identifier is `public.comma-separated-values-text`.
    public static let commaSeparatedText = UTType(declared: "public.comma-separated-values-text")

    /// Tab-separated values (`tsv`).
    ///
    /// The identifier is `public.tab-separated-values-text`.
    public static let tabSeparatedText = UTType(declared: "public.tab-separated-values-text")

    /// JSON (`json`, `application/json`); conforms to text, not to JavaScript.
    ///
    /// The identifier is `public.json`.
    public static let json = UTType(declared: "public.json")

    /// XML (`xml`, `application/xml`).
    ///
    /// The identifier is `public.xml`.
    public static let xml = UTType(declared: "public.xml")

    /// YAML (`yml`, `application/x-yaml`).
    ///
    /// The identifier is `public.yaml`.
    public static let yaml = UTType(declared: "public.yaml")

    /// HTML (`html`, `text/html`).
    ///
    /// The identifier is `public.html`.
    public static let html = UTType(declared: "public.html")

    /// Rich Text Format (`rtf`, `text/rtf`).
    ///
    /// The identifier is `public.rtf`.
    public static let rtf = UTType(declared: "public.rtf")

    /// PDF (`pdf`, `application/pdf`).
    ///
    /// The identifier is `com.adobe.pdf`.
    public static let pdf = UTType(declared: "com.adobe.pdf")

    // MARK: Images

    /// The base type of images.
    ///
    /// The identifier is `public.image`.
    public static let image = UTType(declared: "public.image")

    /// PNG (`png`, `image/png`).
    ///
    /// The identifier is `public.png`.
    public static let png = UTType(declared: "public.png")

    /// JPEG (`jpeg`, `jpg`, `image/jpeg`).
    ///
    /// The identifier is `public.jpeg`.
    public static let jpeg = UTType(declared: "public.jpeg")

    /// TIFF (`tiff`, `tif`, `image/tiff`).
    ///
    /// The identifier is `public.tiff`.
    public static let tiff = UTType(declared: "public.tiff")

    /// GIF (`gif`, `image/gif`).
    ///
    /// The identifier is `com.compuserve.gif`.
    public static let gif = UTType(declared: "com.compuserve.gif")

    /// Windows bitmap (`bmp`, `image/bmp`).
    ///
    /// The identifier is `com.microsoft.bmp`.
    public static let bmp = UTType(declared: "com.microsoft.bmp")

    /// Scalable Vector Graphics (`svg`, `image/svg+xml`).
    ///
    /// The identifier is `public.svg-image`.
    public static let svg = UTType(declared: "public.svg-image")

    /// WebP (`webp`, `image/webp`).
    ///
    /// The identifier is `org.webmproject.webp`.
    public static let webP = UTType(declared: "org.webmproject.webp")

    /// High Efficiency Image File Format (`heif`, `image/heif`); conforms to `public.heif-standard`.
    ///
    /// The identifier is `public.heif`.
    public static let heif = UTType(declared: "public.heif")

    /// High Efficiency Image Coding (`heic`, `image/heic`); conforms to `public.heif-standard`.
    ///
    /// The identifier is `public.heic`.
    public static let heic = UTType(declared: "public.heic")

    /// A High Efficiency Image Coding image sequence (`heics`, `image/heic-sequence`).
    ///
    /// The identifier is `public.heics`.
    public static let heics = UTType(declared: "public.heics")

    // MARK: Audiovisual content

    /// The base type of audio and video: conforms to data and content.
    ///
    /// The identifier is `public.audiovisual-content`.
    public static let audiovisualContent = UTType(declared: "public.audiovisual-content")

    /// Media that may hold both video and sound; what people call a movie.
    ///
    /// The identifier is `public.movie`.
    public static let movie = UTType(declared: "public.movie")

    /// Video with no sound.
    ///
    /// The identifier is `public.video`.
    public static let video = UTType(declared: "public.video")

    /// Sound with no video.
    ///
    /// The identifier is `public.audio`.
    public static let audio = UTType(declared: "public.audio")

    /// A QuickTime movie (`mov`, `qt`, `video/quicktime`).
    ///
    /// The identifier is `com.apple.quicktime-movie`.
    public static let quickTimeMovie = UTType(declared: "com.apple.quicktime-movie")

    /// An MPEG-1 or MPEG-2 movie (`mpg`, `mpeg`, `video/mpeg`).
    ///
    /// The identifier is `public.mpeg`.
    public static let mpeg = UTType(declared: "public.mpeg")

    /// MPEG-2 video (`m2v`, `video/mpeg2`).
    ///
    /// The identifier is `public.mpeg-2-video`.
    public static let mpeg2Video = UTType(declared: "public.mpeg-2-video")

    /// An MPEG-2 transport stream (`ts`).
    ///
    /// The identifier is `public.mpeg-2-transport-stream`.
    public static let mpeg2TransportStream = UTType(declared: "public.mpeg-2-transport-stream")

    /// An MPEG-4 movie (`mp4`, `video/mp4`).
    ///
    /// The identifier is `public.mpeg-4`.
    public static let mpeg4Movie = UTType(declared: "public.mpeg-4")

    /// Apple-protected MPEG-4 video; conforms to `com.apple.m4v-video`.
    ///
    /// The identifier is `com.apple.protected-mpeg-4-video`.
    public static let appleProtectedMPEG4Video = UTType(declared: "com.apple.protected-mpeg-4-video")

    /// MPEG-4 audio (`m4a`, `audio/mp4`); conforms to ``mpeg`` and ``audio``, as Apple documents it.
    ///
    /// The identifier is `public.mpeg-4-audio`.
    public static let mpeg4Audio = UTType(declared: "public.mpeg-4-audio")

    /// Apple-protected MPEG-4 audio (`m4p`).
    ///
    /// The identifier is `com.apple.protected-mpeg-4-audio`.
    public static let appleProtectedMPEG4Audio = UTType(declared: "com.apple.protected-mpeg-4-audio")

    /// MP3 audio (`mp3`, `audio/mpeg`).
    ///
    /// The identifier is `public.mp3`.
    public static let mp3 = UTType(declared: "public.mp3")

    /// Waveform audio (`wav`, `wave`, `bwf`, `audio/vnd.wave`).
    ///
    /// The identifier is `com.microsoft.waveform-audio`.
    public static let wav = UTType(declared: "com.microsoft.waveform-audio")

    /// AIFF audio (`aiff`, `aif`, `audio/aiff`). The extensions find `public.aifc-audio`, which conforms to this, as on macOS.
    ///
    /// The identifier is `public.aiff-audio`.
    public static let aiff = UTType(declared: "public.aiff-audio")

    /// An AVI movie (`avi`, `video/avi`).
    ///
    /// The identifier is `public.avi`.
    public static let avi = UTType(declared: "public.avi")

    /// MIDI (`midi`, `mid`, `audio/midi`).
    ///
    /// The identifier is `public.midi-audio`.
    public static let midi = UTType(declared: "public.midi-audio")

    // MARK: Playlists

    /// The base type of playlists.
    ///
    /// The identifier is `public.playlist`.
    public static let playlist = UTType(declared: "public.playlist")

    /// An M3U or M3U8 playlist, HLS's included (`m3u`, `m3u8`, `audio/mpegurl`, `application/vnd.apple.mpegurl`); conforms to text and playlist.
    ///
    /// The identifier is `public.m3u-playlist`.
    public static let m3uPlaylist = UTType(declared: "public.m3u-playlist")
}
