import AVFoundation
import Testing
import UniformTypeIdentifiers

/// AVFoundation's file types through UniformTypeIdentifiers, the way Apple code converts them (by the
/// raw value: neither framework offers a bridge), with both modules imported in one file.
@Suite("AVFileType and UTType")
struct FileTypeUTTypeTests {
    @Test func everyTypeAvocetReadsIsADeclaredAudiovisualType() throws {
        for fileType in AVURLAsset.audiovisualTypes() {
            let type = try #require(UTType(fileType.rawValue), "\(fileType.rawValue)")
            #expect(type.isDeclared && type.conforms(to: .audiovisualContent), "\(fileType.rawValue)")
            #expect(type.preferredFilenameExtension != nil, "\(fileType.rawValue)")
            #expect(AVFileType(rawValue: type.identifier) == fileType)
        }
    }

    @Test func theImageFileTypesAreImages() throws {
        for fileType in [AVFileType.jpg, .heic, .heif, .tif, .dng, .avci] {
            #expect(try #require(UTType(fileType.rawValue)).conforms(to: .image), "\(fileType.rawValue)")
        }
    }

    /// The caption file types are declared, with their extensions.
    @Test func theCaptionFileTypesAreDeclared() throws {
        #expect(try #require(UTType(AVFileType.SCC.rawValue)).preferredFilenameExtension == "scc")
        let itt = try #require(UTType(AVFileType.appleiTT.rawValue))
        #expect(itt.preferredFilenameExtension == "itt" && itt.conforms(to: .xml))
        #expect(UTType(filenameExtension: "dng")?.identifier == AVFileType.dng.rawValue)
    }

    @Test func applesIdiomsCompile() throws {
        let mp4 = try #require(UTType(AVFileType.mp4.rawValue))
        #expect(mp4 == .mpeg4Movie)
        let url = URL(fileURLWithPath: "/tmp").appendingPathComponent("clip").appendingPathExtension(for: mp4)
        #expect(url.lastPathComponent == "clip.mp4")
        let mov = try #require(UTType(filenameExtension: "mov"))
        #expect(mov.conforms(to: .movie) && AVFileType(mov.identifier) == .mov)
        #expect(UTType(AVFileType.m4a.rawValue)?.conforms(to: .audio) == true)
    }
}
