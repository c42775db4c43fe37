/// The fixed table of declared types that stands in for the system's type registry (Launch Services
/// on Apple's platforms, which also learns the types installed apps declare).
///
/// Identifiers, conformances, extensions and MIME types are Apple's (the documentation of each
/// `UTType` constant, and what macOS answers for each extension); `org.matroska.mkv`,
/// `org.webmproject.webm` and `org.xiph.ogg` are Avocet's, for the containers it reads that Apple
/// declares no type for. Where two types claim one tag (`m4a`, `aiff`), the one listed first is the
/// one a lookup by that tag answers, as macOS answers it.
enum TypeTable {
    /// Every declared type, in lookup order.
    static let declarations: [TypeDeclaration] = [
        // The roots of the physical and the functional hierarchy.
        TypeDeclaration("public.item", conformsTo: [], summary: "item"),
        TypeDeclaration("public.content", conformsTo: [], summary: "content"),
        TypeDeclaration("public.composite-content", conformsTo: ["public.content"], summary: "mixed content"),
        TypeDeclaration("public.data", conformsTo: ["public.item"], summary: "data"),
        TypeDeclaration("public.directory", conformsTo: ["public.item"], summary: "directory"),
        TypeDeclaration("public.folder", conformsTo: ["public.directory"], summary: "folder"),
        TypeDeclaration("public.volume", conformsTo: ["public.folder"], summary: "volume"),
        TypeDeclaration("com.apple.package", conformsTo: ["public.directory"], summary: "package"),
        TypeDeclaration("com.apple.bundle", conformsTo: ["public.directory"], summary: "bundle"),
        TypeDeclaration("public.url", conformsTo: ["public.data"], summary: "URL"),
        TypeDeclaration("public.file-url", conformsTo: ["public.url"], summary: "file URL"),
        TypeDeclaration("public.archive", conformsTo: ["public.data"], summary: "archive"),
        TypeDeclaration("public.zip-archive", conformsTo: ["public.archive"], extensions: ["zip"],
                        mimeTypes: ["application/zip"], summary: "ZIP archive"),

        // Text.
        TypeDeclaration("public.text", conformsTo: ["public.data", "public.content"], summary: "text"),
        TypeDeclaration("public.plain-text", conformsTo: ["public.text"], extensions: ["txt", "text"],
                        mimeTypes: ["text/plain"], summary: "plain text document"),
        TypeDeclaration("public.utf8-plain-text", conformsTo: ["public.plain-text"],
                        mimeTypes: ["text/plain;charset=utf-8"], summary: "Unicode (UTF-8) text"),
        TypeDeclaration("public.delimited-values-text", conformsTo: ["public.text"], summary: "delimited text"),
        TypeDeclaration("public.comma-separated-values-text", conformsTo: ["public.delimited-values-text"],
                        extensions: ["csv"], mimeTypes: ["text/csv", "text/comma-separated-values"],
                        summary: "comma-separated values"),
        TypeDeclaration("public.tab-separated-values-text", conformsTo: ["public.delimited-values-text"],
                        extensions: ["tsv"], mimeTypes: ["text/tab-separated-values"],
                        summary: "tab-separated values"),
        TypeDeclaration("public.json", conformsTo: ["public.text"], extensions: ["json"],
                        mimeTypes: ["application/json"], summary: "JSON"),
        TypeDeclaration("public.xml", conformsTo: ["public.text"], extensions: ["xml"],
                        mimeTypes: ["application/xml", "text/xml"], summary: "XML text"),
        TypeDeclaration("public.yaml", conformsTo: ["public.text"], extensions: ["yml", "yaml"],
                        mimeTypes: ["application/x-yaml"], summary: "YAML"),
        TypeDeclaration("public.html", conformsTo: ["public.text"], extensions: ["html", "htm", "shtml", "shtm"],
                        mimeTypes: ["text/html"], summary: "HTML text"),
        TypeDeclaration("public.rtf", conformsTo: ["public.text"], extensions: ["rtf"], mimeTypes: ["text/rtf"],
                        summary: "rich text document"),
        TypeDeclaration("com.adobe.pdf", conformsTo: ["public.data", "public.composite-content"],
                        extensions: ["pdf"], mimeTypes: ["application/pdf"], summary: "PDF document"),

        // Images.
        TypeDeclaration("public.image", conformsTo: ["public.data", "public.content"], summary: "image"),
        TypeDeclaration("public.png", conformsTo: ["public.image"], extensions: ["png"], mimeTypes: ["image/png"],
                        summary: "PNG image"),
        TypeDeclaration("public.jpeg", conformsTo: ["public.image"], extensions: ["jpeg", "jpg", "jpe"],
                        mimeTypes: ["image/jpeg"], summary: "JPEG image"),
        TypeDeclaration("public.tiff", conformsTo: ["public.image"], extensions: ["tiff", "tif"],
                        mimeTypes: ["image/tiff"], summary: "TIFF image"),
        TypeDeclaration("com.compuserve.gif", conformsTo: ["public.image"], extensions: ["gif"],
                        mimeTypes: ["image/gif"], summary: "GIF image"),
        TypeDeclaration("com.microsoft.bmp", conformsTo: ["public.image"], extensions: ["bmp", "dib"],
                        mimeTypes: ["image/bmp"], summary: "Windows BMP image"),
        TypeDeclaration("public.svg-image", conformsTo: ["public.image"], extensions: ["svg", "svgz"],
                        mimeTypes: ["image/svg+xml"], summary: "SVG image"),
        TypeDeclaration("org.webmproject.webp", conformsTo: ["public.image"], extensions: ["webp"],
                        mimeTypes: ["image/webp"], summary: "WebP image"),
        TypeDeclaration("public.heif-standard", conformsTo: ["public.image"], summary: "HEIF standard image"),
        TypeDeclaration("public.heif", conformsTo: ["public.heif-standard"], extensions: ["heif", "hif"],
                        mimeTypes: ["image/heif"], summary: "HEIF image"),
        TypeDeclaration("public.heic", conformsTo: ["public.heif-standard"], extensions: ["heic"],
                        mimeTypes: ["image/heic"], summary: "HEIC image"),
        TypeDeclaration("public.heics", conformsTo: ["public.heif-standard"], extensions: ["heics"],
                        mimeTypes: ["image/heic-sequence"], summary: "HEIC image sequence"),
        TypeDeclaration("public.avci", conformsTo: ["public.heif-standard"], extensions: ["avci"],
                        mimeTypes: ["image/avci"], summary: "AVC image in HEIF"),
        TypeDeclaration("public.camera-raw-image", conformsTo: ["public.image"], summary: "camera raw image"),
        TypeDeclaration("com.adobe.raw-image", conformsTo: ["public.camera-raw-image"], extensions: ["dng"],
                        mimeTypes: ["image/x-adobe-dng"], summary: "Digital negative image"),
        TypeDeclaration("com.scenarist.closed-caption", conformsTo: ["public.data"], extensions: ["scc"],
                        summary: "Scenarist closed captions"),
        TypeDeclaration("com.apple.itunes-timed-text", conformsTo: ["public.xml"], extensions: ["itt"],
                        summary: "iTunes Timed Text"),

        // Audiovisual content: the abstract types.
        TypeDeclaration("public.audiovisual-content", conformsTo: ["public.data", "public.content"],
                        summary: "audiovisual content"),
        TypeDeclaration("public.movie", conformsTo: ["public.audiovisual-content"], summary: "movie"),
        TypeDeclaration("public.video", conformsTo: ["public.movie"], summary: "video"),
        TypeDeclaration("public.audio", conformsTo: ["public.audiovisual-content"], summary: "audio"),

        // Movies.
        TypeDeclaration("com.apple.quicktime-movie", conformsTo: ["public.movie"], extensions: ["mov", "qt"],
                        mimeTypes: ["video/quicktime"], summary: "QuickTime movie"),
        TypeDeclaration("public.mpeg", conformsTo: ["public.movie"],
                        extensions: ["mpg", "mpeg", "mpe", "m75", "m15"],
                        mimeTypes: ["video/mpeg", "video/mpg", "video/x-mpeg", "video/x-mpg"], summary: "MPEG movie"),
        TypeDeclaration("public.mpeg-2-video", conformsTo: ["public.video"], extensions: ["m2v"],
                        mimeTypes: ["video/mpeg2"], summary: "MPEG-2 video"),
        TypeDeclaration("public.mpeg-2-transport-stream", conformsTo: ["public.movie"], extensions: ["ts"],
                        summary: "MPEG-2 transport stream"),
        TypeDeclaration("public.avchd-mpeg-2-transport-stream", conformsTo: ["public.mpeg-2-transport-stream"],
                        extensions: ["mts", "m2ts"], summary: "AVCHD MPEG-2 transport stream"),
        TypeDeclaration("public.mpeg-4", conformsTo: ["public.movie"], extensions: ["mp4", "mpg4"],
                        mimeTypes: ["video/mp4", "video/mp4v"], summary: "MPEG-4 movie"),
        TypeDeclaration("com.apple.m4v-video", conformsTo: ["public.mpeg-4"], extensions: ["m4v"],
                        mimeTypes: ["video/x-m4v"], summary: "Apple MPEG-4 movie"),
        TypeDeclaration("com.apple.protected-mpeg-4-video", conformsTo: ["com.apple.m4v-video"],
                        summary: "Apple protected MPEG-4 movie"),
        TypeDeclaration("public.3gpp", conformsTo: ["public.movie"], extensions: ["3gp", "3gpp", "sdv"],
                        mimeTypes: ["video/3gpp", "audio/3gpp"], summary: "3GPP movie"),
        TypeDeclaration("public.3gpp2", conformsTo: ["public.movie"], extensions: ["3g2", "3gp2"],
                        mimeTypes: ["video/3gpp2", "audio/3gpp2"], summary: "3GPP2 movie"),
        TypeDeclaration("public.avi", conformsTo: ["public.movie"], extensions: ["avi", "vfw"],
                        mimeTypes: ["video/avi", "video/msvideo", "video/x-msvideo"], summary: "AVI movie"),
        TypeDeclaration("org.matroska.mkv", conformsTo: ["public.movie"], extensions: ["mkv"],
                        mimeTypes: ["video/x-matroska"], summary: "Matroska movie"),
        TypeDeclaration("org.webmproject.webm", conformsTo: ["public.movie"], extensions: ["webm"],
                        mimeTypes: ["video/webm", "audio/webm"], summary: "WebM movie"),

        // Sound. The m4a and AIFF-C types come before the types they refine: macOS answers those for
        // the extensions both claim.
        TypeDeclaration("com.apple.m4a-audio", conformsTo: ["public.mpeg-4-audio"], extensions: ["m4a"],
                        mimeTypes: ["audio/x-m4a"], summary: "Apple MPEG-4 audio"),
        TypeDeclaration("public.mpeg-4-audio", conformsTo: ["public.mpeg", "public.audio"], extensions: ["m4a"],
                        mimeTypes: ["audio/mp4", "audio/mpeg4"], summary: "MPEG-4 audio"),
        TypeDeclaration("com.apple.protected-mpeg-4-audio", conformsTo: ["public.audio"], extensions: ["m4p"],
                        summary: "Apple protected MPEG-4 audio"),
        TypeDeclaration("public.mp3", conformsTo: ["public.audio"], extensions: ["mp3", "mpga"],
                        mimeTypes: ["audio/mpeg", "audio/mpeg3", "audio/mp3", "audio/x-mpeg3"], summary: "MP3 audio"),
        TypeDeclaration("public.aac-audio", conformsTo: ["public.audio"], extensions: ["aac", "adts"],
                        mimeTypes: ["audio/aac", "audio/x-aac"], summary: "ADTS audio"),
        TypeDeclaration("com.microsoft.waveform-audio", conformsTo: ["public.audio"],
                        extensions: ["wav", "wave", "bwf"],
                        mimeTypes: ["audio/vnd.wave", "audio/wav", "audio/wave", "audio/x-wav"],
                        summary: "Waveform audio"),
        TypeDeclaration("public.aifc-audio", conformsTo: ["public.aiff-audio"],
                        extensions: ["aifc", "aiff", "aif", "cdda"], mimeTypes: ["audio/aiff", "audio/x-aiff"],
                        summary: "AIFF-C audio"),
        TypeDeclaration("public.aiff-audio", conformsTo: ["public.audio"], extensions: ["aiff", "aif"],
                        mimeTypes: ["audio/aiff", "audio/x-aiff"], summary: "AIFF audio"),
        TypeDeclaration("com.apple.coreaudio-format", conformsTo: ["public.audio"], extensions: ["caf"],
                        summary: "Core Audio Format audio"),
        TypeDeclaration("public.ac3-audio", conformsTo: ["public.audio"], extensions: ["ac3"],
                        mimeTypes: ["audio/ac3"], summary: "AC-3 audio"),
        TypeDeclaration("public.enhanced-ac3-audio", conformsTo: ["public.audio"], extensions: ["eac3", "ec3"],
                        mimeTypes: ["audio/eac3"], summary: "Enhanced AC-3 audio"),
        TypeDeclaration("public.au-audio", conformsTo: ["public.audio"], extensions: ["au", "snd"],
                        mimeTypes: ["audio/basic", "audio/au"], summary: "Sun/NeXT audio"),
        TypeDeclaration("org.3gpp.adaptive-multi-rate-audio", conformsTo: ["public.audio"], extensions: ["amr"],
                        mimeTypes: ["audio/amr"], summary: "Adaptive Multi-Rate audio"),
        TypeDeclaration("public.midi-audio", conformsTo: ["public.audio"], extensions: ["midi", "mid", "smf", "kar"],
                        mimeTypes: ["audio/midi", "audio/x-midi"], summary: "MIDI audio"),
        TypeDeclaration("org.xiph.flac", conformsTo: ["public.audio"], extensions: ["flac"],
                        mimeTypes: ["audio/flac", "audio/x-flac"], summary: "FLAC audio"),
        TypeDeclaration("org.xiph.ogg", conformsTo: ["public.audio"], extensions: ["ogg", "oga", "opus"],
                        mimeTypes: ["audio/ogg", "application/ogg"], summary: "Ogg audio"),

        // Playlists.
        TypeDeclaration("public.playlist", conformsTo: [], summary: "playlist"),
        TypeDeclaration("public.m3u-playlist", conformsTo: ["public.text", "public.playlist"],
                        extensions: ["m3u", "m3u8"],
                        mimeTypes: ["audio/mpegurl", "audio/x-mpegurl", "application/x-mpegurl",
                                    "application/vnd.apple.mpegurl"],
                        summary: "M3U playlist"),
    ]

    /// The declarations by lowercased identifier.
    static let byIdentifier: [String: TypeDeclaration] =
        Dictionary(uniqueKeysWithValues: declarations.map { ($0.identifier.lowercased(), $0) })

    /// The declarations that claim each filename extension, in lookup order.
    static let byFilenameExtension: [String: [TypeDeclaration]] = index(\.filenameExtensions)

    /// The declarations that claim each MIME type, in lookup order.
    static let byMIMEType: [String: [TypeDeclaration]] = index(\.mimeTypes)

    /// The declarations that claim `tag` in `tagClass` (compared without case), in lookup order.
    static func declarations(tag: String, tagClass: UTTagClass) -> [TypeDeclaration] {
        switch tagClass {
        case .filenameExtension: byFilenameExtension[tag.lowercased()] ?? []
        case .mimeType: byMIMEType[tag.lowercased()] ?? []
        default: []
        }
    }

    private static func index(_ tags: KeyPath<TypeDeclaration, [String]>) -> [String: [TypeDeclaration]] {
        var index: [String: [TypeDeclaration]] = [:]
        for declaration in declarations {
            for tag in declaration[keyPath: tags] { index[tag, default: []].append(declaration) }
        }
        return index
    }
}
