import AVFoundation
import Foundation
import Testing

@Suite("AVMetadataItem")
struct MetadataItemTests {
    private func item(_ identifier: AVMetadataIdentifier, _ value: (any NSCopying & NSObjectProtocol)?, locale: String? = nil) -> AVMetadataItem {
        let item = AVMutableMetadataItem()
        item.identifier = identifier
        item.value = value
        item.locale = locale.map { Locale(identifier: $0) }
        return item
    }

    @Test func identifiersHaveApplesRawValues() {
        #expect(AVMetadataIdentifier.commonIdentifierTitle.rawValue == "common/title")
        #expect(AVMetadataIdentifier.commonIdentifierAssetIdentifier.rawValue == "common/identifier")
        #expect(AVMetadataIdentifier.iTunesMetadataSongName.rawValue == "itsk/%A9nam")
        #expect(AVMetadataIdentifier.iTunesMetadataCoverArt.rawValue == "itsk/covr")
        #expect(AVMetadataIdentifier.id3MetadataTitleDescription.rawValue == "id3/TIT2")
        #expect(AVMetadataIdentifier.quickTimeMetadataTitle.rawValue == "mdta/com.apple.quicktime.title")
        #expect(AVMetadataIdentifier.quickTimeUserDataFullName.rawValue == "udta/%A9nam")
        #expect(AVMetadataKey.commonKeyTitle.rawValue == "title" && AVMetadataKey.iTunesMetadataKeySongName.rawValue == "@nam")
        #expect(AVMetadataKeySpace.id3.rawValue == "org.id3" && AVMetadataFormat.iTunesMetadata.rawValue == "com.apple.itunes")
        #expect(AVMetadataCommonIdentifierTitle == .commonIdentifierTitle, "the Swift 3 global name of seed 004")
    }

    @Test func identifierKeyAndKeySpaceRoundTrip() {
        let id = AVMetadataItem.identifier(forKey: "©nam", keySpace: .iTunes)
        #expect(id == .iTunesMetadataSongName)
        #expect(AVMetadataItem.keySpace(forIdentifier: .iTunesMetadataSongName) == .iTunes)
        #expect((AVMetadataItem.key(forIdentifier: .iTunesMetadataSongName) as? NSNumber)?.uint32Value == 0xA96E_616D)
        #expect(AVMetadataItem.key(forIdentifier: .id3MetadataTitleDescription) as? NSString == "TIT2")
        #expect(AVMetadataItem.keySpace(forIdentifier: .commonIdentifierArtist) == .common)
        #expect(AVMetadataItem.identifier(forKey: NSNumber(value: Int32(bitPattern: 0xA96E_616D)), keySpace: .iTunes) == .iTunesMetadataSongName)
        #expect(AVMetadataItem.identifier(forKey: "a/b c", keySpace: .quickTimeMetadata)?.rawValue == "mdta/a%2Fb%20c")
        #expect(AVMetadataItem.keySpace(forIdentifier: AVMetadataIdentifier(rawValue: "nonsense")) == nil)
    }

    @Test func mutableItemKeepsIdentifierKeyAndKeySpaceTogether() {
        let item = AVMutableMetadataItem()
        item.identifier = .id3MetadataLeadPerformer
        #expect(item.keySpace == .id3 && item.key as? NSString == "TPE1")
        item.keySpace = .quickTimeMetadata
        item.key = "com.apple.quicktime.artist" as NSString
        #expect(item.identifier == .quickTimeMetadataArtist)
        item.identifier = nil
        #expect(item.key == nil && item.keySpace == nil)
        let copy = (item.mutableCopy() as? AVMutableMetadataItem)
        copy?.value = "x" as NSString
        #expect(item.value == nil, "copies are independent")
    }

