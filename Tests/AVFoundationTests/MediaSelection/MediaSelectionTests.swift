@testable import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// Media selection groups built from real files (Fixtures/selection.*, made by make-fixtures.py from
/// facts.json's "selection" entries): languages, titles, the containers' flags, MP4's alternate groups.
@Suite("Media selection")
struct MediaSelectionTests {
    static let english = Locale(identifier: "en")

    func asset(_ name: String) -> AVURLAsset { AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name))) }

    @Test func matroskaAudioLanguagesAndSubtitles() async throws {
        let movie = asset("selection.mkv")
        #expect(try await movie.load(.availableMediaCharacteristicsWithMediaSelectionOptions) == [.audible, .legible])

        let audible = try #require(try await movie.loadMediaSelectionGroup(for: .audible))
        #expect(audible.options.map(\.extendedLanguageTag) == ["en", "fr", "de"])
        #expect(audible.options.map { $0.displayName(with: Self.english) } == ["English", "Français", "German"], "titles first, else the language")
        #expect(audible.options.map { $0.displayName(with: Locale(identifier: "fr")) }[2] == "allemand")
        #expect(audible.options.map(\.mediaType) == [.audio, .audio, .audio])
        #expect(audible.options.allSatisfy { $0.mediaSubTypes == [NSNumber(value: kAudioFormatMPEG4AAC)] && $0.isPlayable })
        #expect(audible.options.map { $0.locale?.language.languageCode?.identifier } == ["en", "fr", "de"])
        #expect(audible.defaultOption === audible.options[0], "the track Matroska marks as default")
        #expect(!audible.allowsEmptySelection)
        #expect(audible.options.map { $0.hasMediaCharacteristic(.describesVideoForAccessibility) } == [false, false, true])
        #expect(audible.options.allSatisfy { $0.hasMediaCharacteristic(.audible) && !$0.hasMediaCharacteristic(.legible) })
        #expect(audible.options[0].commonMetadata.map { $0.currentStringValue } == ["English"])
        #expect(audible.options[0].availableMetadataFormats == [AVMetadataFormat.matroskaTags.rawValue])
        #expect(audible.options[0].metadata(forFormat: AVMetadataFormat.matroskaTags.rawValue).count == 1)
        #expect(audible.options[0].metadata(forFormat: AVMetadataFormat.iTunesMetadata.rawValue).isEmpty)
        #expect(audible.options[0].associatedMediaSelectionOption(in: audible) == nil)

        let legible = try #require(try await movie.loadMediaSelectionGroup(for: .legible))
        #expect(legible.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(legible.options.map { $0.hasMediaCharacteristic(.containsOnlyForcedSubtitles) } == [true, false])
        #expect(legible.options.allSatisfy { $0.mediaType == .subtitle && $0.hasMediaCharacteristic(.legible) })
        #expect(legible.defaultOption == nil, "no subtitle track is marked default: none shows")
        #expect(legible.allowsEmptySelection)

        #expect(try await movie.loadMediaSelectionGroup(for: .visual) == nil, "one video track is no choice")
        #expect(try await movie.loadMediaSelectionGroup(for: .frameBased) == nil)
    }

    @Test func mp4AlternateGroupsMakeTheGroups() async throws {
        let movie = asset("selection.mp4")
        let groups = try await movie.load(.trackGroups)
        #expect(groups.map { $0.trackIDs.map(\.int32Value) } == [[2, 3], [4, 5]], "FFmpeg's muxer: audio in group 1, subtitles in 3")
        let audible = try #require(try await movie.loadMediaSelectionGroup(for: .audible))
        #expect(audible.options.map(\.trackID) == [2, 3])
        #expect(audible.options.map { $0.displayName(with: Self.english) } == ["English", "Spanish"])
        #expect(audible.defaultOption === audible.options[0], "the enabled track")
        let legible = try #require(try await movie.loadMediaSelectionGroup(for: .legible))
        #expect(legible.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(legible.defaultOption === legible.options[0], "FFmpeg's muxer enables the first text track")
        #expect(legible.options.allSatisfy { $0.mediaSubTypes == [NSNumber(value: FourCharCode(fourCharString: "tx3g"))] })
        #expect(try await movie.load(.availableMediaCharacteristicsWithMediaSelectionOptions) == [.audible, .legible])
    }

    @Test func filesWithoutChoices() async throws {
        // One audio track in MP4's alternate group 1 is a group of one; WAV has no alternate groups,
        // so its one audio track is a group of one too; video alone is no choice.
        #expect(try await asset("av.mp4").loadMediaSelectionGroup(for: .audible)?.options.count == 1)
        #expect(try await asset("tone.wav").loadMediaSelectionGroup(for: .audible)?.options.count == 1)
        let video = asset("frames-h264.mp4")
        #expect(try await video.load(.availableMediaCharacteristicsWithMediaSelectionOptions).isEmpty)
        #expect(try await video.load(.allMediaSelections).isEmpty)
        #expect(try await video.load(.preferredMediaSelection).asset === video)
    }

    /// An HLS master playlist's alternative audio (`EXT-X-MEDIA` renditions, Fixtures/hls-renditions/):
    /// one audible option per rendition, named and in the language the playlist gives, the DEFAULT one
    /// the group's default; and a player item presents only it.
    @Test func hlsRenditionsAreTheAudibleOptions() async throws {
        let root = Fixtures.directory.appendingPathComponent("hls-renditions")
        let server = try LoopbackHTTPServer(routes: LoopbackHTTPServer.routes(serving: root))
        let asset = AVURLAsset(url: server.url("/master.m3u8"))
        let audible = try #require(try await asset.loadMediaSelectionGroup(for: .audible))
        #expect(audible.options.map { $0.displayName(with: Self.english) } == ["English", "Français"], "the renditions' NAME")
        #expect(audible.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(audible.defaultOption === audible.options[0], "DEFAULT=YES")

        // A master playlist of one variant has that variant.
        let variants = try await asset.load(.variants)
        #expect(variants.map(\.peakBitRate) == [120_000])
        #expect(variants.first?.audioAttributes?.renditionSpecificAttributes(for: audible.options[1])?.channelCount == 1)

        let item = AVPlayerItem(asset: asset)
        let player = AVPlayer(playerItem: item)
        try await PlayerTests.ready(item, in: player)
        #expect(item.tracks.filter { $0.assetTrack?.mediaType == .audio }.map(\.isEnabled) == [true, false])
        item.select(audible.options[1], in: audible)
        #expect(item.tracks.filter { $0.assetTrack?.mediaType == .audio }.map(\.isEnabled) == [false, true])
    }

    /// A ready player on `asset`, its item with a legible output whose deliveries a recorder keeps.
    static func playerWithLegibleOutput(_ asset: AVAsset) async throws -> (AVPlayer, AVPlayerItem, LegibleRecorder) {
        let item = AVPlayerItem(asset: asset)
        let output = AVPlayerItemLegibleOutput()
        let recorder = LegibleRecorder()
        output.setDelegate(recorder, queue: recorder.queue)
        item.add(output)
        let player = AVPlayer(playerItem: item)
        try await PlayerTests.ready(item, in: player)
        return (player, item, recorder)
    }

    /// An HLS master playlist's WebVTT subtitles (`EXT-X-MEDIA TYPE=SUBTITLES`, Fixtures/hls-renditions/):
    /// one legible option per rendition, named, in its language, the DEFAULT one the group's default;
    /// a legible output on a player shows the chosen rendition's cues at their times (the segments'
    /// X-TIMESTAMP-MAP applied, a cue two segments repeat shown once), and another choice shows its own.
    @Test func hlsSubtitleRenditionsAreLegibleOptions() async throws {
        let facts = Fixtures.facts.hlsRenditions
        let server = try LoopbackHTTPServer(routes: LoopbackHTTPServer.routes(serving: Fixtures.directory.appendingPathComponent(facts.directory)))
        let asset = AVURLAsset(url: server.url("/master.m3u8"))
        let legible = try #require(try await asset.loadMediaSelectionGroup(for: .legible))
        #expect(legible.options.map { $0.displayName(with: Self.english) } == facts.subtitles.map(\.name))
        #expect(legible.options.map(\.extendedLanguageTag) == facts.subtitles.map { $0.language })
        #expect(legible.defaultOption === legible.options[0], "DEFAULT=YES")
        #expect(legible.options.allSatisfy { $0.mediaType == .subtitle && !$0.hasMediaCharacteristic(.containsOnlyForcedSubtitles) })
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let first = try await video.load(.timeRange).start.seconds

        let (player, item, recorder) = try await Self.playerWithLegibleOutput(asset)
        for (option, subtitles) in zip(legible.options, facts.subtitles) {
            item.select(option, in: legible)
            // Each cue shows at its time: a seek into it delivers it (once the rendition is read).
            for cue in subtitles.cues {
                let middle = CMTime(seconds: first + (cue.start + cue.end) / 2, preferredTimescale: 1000)
                await until("\(cue.text) shows") {
                    _ = await player.seek(to: middle, toleranceBefore: .zero, toleranceAfter: .zero)
                    return recorder.texts.last == [cue.text]
                }
                let at = recorder.events.withLock { $0 }.last { if case .text(let s, _) = $0 { return s == [cue.text] } else { return false } }
                if case .text(_, let time)? = at { #expect(abs(time - (first + cue.start)) < 0.002, "\(cue.text) from \(time)") }
            }
        }
        // Between cues nothing shows, and the cue two segments repeat is not doubled.
        _ = await player.seek(to: CMTime(seconds: first + 1.4, preferredTimescale: 1000), toleranceBefore: .zero, toleranceAfter: .zero)
        await until("nothing shows between cues") { recorder.texts.last == [] }
        item.select(legible.options[0], in: legible)
        _ = await player.seek(to: CMTime(seconds: first + 1.0, preferredTimescale: 1000), toleranceBefore: .zero, toleranceAfter: .zero)
        await until("the cue across the cut shows once") { recorder.texts.last == [facts.subtitles[0].cues[1].text] }

        // An asset reader does not read a rendition.
        let reader = try AVAssetReader(asset: asset)
        let track = try #require(try await asset.loadTracks(withMediaType: .subtitle).first)
        let trackOutput = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        #expect(!reader.canAdd(trackOutput))
        reader.add(trackOutput)
        #expect(reader.status == .failed && (reader.error as? AVError)?.code == .operationNotSupportedForAsset, "\(String(describing: reader.error))")
    }

    /// Subtitle renditions that cannot be read (a URI that is not http, a playlist the server does not
    /// have, a segment that is not WebVTT) are options that show nothing: the asset and its player work.
    @Test func unreadableSubtitleRenditionsShowNothing() async throws {
        let facts = Fixtures.facts.hlsRenditions
        var routes = LoopbackHTTPServer.routes(serving: Fixtures.directory.appendingPathComponent(facts.directory))
        let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="Local",LANGUAGE="en",DEFAULT=YES,URI="file:///etc/passwd"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="Missing",LANGUAGE="de",URI="missing/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="Garbage",LANGUAGE="fr",URI="garbage/index.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=120000,SUBTITLES="s"
        video/index.m3u8
        """
        routes["/bad.m3u8"] = .data(Data(master.utf8), contentType: "application/vnd.apple.mpegurl")
        routes["/garbage/index.m3u8"] = .data(Data("#EXTM3U\n#EXTINF:1,\nnot.vtt\n#EXTINF:1,\nfile:///etc/passwd\n".utf8), contentType: "application/vnd.apple.mpegurl")
        routes["/garbage/not.vtt"] = .data(Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }), contentType: "text/vtt")
        let server = try LoopbackHTTPServer(routes: routes)
        let asset = AVURLAsset(url: server.url("/bad.m3u8"))
        let legible = try #require(try await asset.loadMediaSelectionGroup(for: .legible))
        #expect(legible.options.map { $0.displayName(with: Self.english) } == ["Local", "Missing", "Garbage"])
        let (player, item, recorder) = try await Self.playerWithLegibleOutput(asset)
        #expect(item.status == .readyToPlay)
        for option in legible.options {
            item.select(option, in: legible)
            _ = await player.seek(to: CMTime(seconds: 0.5, preferredTimescale: 1000), toleranceBefore: .zero, toleranceAfter: .zero)
        }
        // The seeks' deliveries are in: nothing but empty text ever showed.
        await until("the last seek delivered") { recorder.events.withLock { $0 }.contains(.flushed) }
        #expect(recorder.texts.allSatisfy { $0.isEmpty }, "\(recorder.texts)")
    }

    @Test func filtersKeepApplesOrder() async throws {
        let options = try #require(try await asset("selection.mkv").loadMediaSelectionGroup(for: .audible)).options
        let tags = { (found: [AVMediaSelectionOption]) in found.map { $0.extendedLanguageTag ?? "" } }
        #expect(tags(AVMediaSelectionGroup.mediaSelectionOptions(from: options, filteredAndSortedAccordingToPreferredLanguages: ["fr-CA", "de", "en-US"]))
                == ["fr", "de", "en"])
        #expect(tags(AVMediaSelectionGroup.mediaSelectionOptions(from: options, filteredAndSortedAccordingToPreferredLanguages: ["fra", "es"])) == ["fr"],
                "ISO 639-2 codes meet their two-letter twins; a language without an option adds nothing")
        #expect(AVMediaSelectionGroup.mediaSelectionOptions(from: options, filteredAndSortedAccordingToPreferredLanguages: []).isEmpty)
        #expect(tags(AVMediaSelectionGroup.mediaSelectionOptions(from: options, with: Locale(identifier: "de_DE"))) == ["de"])
        #expect(AVMediaSelectionGroup.mediaSelectionOptions(from: options, with: Locale(identifier: "it")).isEmpty)
        #expect(tags(AVMediaSelectionGroup.mediaSelectionOptions(from: options, withMediaCharacteristics: [.describesVideoForAccessibility])) == ["de"])
        #expect(tags(AVMediaSelectionGroup.mediaSelectionOptions(from: options, withoutMediaCharacteristics: [.describesVideoForAccessibility])) == ["en", "fr"])
        #expect(tags(AVMediaSelectionGroup.mediaSelectionOptions(from: options, withMediaCharacteristics: [.audible, .describesVideoForAccessibility])) == ["de"])
        #expect(AVMediaSelectionGroup.playableMediaSelectionOptions(from: options).count == 3)
    }

    @Test func propertyListsFindTheirOption() async throws {
        let group = try #require(try await asset("selection.mkv").loadMediaSelectionGroup(for: .audible))
        for option in group.options {
            #expect(group.mediaSelectionOption(withPropertyList: option.propertyList()) === option)
            // Saved and read back, as an app keeps a choice between launches.
            let data = try PropertyListSerialization.data(fromPropertyList: option.propertyList(), format: .binary, options: 0)
            let read = try PropertyListSerialization.propertyList(from: data, format: nil)
            #expect(group.mediaSelectionOption(withPropertyList: read) === option)
        }
        // The same asset opened again: its groups are new objects, the property list still finds the option.
        let again = try #require(try await asset("selection.mkv").loadMediaSelectionGroup(for: .audible))
        #expect(again.mediaSelectionOption(withPropertyList: group.options[1].propertyList())?.extendedLanguageTag == "fr")
        #expect(group.mediaSelectionOption(withPropertyList: "English") == nil)
        #expect(group.mediaSelectionOption(withPropertyList: ["AvocetTrackID": 99] as [String: Any]) == nil)
        #expect(group.mediaSelectionOption(withPropertyList: ["AvocetTrackID": Int64.max] as [String: Any]) == nil)
    }

    @Test func selectionsChooseOneOptionPerGroup() async throws {
        let movie = asset("selection.mkv")
        let audible = try #require(try await movie.loadMediaSelectionGroup(for: .audible))
        let legible = try #require(try await movie.loadMediaSelectionGroup(for: .legible))
        let preferred = try await movie.load(.preferredMediaSelection)
        #expect(preferred.asset === movie)
        #expect(preferred.selectedMediaOption(in: audible) === audible.options[0])
        #expect(preferred.selectedMediaOption(in: legible) == nil)
        #expect(preferred.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))

        let chosen = try #require(preferred.mutableCopy() as? AVMutableMediaSelection)
        chosen.select(audible.options[1], in: audible)
        chosen.select(legible.options[1], in: legible)
        #expect(chosen.selectedMediaOption(in: audible) === audible.options[1])
        #expect(chosen.selectedMediaOption(in: legible) === legible.options[1])
        #expect(!chosen.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))
        #expect(preferred.selectedMediaOption(in: audible) === audible.options[0], "the copy is its own")
        chosen.select(nil, in: audible)
        #expect(chosen.selectedMediaOption(in: audible) === audible.options[1], "sound cannot be turned off")
        chosen.select(legible.options[0], in: audible)
        #expect(chosen.selectedMediaOption(in: audible) === audible.options[1], "an option of another group changes nothing")
        chosen.select(nil, in: legible)
        #expect(chosen.selectedMediaOption(in: legible) == nil)
        let frozen = try #require(chosen.copy() as? AVMediaSelection)
        #expect(!(frozen is AVMutableMediaSelection) && frozen.selectedMediaOption(in: audible) === audible.options[1])

        // Every combination: three languages by two subtitle tracks or none, the preferred one first.
        let all = try await movie.load(.allMediaSelections)
        #expect(all.count == 9)
        #expect(all.first?.selectedMediaOption(in: audible) === audible.defaultOption && all.first?.selectedMediaOption(in: legible) == nil)
        let pairs = Set(all.map { "\($0.selectedMediaOption(in: audible)?.trackID ?? 0)-\($0.selectedMediaOption(in: legible)?.trackID ?? 0)" })
        #expect(pairs.count == 9)
    }

    @Test @available(*, deprecated, message: "exercises the legacy API") func theDeprecatedFormsAndTheCallbackAgree() async throws {
        let movie = asset("selection.mkv")
        #expect(movie.availableMediaCharacteristicsWithMediaSelectionOptions == [.audible, .legible])
        #expect(movie.mediaSelectionGroup(forMediaCharacteristic: .legible)?.options.count == 2)
        #expect(movie.preferredMediaSelection.selectedMediaOption(in: try #require(movie.mediaSelectionGroup(forMediaCharacteristic: .audible)))?
            .extendedLanguageTag == "en")
        #expect(movie.allMediaSelections.count == 9)
        let box = Locked<(AVMediaSelectionGroup?, (any Error)?)?>(nil)
        movie.loadMediaSelectionGroup(for: .audible) { group, error in box.withLock { $0 = (group, error) } }
        await until("the completion handler ran") { box.withLock { $0 != nil } }
        #expect(box.withLock { $0?.0?.options.count } == 3)
        // The legacy string keys know them.
        let fresh = asset("selection.mkv")
        let loaded = Locked(false)
        fresh.loadValuesAsynchronously(forKeys: ["availableMediaCharacteristicsWithMediaSelectionOptions", "allMediaSelections"]) {
            loaded.withLock { $0 = true }
        }
        await until("the legacy load finished") { loaded.withLock { $0 } }
        var error: NSError?
        #expect(fresh.statusOfValue(forKey: "availableMediaCharacteristicsWithMediaSelectionOptions", error: &error) == .loaded)
    }

    @Test func aCompositionGroupsItsTracksByType() async throws {
        let source = asset("selection.mkv")
        let audio = try await source.loadTracks(withMediaType: .audio)
        let composition = AVMutableComposition()
        for track in audio.prefix(2) {
            let added = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
            try added.insertTimeRange(try await track.load(.timeRange), of: track, at: .zero)
        }
        let group = try #require(try await composition.loadMediaSelectionGroup(for: .audible))
        #expect(group.options.count == 2)
        #expect(group.defaultOption === group.options[0], "every composition track is enabled: the first")
    }

    /// Combinations grow as the product of the groups' sizes: 65 sound tracks by 64 subtitle tracks (or
    /// none) would be 4,225 selections; the list stops at 4,096, the preferred one first.
    @Test func allSelectionsAreCapped() async throws {
        let composition = AVMutableComposition()
        for _ in 0..<65 { _ = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid) }
        for _ in 0..<64 { _ = composition.addMutableTrack(withMediaType: .subtitle, preferredTrackID: kCMPersistentTrackID_Invalid) }
        let audible = try #require(try await composition.loadMediaSelectionGroup(for: .audible))
        let legible = try #require(try await composition.loadMediaSelectionGroup(for: .legible))
        #expect(audible.options.count == 65 && legible.options.count == 64)
        let all = try await composition.load(.allMediaSelections)
        #expect(all.count == MediaSelectionRules.maximumSelections)
        #expect(all.first?.selectedMediaOption(in: audible) === audible.defaultOption)
    }

    @Test @available(*, deprecated, message: "exercises the legacy API") func aFileThatFailsFailsTheLoad() async throws {
        let broken = asset("not-media.mp4")
        await #expect(throws: AVError.self) { try await broken.loadMediaSelectionGroup(for: .audible) }
        #expect(broken.allMediaSelections.isEmpty)
        #expect(broken.preferredMediaSelection.asset === broken)
    }
}
