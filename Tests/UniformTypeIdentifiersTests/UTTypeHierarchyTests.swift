import Foundation
import Testing
import UniformTypeIdentifiers

// This target imports Testing and a module named UniformTypeIdentifiers together: the toolchain's
// Swift Testing ships cross-import overlays only for AppKit, CoreGraphics, CoreImage, Foundation,
// UIKit and WinSDK, so no `_Testing_UniformTypeIdentifiers` is looked for (a module named
// CoreGraphics would make the compiler look for `_Testing_CoreGraphics`, which Linux lacks).

/// The constants' identifiers and the conformance tree between them, as Apple documents each type.
@Suite("UTType hierarchy")
struct UTTypeHierarchyTests {
    @Test(arguments: [
        (UTType.item, "public.item"), (.content, "public.content"), (.data, "public.data"),
        (.directory, "public.directory"), (.folder, "public.folder"), (.url, "public.url"),
        (.fileURL, "public.file-url"), (.text, "public.text"), (.plainText, "public.plain-text"),
        (.json, "public.json"), (.image, "public.image"), (.png, "public.png"), (.jpeg, "public.jpeg"),
        (.heic, "public.heic"), (.heif, "public.heif"), (.webP, "org.webmproject.webp"),
        (.audiovisualContent, "public.audiovisual-content"), (.movie, "public.movie"), (.video, "public.video"),
        (.audio, "public.audio"), (.quickTimeMovie, "com.apple.quicktime-movie"), (.mpeg4Movie, "public.mpeg-4"),
        (.mpeg2TransportStream, "public.mpeg-2-transport-stream"), (.mpeg2Video, "public.mpeg-2-video"),
        (.mpeg4Audio, "public.mpeg-4-audio"), (.appleProtectedMPEG4Audio, "com.apple.protected-mpeg-4-audio"),
        (.appleProtectedMPEG4Video, "com.apple.protected-mpeg-4-video"), (.mp3, "public.mp3"),
        (.wav, "com.microsoft.waveform-audio"), (.aiff, "public.aiff-audio"), (.mpeg, "public.mpeg"),
        (.avi, "public.avi"), (.midi, "public.midi-audio"), (.playlist, "public.playlist"),
        (.m3uPlaylist, "public.m3u-playlist"), (.pdf, "com.adobe.pdf"), (.zip, "public.zip-archive"),
    ] as [(UTType, String)])
    func constantsHaveApplesIdentifiers(type: UTType, identifier: String) throws {
        #expect(type.identifier == identifier)
        #expect(type.description == identifier)
        #expect(type.isDeclared && !type.isDynamic)
        #expect(try #require(UTType(identifier)) == type)
    }

    @Test func aMovieTypesWholeTree() {
        #expect(UTType.mpeg4Movie.supertypes == [.movie, .audiovisualContent, .data, .content, .item])
        #expect(UTType.quickTimeMovie.supertypes == [.movie, .audiovisualContent, .data, .content, .item])
        #expect(UTType.video.supertypes == [.movie, .audiovisualContent, .data, .content, .item])
        #expect(UTType.audio.supertypes == [.audiovisualContent, .data, .content, .item])
        #expect(UTType.item.supertypes.isEmpty && UTType.content.supertypes.isEmpty)
        #expect(UTType.data.supertypes == [.item])
        #expect(UTType.folder.supertypes == [.directory, .item])
        #expect(UTType.fileURL.supertypes == [.url, .data, .item])
    }

    @Test func conformanceRunsUpTheTreeOnly() {
        #expect(UTType.quickTimeMovie.conforms(to: .movie))
        #expect(UTType.quickTimeMovie.conforms(to: .quickTimeMovie), "a type conforms to itself")
        #expect(UTType.quickTimeMovie.conforms(to: .data) && UTType.quickTimeMovie.conforms(to: .content))
        #expect(!UTType.movie.conforms(to: .quickTimeMovie))
        #expect(!UTType.mp3.conforms(to: .movie) && UTType.mp3.conforms(to: .audiovisualContent))
        #expect(!UTType.quickTimeMovie.conforms(to: .video), "a movie may hold sound, so it is not video")
        #expect(UTType.mpeg2Video.conforms(to: .video))
        #expect(UTType.mpeg4Audio.conforms(to: .audio) && UTType.mpeg4Audio.conforms(to: .mpeg))
        #expect(UTType.appleProtectedMPEG4Video.conforms(to: .mpeg4Movie))
        #expect(UTType.json.conforms(to: .text) && !UTType.json.conforms(to: .plainText))
        #expect(UTType.m3uPlaylist.conforms(to: .text) && UTType.m3uPlaylist.conforms(to: .playlist))
        #expect(UTType.heic.conforms(to: .image) && !UTType.heic.conforms(to: .heif), "siblings under heif-standard")
        #expect(UTType.pdf.conforms(to: .compositeContent) && UTType.pdf.conforms(to: .data))
        #expect(UTType.folder.conforms(to: .directory) && !UTType.folder.conforms(to: .data))
        #expect(UTType.fileURL.conforms(to: .url))
    }

