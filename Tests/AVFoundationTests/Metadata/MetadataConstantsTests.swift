import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// The constants' table (Tools/Constants/constants.tsv, from which the Swift constants are
/// generated) agrees with itself and with the identifier rule: every identifier of a key space Avocet
/// knows is its key space's prefix and its percent-encoded key, and every ID3 key has its identifier.
@Suite("Metadata constants")
struct MetadataConstantsTests {
    static func rows() throws -> [(kind: String, name: String, raw: String)] {
        let table = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("Tools/Constants/constants.tsv")
        return try String(contentsOf: table, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return parts.count == 5 ? (parts[0], parts[1], parts[2]) : nil
        }
    }

    @Test func identifiersFollowTheRule() throws {
        let rows = try Self.rows()
        let identifiers = rows.filter { $0.kind == "identifier" }
        #expect(identifiers.count >= 294, "every identifier of Apple's SDK 26.2")
        for row in identifiers {
            let identifier = AVMetadataIdentifier(rawValue: row.raw)
            guard let space = AVMetadataItem.keySpace(forIdentifier: identifier), let key = AVMetadataItem.key(forIdentifier: identifier) else {
                Issue.record("\(row.name): \(row.raw) names no key space Avocet knows")
                continue
            }
            #expect(AVMetadataItem.identifier(forKey: key, keySpace: space) == identifier, "\(row.name): \(row.raw)")
        }
        let id3Keys = rows.filter { $0.kind == "key" && $0.name.hasPrefix("id3MetadataKey") }
        let id3Identifiers = Set(identifiers.filter { $0.raw.hasPrefix("id3/") }.map(\.raw))
        for key in id3Keys { #expect(id3Identifiers.contains("id3/" + key.raw), "\(key.name) has no identifier") }
        // The names the issue found missing.
        #expect(AVMetadataIdentifier.id3MetadataBeatsPerMinute.rawValue == "id3/TBPM")
        #expect(AVMetadataKey.id3MetadataKeyBeatsPerMinute.rawValue == "TBPM")
    }
}
