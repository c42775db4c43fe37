import Foundation
import Testing
import UniformTypeIdentifiers

/// Foundation's URL additions: names completed with a type's preferred filename extension.
@Suite("URL and UTType")
struct URLUTTypeTests {
    let base = URL(fileURLWithPath: "/tmp/avocet-uti", isDirectory: true)

    @Test func theBriefsExample() {
        let url = base.appendingPathComponent("clip").appendingPathExtension(for: .mpeg4Movie)
        #expect(url.lastPathComponent == "clip.mp4" && url.path == "/tmp/avocet-uti/clip.mp4")
        #expect(base.appendingPathComponent("clip").appendingPathExtension(for: .quickTimeMovie).lastPathComponent == "clip.mov")
    }

    @Test func anExtensionOfTheTypeIsKept() {
        #expect(base.appendingPathComponent("clip.mp4").appendingPathExtension(for: .mpeg4Movie).lastPathComponent == "clip.mp4")
        #expect(base.appendingPathComponent("clip.MOV").appendingPathExtension(for: .movie).lastPathComponent == "clip.MOV")
        #expect(base.appendingPathComponent("clip.m4v").appendingPathExtension(for: .mpeg4Movie).lastPathComponent == "clip.m4v",
                "m4v conforms to MPEG-4")
        #expect(base.appendingPathComponent("clip.mov").appendingPathExtension(for: .mpeg4Movie).lastPathComponent == "clip.mov.mp4")
        #expect(base.appendingPathComponent("clip").appendingPathExtension(for: .movie).lastPathComponent == "clip",
                "movie has no extension")
    }

    @Test func pathComponentsConformingToATypeAsApplesDocumentationHasThem() {
        #expect(base.appendingPathComponent("puppy.jpg", conformingTo: .image).lastPathComponent == "puppy.jpg")
        #expect(base.appendingPathComponent("puppy.jpg", conformingTo: .plainText).lastPathComponent == "puppy.jpg.txt")
        #expect(base.appendingPathComponent("readme", conformingTo: .plainText).lastPathComponent == "readme.txt")
        #expect(base.appendingPathComponent("recording", conformingTo: .mpeg4Audio).lastPathComponent == "recording.m4a")
        #expect(base.appendingPathComponent(".hidden", conformingTo: .json).lastPathComponent == ".hidden.json")
        #expect(!base.appendingPathComponent("clip", conformingTo: .mpeg4Movie).hasDirectoryPath)
        #expect(base.appendingPathComponent("Clips", conformingTo: .folder).hasDirectoryPath)
    }

    @Test func dynamicTypesKeepTheirOwnExtension() throws {
        let subtitles = try #require(UTType(filenameExtension: "srt"))
        #expect(base.appendingPathComponent("talk", conformingTo: subtitles).lastPathComponent == "talk.srt")
        #expect(base.appendingPathComponent("talk.srt", conformingTo: subtitles).lastPathComponent == "talk.srt")
    }

    @Test func theMutatingForms() {
        var url = base
        url.appendPathComponent("clip", conformingTo: .quickTimeMovie)
        #expect(url.lastPathComponent == "clip.mov")
        var bare = base.appendingPathComponent("song")
        bare.appendPathExtension(for: .mp3)
        #expect(bare.lastPathComponent == "song.mp3")
        bare.appendPathExtension(for: .audio)
        #expect(bare.lastPathComponent == "song.mp3")
    }
}
