import Foundation
import Testing
import UniformTypeIdentifiers

/// Encoding types as their identifiers and decoding them back.
@Suite("UTType Codable")
struct UTTypeCodableTests {
    @Test func typesEncodeAsTheirIdentifiers() throws {
        let json = try JSONEncoder().encode([UTType.mpeg4Movie, .quickTimeMovie])
        #expect(String(decoding: json, as: UTF8.self) == #"["public.mpeg-4","com.apple.quicktime-movie"]"#)
    }

    @Test func declaredDynamicAndOwnTypesRoundTrip() throws {
        let dynamic = try #require(UTType(filenameExtension: "srt"))
        let own = UTType(exportedAs: "com.example.avocet-project", conformingTo: .json)
        let types: [UTType] = [.mpeg4Movie, .m3uPlaylist, dynamic, own]
        let decoded = try JSONDecoder().decode([UTType].self, from: JSONEncoder().encode(types))
        #expect(decoded == types)
        #expect(decoded[0].isDeclared && decoded[0].conforms(to: .movie))
        #expect(decoded[2].isDynamic && decoded[2].tags == dynamic.tags && decoded[2].conforms(to: .data))
        #expect(!decoded[3].isDeclared && decoded[3].identifier == "com.example.avocet-project")
        #expect(decoded[3].supertypes.isEmpty, "a parent given in code is not part of the encoding")
    }

    @Test func anEmptyIdentifierDoesNotDecode() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UTType].self, from: Data(#"[""]"#.utf8)) }
    }

    @Test func typesOwnedInCodeConformToTheirParent() throws {
        let own = UTType(exportedAs: "com.example.avocet-project", conformingTo: .json)
        #expect(own.identifier == "com.example.avocet-project" && !own.isDeclared && !own.isDynamic && !own.isPublic)
        #expect(own.conforms(to: .json) && own.conforms(to: .text) && own.supertypes.contains(.item))
        #expect(own.tags.isEmpty && own.localizedDescription == nil)
        #expect(UTType("com.example.avocet-project") == nil, "no Info.plist declares it")
        let child = UTType(importedAs: "com.example.avocet-project.v2", conformingTo: own)
        #expect(child.conforms(to: own) && child.conforms(to: .text))
        #expect(UTType(importedAs: "public.mpeg-4", conformingTo: .text) == .mpeg4Movie)
        #expect(UTType(exportedAs: "public.mpeg-4").isDeclared && !UTType(exportedAs: "public.mpeg-4").conforms(to: .text))
        #expect(UTType(exportedAs: "com.example.orphan").supertypes.isEmpty)
    }
}