    /// The date forms metadata holds, each against Foundation's own reading of the same instant; text
    /// that is not a whole, valid date gives none.
    @Test(arguments: [
        ("2024-05-01T12:30:00Z", "2024-05-01T12:30:00Z"),
        ("2024-05-01T12:30:00.250Z", "2024-05-01T12:30:00.250Z"),
        ("2024-05-01T12:30:00+02:00", "2024-05-01T10:30:00Z"),
        ("2024-05-01T12:30:00-0530", "2024-05-01T18:00:00Z"),
        ("2024-05-01T12:30:00", "2024-05-01T12:30:00Z"),
        ("2024-05-01T12:30", "2024-05-01T12:30:00Z"),
        ("2024-05-01 12:30:00", "2024-05-01T12:30:00Z"),
        (" 2024-05-01 ", "2024-05-01T00:00:00Z"),
        ("2024-2-29", "2024-02-29T00:00:00Z"),
        ("2024-05", "2024-05-01T00:00:00Z"),
        ("1969", "1969-01-01T00:00:00Z"),
        ("1600-03-01", "1600-03-01T00:00:00Z"),
        ("2023-02-29", nil), ("2024-13-01", nil), ("2024-05-01T24:00:00Z", nil), ("2024-05-01T12:30:00Q", nil),
        ("20240501", nil), ("May 1, 2024", nil), ("", nil), ("2024-", nil), ("Sunny Day", nil), ("99999", nil),
    ] as [(String, String?)])
    func datesFromText(text: String, instant: String?) async throws {
        let parsed = try await item(.commonIdentifierCreationDate, text as NSString).load(.dateValue)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let expected = instant.flatMap { formatter.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) }
        #expect(instant == nil || expected != nil, "the expectation itself parses")
        #expect(parsed == expected, "\(text): \(String(describing: parsed))")
    }

    @Test func valueCoercions() async throws {
        let text = item(.commonIdentifierTitle, "3/12" as NSString)
        #expect(try await text.load(.stringValue) == "3/12")
        #expect(try await text.load(.numberValue) == 3)
        #expect(try await text.load(.dataValue) == nil)
        let number = item(.iTunesMetadataBeatsPerMin, NSNumber(value: 120))
        #expect(try await number.load(.stringValue) == "120")
        #expect(try await number.load(.numberValue) == 120)
        let date = item(.commonIdentifierCreationDate, "2024-05-01" as NSString)
        let day = try #require(try await date.load(.dateValue))
        #expect(day == ISO8601DateFormatter().date(from: "2024-05-01T00:00:00Z"))
        let stamp = item(.commonIdentifierCreationDate, "2024-05-01T12:30:00.000000Z" as NSString)
        #expect(try await stamp.load(.dateValue) == ISO8601DateFormatter().date(from: "2024-05-01T12:30:00Z"))
        let bytes = item(.commonIdentifierArtwork, Data([1, 2, 3]) as NSData)
        #expect(try await bytes.load(.dataValue) == Data([1, 2, 3]))
        #expect(try await bytes.load(.stringValue) == nil)
        let (value, extra) = try await bytes.load(.value, .extraAttributes)
        #expect((value as? NSData)?.length == 3 && extra == nil)
        guard case .loaded = bytes.status(of: .dataValue) else { Issue.record("item values are always loaded"); return }
    }

    @Test func filters() {
        let en = item(.commonIdentifierTitle, "Hello" as NSString, locale: "en")
        let fr = item(.commonIdentifierTitle, "Bonjour" as NSString, locale: "fr_CA")
        let none = item(.commonIdentifierArtist, "Someone" as NSString)
        let id3 = item(.id3MetadataTitleDescription, "Hi" as NSString)
        let all = [en, fr, none, id3]
        #expect(AVMetadataItem.metadataItems(from: all, filteredByIdentifier: .commonIdentifierTitle) == [en, fr])
        #expect(AVMetadataItem.metadataItems(from: all, withKey: "TIT2", keySpace: .id3) == [id3])
        #expect(AVMetadataItem.metadataItems(from: all, withKey: nil, keySpace: .common) == [en, fr, none])
        #expect(AVMetadataItem.metadataItems(from: all, withKey: "title", keySpace: nil) == [en, fr])
        #expect(AVMetadataItem.metadataItems(from: all, filteredAndSortedAccordingToPreferredLanguages: ["fr", "en"]) == [fr, en])
        #expect(AVMetadataItem.metadataItems(from: all, filteredAndSortedAccordingToPreferredLanguages: ["de"]).isEmpty)
        #expect(AVMetadataItem.metadataItems(from: all, with: Locale(identifier: "fr")) == [fr])
    }

    @Test func timedMetadataGroup() {
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 2, timescale: 1))
        let group = AVTimedMetadataGroup(items: [item(.commonIdentifierTitle, "Act" as NSString)], timeRange: range)
        #expect(group.timeRange == range && group.items.count == 1)
        #expect(group.classifyingLabel == nil && group.uniqueID == nil)
        let changed = try? #require(group.mutableCopy() as? AVMutableTimedMetadataGroup)
        changed?.items.append(item(.commonIdentifierArtist, "Cast" as NSString))
        changed?.timeRange = CMTimeRange(start: .zero, duration: range.duration)
        #expect(changed?.items.count == 2 && changed?.timeRange.start == .zero)
        #expect(group.items.count == 1 && group.timeRange == range, "the copy is its own")
        let frozen = changed?.copy() as? AVTimedMetadataGroup
        #expect(frozen.map { !($0 is AVMutableTimedMetadataGroup) && $0.items.count == 2 } == true)
        let base: AVMetadataGroup = group
        #expect(base.items.count == 1)
    }
}