    @Test func supertypeAndSubtypeExcludeTheTypeItself() {
        #expect(UTType.movie.isSupertype(of: .mpeg4Movie) && UTType.mpeg4Movie.isSubtype(of: .movie))
        #expect(!UTType.movie.isSupertype(of: .movie) && !UTType.movie.isSubtype(of: .movie))
        #expect(!UTType.mpeg4Movie.isSupertype(of: .movie) && !UTType.movie.isSubtype(of: .mpeg4Movie))
        #expect(UTType.item.isSupertype(of: .m3uPlaylist))
    }

    @Test func avFoundationsFileTypesAreDeclared() throws {
        // Every AVFileType raw value Avocet defines, with the extension and MIME type Apple's system gives.
        let expected: [(String, String, String?, UTType)] = [
            ("com.apple.quicktime-movie", "mov", "video/quicktime", .movie),
            ("public.mpeg-4", "mp4", "video/mp4", .movie),
            ("com.apple.m4v-video", "m4v", "video/x-m4v", .mpeg4Movie),
            ("com.apple.m4a-audio", "m4a", "audio/x-m4a", .mpeg4Audio),
            ("com.apple.coreaudio-format", "caf", nil, .audio),
            ("com.microsoft.waveform-audio", "wav", "audio/vnd.wave", .audio),
            ("public.aiff-audio", "aiff", "audio/aiff", .audio),
            ("public.aifc-audio", "aifc", "audio/aiff", .aiff),
            ("org.3gpp.adaptive-multi-rate-audio", "amr", "audio/amr", .audio),
            ("public.mp3", "mp3", "audio/mpeg", .audio),
            ("public.au-audio", "au", "audio/basic", .audio),
            ("public.ac3-audio", "ac3", "audio/ac3", .audio),
            ("public.enhanced-ac3-audio", "eac3", "audio/eac3", .audio),
            ("public.3gpp", "3gp", "video/3gpp", .movie),
            ("public.3gpp2", "3g2", "video/3gpp2", .movie),
            ("public.jpeg", "jpeg", "image/jpeg", .image),
            ("public.heic", "heic", "image/heic", .image),
            ("public.heif", "heif", "image/heif", .image),
            ("public.tiff", "tiff", "image/tiff", .image),
            ("org.matroska.mkv", "mkv", "video/x-matroska", .movie),
            ("org.webmproject.webm", "webm", "video/webm", .movie),
            ("org.xiph.flac", "flac", "audio/flac", .audio),
            ("org.xiph.ogg", "ogg", "audio/ogg", .audio),
        ]
        for (identifier, pathExtension, mimeType, supertype) in expected {
            let type = try #require(UTType(identifier), "\(identifier)")
            #expect(type.identifier == identifier && type.isDeclared && !type.isDynamic)
            #expect(type.preferredFilenameExtension == pathExtension, "\(identifier)")
            #expect(type.preferredMIMEType == mimeType, "\(identifier)")
            #expect(type.conforms(to: supertype), "\(identifier) conforms to \(supertype)")
            #expect(type.localizedDescription?.isEmpty == false)
        }
    }

    @Test func publicMeansThePublicDomain() {
        #expect(UTType.mpeg4Movie.isPublic && UTType.movie.isPublic)
        #expect(!UTType.quickTimeMovie.isPublic && !UTType.wav.isPublic)
        #expect(UTType("org.matroska.mkv")?.isPublic == false)
    }

    @Test func descriptionsAndTheAbsentFacts() {
        #expect(UTType.mpeg4Movie.localizedDescription == "MPEG-4 movie")
        #expect(UTType.quickTimeMovie.localizedDescription == "QuickTime movie")
        #expect(UTType.png.localizedDescription == "PNG image")
        #expect(UTType.mpeg4Movie.version == nil && UTType.mpeg4Movie.referenceURL == nil)
        #expect(UTType.mpeg4Movie.debugDescription == "UTType(public.mpeg-4) (not dynamic, declared)")
    }
}
