import Testing
import UniformTypeIdentifiers

/// Looking types up by identifier, filename extension and MIME type, and tags back from types, with
/// the answers macOS gives.
@Suite("UTType tags")
struct UTTypeTagTests {
    @Test(arguments: [
        ("mov", "com.apple.quicktime-movie"), ("qt", "com.apple.quicktime-movie"), ("mp4", "public.mpeg-4"),
        ("MP4", "public.mpeg-4"), ("m4v", "com.apple.m4v-video"), ("m4a", "com.apple.m4a-audio"),
        ("mp3", "public.mp3"), ("wav", "com.microsoft.waveform-audio"), ("wave", "com.microsoft.waveform-audio"),
        ("aiff", "public.aifc-audio"), ("aif", "public.aifc-audio"), ("aifc", "public.aifc-audio"),
        ("caf", "com.apple.coreaudio-format"), ("ac3", "public.ac3-audio"), ("ec3", "public.enhanced-ac3-audio"),
        ("3gp", "public.3gpp"), ("3g2", "public.3gpp2"), ("ts", "public.mpeg-2-transport-stream"),
        ("m2ts", "public.avchd-mpeg-2-transport-stream"), ("mpg", "public.mpeg"), ("avi", "public.avi"),
        ("m3u8", "public.m3u-playlist"), ("m3u", "public.m3u-playlist"), ("aac", "public.aac-audio"),
        ("flac", "org.xiph.flac"), ("mkv", "org.matroska.mkv"), ("webm", "org.webmproject.webm"),
        ("jpg", "public.jpeg"), ("png", "public.png"), ("heic", "public.heic"), ("txt", "public.plain-text"),
        ("json", "public.json"), ("pdf", "com.adobe.pdf"),
    ])
    func filenameExtensionsFindMacOSsTypes(pathExtension: String, identifier: String) throws {
        let type = try #require(UTType(filenameExtension: pathExtension))
        #expect(type.identifier == identifier)
        #expect(type.isDeclared && !type.isDynamic)
        #expect(type.tags[.filenameExtension]?.contains(pathExtension.lowercased()) == true)
    }

    @Test func theBriefsExamples() throws {
        let mov = try #require(UTType(filenameExtension: "mov"))
        #expect(mov == .quickTimeMovie && mov.conforms(to: .movie))
        #expect(UTType("public.mpeg-4") == .mpeg4Movie)
        #expect(UTType(filenameExtension: "mp4")?.preferredMIMEType == "video/mp4")
        #expect(UTType(filenameExtension: "mov")?.preferredMIMEType == "video/quicktime")
        #expect(UTType(filenameExtension: "m3u8")?.preferredMIMEType == "audio/mpegurl", "macOS's preferred M3U type")
        #expect(UTType(filenameExtension: "aiff")?.conforms(to: .aiff) == true)
    }

    @Test(arguments: [
        ("video/mp4", "public.mpeg-4"), ("VIDEO/QuickTime", "com.apple.quicktime-movie"),
        ("video/x-m4v", "com.apple.m4v-video"), ("audio/mp4", "public.mpeg-4-audio"),
        ("audio/x-m4a", "com.apple.m4a-audio"), ("audio/mpeg", "public.mp3"), ("audio/wav", "com.microsoft.waveform-audio"),
        ("audio/aiff", "public.aifc-audio"), ("audio/flac", "org.xiph.flac"), ("video/x-matroska", "org.matroska.mkv"),
        ("video/webm", "org.webmproject.webm"), ("audio/ogg", "org.xiph.ogg"), ("video/3gpp", "public.3gpp"),
        ("application/vnd.apple.mpegurl", "public.m3u-playlist"), ("application/x-mpegURL", "public.m3u-playlist"),
        ("audio/mpegurl", "public.m3u-playlist"), ("image/jpeg", "public.jpeg"), ("text/plain", "public.plain-text"),
        ("application/json", "public.json"),
    ])
    func mimeTypesFindTheirTypes(mimeType: String, identifier: String) throws {
        let type = try #require(UTType(mimeType: mimeType))
        #expect(type.identifier == identifier)
        #expect(type.tags[.mimeType]?.contains(mimeType.lowercased()) == true)
    }

