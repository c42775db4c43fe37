import Testing
import UniformTypeIdentifiers

/// Dynamic types: the identifiers macOS makes for tags no declared type claims (values measured on
/// macOS), what they say, and decoding them back.
@Suite("Dynamic UTTypes")
struct UTTypeDynamicTests {
    @Test(arguments: [
        ("srt", "dyn.ah62d4rv4ge81g6xy"), ("conf", "dyn.ah62d4rv4ge80g55sq2"), ("s16", "dyn.ah62d4rv4ge81gqm0"),
        ("gpx", "dyn.ah62d4rv4ge80s6d2"), ("livp", "dyn.ah62d4rv4ge8024p0sa"), ("mcpb", "dyn.ah62d4rv4ge80425uqk"),
        ("rmd", "dyn.ah62d4rv4ge81e5pe"), ("sql", "dyn.ah62d4rv4ge81g6pq"), ("SRT", "dyn.ah62d4rv4ge81g6xy"),
    ])
    func unknownExtensionsGetMacOSsDynamicIdentifiers(pathExtension: String, identifier: String) throws {
        let type = try #require(UTType(filenameExtension: pathExtension))
        #expect(type.identifier == identifier)
        #expect(type.isDynamic && !type.isDeclared && !type.isPublic)
        #expect(type.supertypes == [.data, .item])
        #expect(type.conforms(to: .data) && !type.conforms(to: .content))
        #expect(type.tags == [.filenameExtension: [pathExtension.lowercased()]])
        #expect(type.preferredFilenameExtension == pathExtension.lowercased() && type.preferredMIMEType == nil)
        #expect(type.localizedDescription == nil)
    }

    @Test func aDynamicIdentifierDecodesToTheSameType() throws {
        let made = try #require(UTType(filenameExtension: "srt"))
        let decoded = try #require(UTType("dyn.ah62d4rv4ge81g6xy"))
        #expect(decoded == made)
        #expect(decoded.isDynamic && decoded.tags == made.tags && decoded.supertypes == made.supertypes)
        #expect(decoded.debugDescription == "UTType(dyn.ah62d4rv4ge81g6xy) (dynamic, not declared)")
    }

    @Test func theSupertypeIsPartOfTheIdentifier() throws {
        let asData = try #require(UTType(filenameExtension: "xyz"))
        let asMovie = try #require(UTType(filenameExtension: "xyz", conformingTo: .movie))
        let bare = try #require(UTType(tag: "xyz", tagClass: .filenameExtension, conformingTo: nil))
        #expect(asData != asMovie && asData != bare && asMovie != bare)
        #expect(asMovie.conforms(to: .movie) && asMovie.supertypes == UTType.movie.supertypes.union([.movie]))
        #expect(bare.supertypes.isEmpty)
        let audio = try #require(UTType(filenameExtension: "mov", conformingTo: .audio))
        #expect(audio.identifier == "dyn.ah62d4vb4ge804550", "public.audio abbreviated to D: ?0=D:1=mov")
        for type in [asData, asMovie, bare, audio] {
            let decoded = try #require(UTType(type.identifier))
            #expect(decoded == type && decoded.supertypes == type.supertypes && decoded.tags == type.tags)
        }
    }

    @Test func unknownMIMETypesAreDynamicToo() throws {
        let type = try #require(UTType(mimeType: "Video/X-Avocet-Test"))
        #expect(type.isDynamic && type.preferredMIMEType == "video/x-avocet-test" && type.preferredFilenameExtension == nil)
        #expect(type.tags == [.mimeType: ["video/x-avocet-test"]])
        #expect(UTType(type.identifier) == type)
    }

    @Test func tagsOfOtherClassesAndAwkwardCharactersSurvive() throws {
        let scheme = UTTagClass(rawValue: "public.url-scheme")
        let type = try #require(UTType(tag: "avocet", tagClass: scheme, conformingTo: .url))
        #expect(type.isDynamic && type.tags == [scheme: ["avocet"]] && type.conforms(to: .url))
        let odd = try #require(UTType(filenameExtension: "a:b=c\\d"))
        #expect(try #require(UTType(odd.identifier)).tags == [.filenameExtension: ["a:b=c\\d"]])
    }

    @Test func invalidInputsGiveNil() {
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType(mimeType: "") == nil)
        #expect(UTType("dyn.a") == nil)
        #expect(UTType("dyn.aio!") == nil, "not the dynamic alphabet")
        #expect(UTType("dyn.bh62d4rv4ge81g6xy") == nil, "an unknown version")
    }
}
