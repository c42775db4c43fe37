import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// Metadata items given to an export session (or a writer: both use the same tags) land in the output
/// container's own key space and read back as equal items: iTunes in MP4 and M4A, QuickTime user data
/// in MOV, Matroska tags in Matroska; an item of another key space goes in by its common key.
@Suite("Metadata written to files")
struct MetadataWritingTests {
    static func item(_ identifier: AVMetadataIdentifier, _ value: String) -> AVMetadataItem {
        let item = AVMutableMetadataItem()
        item.identifier = identifier
        item.value = value as NSString
        return item
    }

    /// Exports av.mp4 by stream copy with `items` as `fileType`, and reads the output's metadata back.
    static func roundTrip(_ items: [AVMetadataItem], as fileType: AVFileType, name: String,
                          filter: AVMetadataItemFilter? = nil) async throws -> [AVMetadataIdentifier: String] {
        let (output, _) = try await ExportTests.export(AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))),
                                                       preset: AVAssetExportPresetPassthrough, as: fileType, name: name) {
            $0.metadata = items
            $0.metadataItemFilter = filter
        }
        var read: [AVMetadataIdentifier: String] = [:]
        for item in try await AVURLAsset(url: output).load(.metadata) {
            guard let identifier = item.identifier, let value = try await item.load(.stringValue) else { continue }
            read[identifier] = value
        }
        return read
    }

    @Test func iTunesItemsInMP4() async throws {
        let read = try await Self.roundTrip([
            Self.item(.iTunesMetadataSongName, "Shore Song"),
            Self.item(.iTunesMetadataArtist, "The Avocets"),
            Self.item(.iTunesMetadataAlbumArtist, "Gulls"),
            Self.item(.iTunesMetadataUserGenre, "Field Recording"),
            Self.item(.commonIdentifierCopyrights, "2026 The Avocets"),   // another key space: by its common key
        ], as: .mp4, name: "tags.mp4")
        #expect(read[.iTunesMetadataSongName] == "Shore Song")
        #expect(read[.iTunesMetadataArtist] == "The Avocets")
        #expect(read[.iTunesMetadataAlbumArtist] == "Gulls")
        #expect(read[.iTunesMetadataUserGenre] == "Field Recording")
        #expect(read[.iTunesMetadataCopyright] == "2026 The Avocets")
    }

    /// Items FFmpeg's muxers would drop (or, for a MOV's author, read back as the artist) are not
    /// written under another name.
    @Test func whatAMuxerDropsIsNotMisfiled() async throws {
        let mov = try await Self.roundTrip([Self.item(.quickTimeUserDataAuthor, "Someone"), Self.item(.quickTimeUserDataFullName, "Pier")],
                                           as: .mov, name: "author.mov")
        #expect(mov[.quickTimeUserDataFullName] == "Pier")
        #expect(mov[.quickTimeUserDataArtist] == nil && mov[.quickTimeUserDataAuthor] == nil, "\(mov)")
    }

    /// An item whose value a handler gives is loaded before the export writes it.
    @Test func aHandlerGivenValueIsWritten() async throws {
        let template = Self.item(.iTunesMetadataSongName, "ignored")
        let lazy = AVMetadataItem(propertiesOf: template) { $0.respond(value: "From the handler" as NSString) }
        let read = try await Self.roundTrip([lazy], as: .mp4, name: "lazy.mp4")
        #expect(read[.iTunesMetadataSongName] == "From the handler")
    }

    @Test func quickTimeUserDataInMOV() async throws {
        let read = try await Self.roundTrip([
            Self.item(.quickTimeUserDataFullName, "Pier at Dawn"),
            Self.item(.quickTimeMetadataMake, "Apple"),                     // QuickTime metadata: by its common key
            Self.item(.quickTimeUserDataLocationISO6709, "+48.8577+002.2950/"),
        ], as: .mov, name: "tags.mov")
        #expect(read[.quickTimeUserDataFullName] == "Pier at Dawn")
        #expect(read[.quickTimeUserDataMake] == "Apple")
        #expect(read[.quickTimeUserDataLocationISO6709] == "+48.8577+002.2950/")
    }

    /// Matroska's free-form tags that place or identify map onto their common keys, so that a filter
    /// for sharing drops them too.
    @Test func sharingMatroskaDropsThePlace() async throws {
        let items = [Self.item(AVMetadataIdentifier(rawValue: "mkv/TITLE"), "Pier"), Self.item(AVMetadataIdentifier(rawValue: "mkv/LOCATION"), "+48+002/"),
                     Self.item(AVMetadataIdentifier(rawValue: "mkv/MAKE"), "Apple"), Self.item(AVMetadataIdentifier(rawValue: "mkv/MODEL"), "iPhone")]
        let kept = try await Self.roundTrip(items, as: .mkv, name: "kept.mkv")
        #expect(kept[AVMetadataIdentifier(rawValue: "mkv/LOCATION")] == "+48+002/" && kept[AVMetadataIdentifier(rawValue: "mkv/MAKE")] == "Apple")
        let shared = try await Self.roundTrip(items, as: .mkv, name: "shared.mkv", filter: .forSharing())
        #expect(shared[AVMetadataIdentifier(rawValue: "mkv/TITLE")] == "Pier")
        #expect(shared[AVMetadataIdentifier(rawValue: "mkv/LOCATION")] == nil && shared[AVMetadataIdentifier(rawValue: "mkv/MAKE")] == nil
                && shared[AVMetadataIdentifier(rawValue: "mkv/MODEL")] == nil, "\(shared)")
    }

    @Test func matroskaTagsInMKV() async throws {
        let mood = AVMutableMetadataItem()
        mood.keySpace = .matroska
        mood.key = "MOOD" as NSString
        mood.value = "calm" as NSString
        let read = try await Self.roundTrip([
            Self.item(AVMetadataIdentifier(rawValue: "mkv/TITLE"), "Two Tongues"),
            Self.item(.commonIdentifierArtist, "The Avocets"),
            mood,
        ], as: .mkv, name: "tags.mkv")
        #expect(read[AVMetadataIdentifier(rawValue: "mkv/TITLE")] == "Two Tongues")
        #expect(read[AVMetadataIdentifier(rawValue: "mkv/ARTIST")] == "The Avocets")
        #expect(read[AVMetadataIdentifier(rawValue: "mkv/MOOD")] == "calm", "Matroska tags are free form")
    }

    /// A phone movie with a place (Fixtures/phone-location.mov: QuickTime metadata as a phone writes
    /// it): exported as it is, its place, make and model go along; filtered for sharing, they do not,
    /// and its title does. (Its software tag never survives: FFmpeg's muxer writes its own.)
    @Test func aPhoneMoviesPlaceStaysHomeWhenShared() async throws {
        let phone = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("phone-location.mov")))
        func exported(_ name: String, _ filter: AVMetadataItemFilter?) async throws -> [AVMetadataKey: String] {
            let (output, _) = try await ExportTests.export(phone, preset: AVAssetExportPresetPassthrough, as: .mov, name: name) {
                $0.metadataItemFilter = filter
            }
            var read: [AVMetadataKey: String] = [:]
            for item in try await AVURLAsset(url: output).load(.commonMetadata) {
                if let key = item.commonKey, let value = try await item.load(.stringValue) { read[key] = value }
            }
            return read
        }
        let kept = try await exported("phone-kept.mov", nil)
        #expect(kept[.commonKeyLocation] == "+48.8577+002.2950+035.000/" && kept[.commonKeyMake] == "Apple" && kept[.commonKeyModel] == "iPhone 12")
        let shared = try await exported("phone-shared.mov", .forSharing())
        #expect(shared[.commonKeyTitle] == "Pier at Dawn", "\(shared)")
        #expect(shared[.commonKeyLocation] == nil && shared[.commonKeyMake] == nil && shared[.commonKeyModel] == nil)
    }

    /// A phone movie's place does not survive a filter for sharing; its title does. (FFmpeg's MOV
    /// demuxer reads `©aut` back as the artist, so an author cannot be told apart in MOV here.)
    @Test func sharingDropsThePlace() async throws {
        let items = [Self.item(.quickTimeUserDataFullName, "Pier at Dawn"),
                     Self.item(.quickTimeUserDataLocationISO6709, "+48.8577+002.2950/")]
        let kept = try await Self.roundTrip(items, as: .mov, name: "kept.mov")
        #expect(kept[.quickTimeUserDataLocationISO6709] == "+48.8577+002.2950/")
        let shared = try await Self.roundTrip(items, as: .mov, name: "shared.mov", filter: .forSharing())
        #expect(shared[.quickTimeUserDataFullName] == "Pier at Dawn")
        #expect(shared[.quickTimeUserDataLocationISO6709] == nil)
        let keptMP4 = try await Self.roundTrip(items, as: .mp4, name: "kept.mp4")
        #expect(keptMP4[AVMetadataIdentifier(rawValue: "itsk/%A9xyz")] == "+48.8577+002.2950/", "the place in MP4's user data")
        let sharedMP4 = try await Self.roundTrip(items, as: .mp4, name: "shared.mp4", filter: .forSharing())
        #expect(sharedMP4[.iTunesMetadataSongName] == "Pier at Dawn")
        #expect(sharedMP4[AVMetadataIdentifier(rawValue: "itsk/%A9xyz")] == nil, "\(sharedMP4)")
    }
}
