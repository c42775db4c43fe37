@testable import AVFoundation
import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// Tags FFmpeg reads under names of its own ("director", "sort_name") come back as the items of their
/// atoms, with the identifiers of Apple's constants where Apple has one.
@Suite("Metadata tag mapping")
struct TagMappingTests {
    /// tagged.m4a with its `©nam`, `©ART`, `©alb` and `©gen` atoms renamed, in place, to `atoms`.
    static func retagged(_ atoms: [String]) throws -> URL {
        try Fixtures.damagedCopy(of: "tagged.m4a") { bytes in
            for (old, new) in zip(["©nam", "©ART", "©alb", "©gen"], atoms) {
                let from = Data(old.data(using: .isoLatin1)!), to = Data(new.data(using: .isoLatin1)!)
                // The atom's type, then its `data` box: [type][size]["data"].
                var found = false
                var start = bytes.startIndex
                while let range = bytes.range(of: from, in: start..<bytes.endIndex) {
                    start = range.upperBound
                    guard range.upperBound + 8 <= bytes.endIndex,
                          bytes[(range.upperBound + 4)..<(range.upperBound + 8)] == Data("data".utf8) else { continue }
                    bytes.replaceSubrange(range, with: to)
                    found = true
                }
                try #require(found, "tagged.m4a has no \(old) atom")
            }
        }
    }

    @Test("iTunes atoms FFmpeg names director, performers, subtitle and sort_name keep their keys")
    func iTunesAtomsKeepTheirKeys() async throws {
        let url = try Self.retagged(["©dir", "©prf", "©st3", "sonm"])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let items = try await AVURLAsset(url: url).loadMetadata(for: .iTunesMetadata)
        func value(_ identifier: AVMetadataIdentifier) async throws -> String? {
            try await AVMetadataItem.metadataItems(from: items, filteredByIdentifier: identifier).first?.load(.stringValue)
        }
        #expect(try await value(.iTunesMetadataDirector) == "Shore Song")
        #expect(try await value(.iTunesMetadataPerformer) == "The Avocets")
        #expect(try await value(.iTunesMetadataTrackSubTitle) == "Tidal Flats")
        #expect(try await value(AVMetadataIdentifier(rawValue: "itsk/sonm")) == "Field Recording", "Apple has no constant for the sort name")
        let director = AVMetadataItem.metadataItems(from: items, withKey: AVMetadataKey.iTunesMetadataKeyDirector, keySpace: .iTunes)
        #expect((director.first?.key as? NSNumber)?.uint32Value == 0xA964_6972, "the key is the `©dir` atom's code")
        let names = items.compactMap { $0.identifier?.rawValue }
        #expect(!names.contains { $0.hasSuffix("/director") || $0.hasSuffix("/sort_name") }, "\(names)")
    }

    @Test("QuickTime user data: FFmpeg's director, producer, URL and host_computer are their © atoms")
    func quickTimeUserDataNames() {
        let tags = [Tag(key: "director", value: "D"), Tag(key: "producer", value: "P"), Tag(key: "URL", value: "https://example.com"),
                    Tag(key: "host_computer", value: "H"), Tag(key: "title", value: "T")]
        let items = MetadataMapping.items(tags, space: .quickTimeUserData)
        #expect(items.map(\.identifier) == [.quickTimeUserDataDirector, .quickTimeUserDataProducer, .quickTimeUserDataURLLink,
                                             .quickTimeUserDataHostComputer, .quickTimeUserDataFullName])
        #expect(items.last?.commonKey == .commonKeyTitle)
    }
}