    @Test func typesGiveBackTheirPreferredTags() {
        #expect(UTType.mpeg4Movie.preferredFilenameExtension == "mp4" && UTType.mpeg4Movie.preferredMIMEType == "video/mp4")
        #expect(UTType.quickTimeMovie.preferredFilenameExtension == "mov")
        #expect(UTType.quickTimeMovie.tags == [.filenameExtension: ["mov", "qt"], .mimeType: ["video/quicktime"]])
        #expect(UTType.jpeg.preferredFilenameExtension == "jpeg" && UTType.jpeg.tags[.filenameExtension] == ["jpeg", "jpg", "jpe"])
        #expect(UTType.mpeg4Audio.preferredFilenameExtension == "m4a" && UTType.mpeg4Audio.preferredMIMEType == "audio/mp4")
        #expect(UTType.mp3.preferredMIMEType == "audio/mpeg" && UTType.wav.preferredMIMEType == "audio/vnd.wave")
        #expect(UTType.m3uPlaylist.preferredFilenameExtension == "m3u" && UTType.m3uPlaylist.preferredMIMEType == "audio/mpegurl")
        #expect(UTType.mpeg2TransportStream.preferredFilenameExtension == "ts" && UTType.mpeg2TransportStream.preferredMIMEType == nil)
        #expect(UTType.movie.preferredFilenameExtension == nil && UTType.movie.tags.isEmpty)
    }

    @Test func identifiersCompareWithoutCase() throws {
        let shouted = try #require(UTType("PUBLIC.MPEG-4"))
        #expect(shouted == .mpeg4Movie && shouted.identifier == "public.mpeg-4")
        #expect(Set([UTType.mpeg4Movie, shouted, .quickTimeMovie]).count == 2)
        #expect(UTType("com.example.nothing-declares-this") == nil)
        #expect(UTType("") == nil)
    }

    @Test func aSupertypeNarrowsTheLookup() throws {
        #expect(UTType(filenameExtension: "mov", conformingTo: .movie) == .quickTimeMovie)
        #expect(UTType(tag: "mp4", tagClass: .filenameExtension, conformingTo: nil) == .mpeg4Movie)
        #expect(UTType(filenameExtension: "m4a", conformingTo: .mpeg4Audio)?.identifier == "com.apple.m4a-audio")
        let notAudio = try #require(UTType(filenameExtension: "mov", conformingTo: .audio))
        #expect(notAudio.isDynamic && notAudio.conforms(to: .audio) && !notAudio.conforms(to: .movie))
    }

    @Test func everyTypeOfATagInOrder() {
        #expect(UTType.types(tag: "m4a", tagClass: .filenameExtension, conformingTo: nil).map(\.identifier)
                == ["com.apple.m4a-audio", "public.mpeg-4-audio"])
        #expect(UTType.types(tag: "aiff", tagClass: .filenameExtension, conformingTo: .data).map(\.identifier)
                == ["public.aifc-audio", "public.aiff-audio"])
        #expect(UTType.types(tag: "audio/aiff", tagClass: .mimeType, conformingTo: .aiff).count == 2)
        #expect(UTType.types(tag: "mov", tagClass: .filenameExtension, conformingTo: .movie) == [.quickTimeMovie])
        #expect(UTType.types(tag: "", tagClass: .filenameExtension, conformingTo: nil).isEmpty)
        let unknown = UTType.types(tag: "srt", tagClass: .filenameExtension, conformingTo: .data)
        #expect(unknown.count == 1 && unknown.first?.isDynamic == true)
    }

    @Test func tagClassesAreApplesIdentifiers() {
        #expect(UTTagClass.filenameExtension.rawValue == "public.filename-extension")
        #expect(UTTagClass.mimeType.rawValue == "public.mime-type")
        #expect(UTTagClass("public.mime-type") == .mimeType)
    }
}
