import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// A player item follows its media selection: the chosen options' tracks are the ones presented, and
/// the sound heard is the chosen language's. Fixtures/selection.mkv's audio tracks are tones of 440 Hz
/// (English), 880 Hz (French) and 1320 Hz (German), so the sound written says which one plays.
@Suite("Media selection in playback", .serialized)
struct MediaSelectionPlaybackTests {
    static func item() -> AVPlayerItem {
        AVPlayerItem(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("selection.mkv"))))
    }

    /// Which of the item's tracks are presented, by media type, in track order.
    static func enabled(_ item: AVPlayerItem, _ type: AVMediaType) -> [Bool] {
        item.tracks.filter { $0.assetTrack?.mediaType == type }.map(\.isEnabled)
    }

    @Test func theDefaultsArePresentedAndSelectSwitches() async throws {
        let item = Self.item()
        let player = AVPlayer(playerItem: item)
        try await PlayerTests.ready(item, in: player)
        #expect(Self.enabled(item, .audio) == [true, false, false], "the default language only, not three mixed")
        #expect(Self.enabled(item, .subtitle) == [false, false], "no subtitle track is marked default")
        let audible = try #require(try await item.asset.loadMediaSelectionGroup(for: .audible))
        let legible = try #require(try await item.asset.loadMediaSelectionGroup(for: .legible))
        #expect(item.currentMediaSelection.selectedMediaOption(in: audible)?.extendedLanguageTag == "en")

        let posted = Locked(0)
        let observer = NotificationCenter.default.addObserver(forName: AVPlayerItem.mediaSelectionDidChangeNotification, object: item, queue: nil) { _ in
            posted.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        item.select(audible.options[1], in: audible)
        item.select(legible.options[0], in: legible)
        #expect(Self.enabled(item, .audio) == [false, true, false])
        #expect(Self.enabled(item, .subtitle) == [true, false])
        #expect(item.currentMediaSelection.selectedMediaOption(in: audible)?.extendedLanguageTag == "fr")
        #expect(!item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))
        item.select(nil, in: audible)                      // sound cannot be turned off
        item.select(audible.options[1], in: audible)       // no change: no notification
        item.select(nil, in: legible)
        #expect(Self.enabled(item, .audio) == [false, true, false] && Self.enabled(item, .subtitle) == [false, false])
        #expect(posted.withLock { $0 } == 3)

        item.selectMediaOptionAutomatically(in: audible)   // back to the player's choice: the default
        #expect(Self.enabled(item, .audio) == [true, false, false])
        #expect(item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))
    }

    /// A choice made before the item loads (with the group loaded from the asset) holds when it loads.
    @Test func aChoiceBeforeLoadingHolds() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("selection.mkv")))
        let audible = try #require(try await asset.loadMediaSelectionGroup(for: .audible))
        let item = AVPlayerItem(asset: asset)
        item.select(audible.options[2], in: audible)
        let player = AVPlayer(playerItem: item)
        try await PlayerTests.ready(item, in: player)
        #expect(Self.enabled(item, .audio) == [false, false, true])
        #expect(item.currentMediaSelection.selectedMediaOption(in: audible)?.extendedLanguageTag == "de")
        #expect(!item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))
    }

    /// An item of selection.mkv, loaded by a player with `criteria` for the characteristics given
    /// (applied automatically or not).
    static func loaded(_ criteria: [AVMediaCharacteristic: AVPlayerMediaSelectionCriteria], applies: Bool = true) async throws -> AVPlayerItem {
        let player = AVPlayer()
        player.appliesMediaSelectionCriteriaAutomatically = applies
        for (characteristic, c) in criteria { player.setMediaSelectionCriteria(c, forMediaCharacteristic: characteristic) }
        let item = Self.item()
        player.replaceCurrentItem(with: item)
        try await PlayerTests.ready(item, in: player)
        return item
    }

    static func languages(_ languages: [String], _ characteristics: [AVMediaCharacteristic]? = nil) -> AVPlayerMediaSelectionCriteria {
        AVPlayerMediaSelectionCriteria(preferredLanguages: languages, preferredMediaCharacteristics: characteristics)
    }

    @Test func thePlayersCriteriaChooseWhenTheItemLoads() async throws {
        let player = AVPlayer()
        player.setMediaSelectionCriteria(Self.languages(["de-CH", "fr"]), forMediaCharacteristic: .audible)
        #expect(player.mediaSelectionCriteria(forMediaCharacteristic: .audible)?.preferredLanguages == ["de-CH", "fr"])
        #expect(player.mediaSelectionCriteria(forMediaCharacteristic: .visual) == nil)

        let item = try await Self.loaded([.audible: Self.languages(["de-CH", "fr"]), .legible: Self.languages(["fr"])])
        #expect(Self.enabled(item, .audio) == [false, false, true], "German, the first preferred language the item has")
        #expect(Self.enabled(item, .subtitle) == [false, true], "French subtitles")

        // Criteria that prefer a characteristic: the audio description.
        let described = try await Self.loaded([.audible: AVPlayerMediaSelectionCriteria(preferredLanguages: nil,
                                                                                          preferredMediaCharacteristics: [.describesVideoForAccessibility])])
        #expect(Self.enabled(described, .audio) == [false, false, true])

        // A language's subtitles are not its forced-only ones: English criteria choose no subtitles here,
        // unless they ask for forced subtitles.
        #expect(Self.enabled(try await Self.loaded([.legible: Self.languages(["en"])]), .subtitle) == [false, false])
        let forced = try await Self.loaded([.legible: Self.languages(["en"], [.containsOnlyForcedSubtitles])])
        #expect(Self.enabled(forced, .subtitle) == [true, false])

        // A player that does not apply its criteria presents the defaults.
        let plain = try await Self.loaded([.audible: Self.languages(["de"])], applies: false)
        #expect(Self.enabled(plain, .audio) == [true, false, false])
    }

    /// How far a measured tone may be from a language's: the tones are 440 Hz apart, so within 100 Hz
    /// of one names it, even where a loaded machine (a sanitizer run) left the device a few milliseconds
    /// of silence in the window.
    static let tolerance = 100.0

    /// The tone heard: zero crossings of the left channel, after the first `skipping` frames (a tenth
    /// of a second unless told).
    static func frequency(_ samples: [Float], skipping: Int = 4_800) -> Double {
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }.dropFirst(skipping)
        var crossings = 0
        var previous = left.first ?? 0
        for sample in left.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / 2 / (Double(left.count) / 48_000)
    }

    /// Plays the item for a third of a second into a file device and returns the samples written.
    static func sound(choosing language: Int?) async throws -> [Float] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let item = Self.item()
            let player = AVPlayer(playerItem: item)
            player.audioDevice = AudioOutputTests.fileDevice(path)
            try await PlayerTests.ready(item, in: player)
            if let language, let audible = try await item.asset.loadMediaSelectionGroup(for: .audible) {
                item.select(audible.options[language], in: audible)
            }
            player.play()
            await until("player.audioFramesWritten > 16_000") { player.audioFramesWritten > 16_000 }
            player.pause()
        }
        return await AudioOutputTests.samples(at: path, atLeast: 16_000, "a third of a second")
    }

    /// Switching while playing: the sound after the switch is the new language's, from the time of the
    /// switch, and the player's time went on. On a manual clock that moves only while the sound written
    /// is a tenth of a second ahead of it, so a loaded machine (a sanitizer build beside the suite)
    /// cannot make the switch late or leave the renderer behind.
    @Test func switchingWhilePlaying() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var (english, written) = (0, 0)
        do {
            let item = Self.item()
            let (player, clock) = try await PlayerTests.soundPlayer(item, writingTo: path)
            let audible = try #require(try await item.asset.loadMediaSelectionGroup(for: .audible))
            // English to a tenth of a second, the renderer keeping ahead of the time.
            await PlayerTests.play(player, on: clock, until: "a tenth of a second played",
                                   keepingUp: PlayerTests.soundAhead(of: player, on: clock)) { player.currentTime() >= PlayerTests.t(0.1) }
            // The clock stands still: what the renderer wrote ahead of it is all it writes.
            await until("the renderer a fifth of a second ahead") { Double(player.audioFramesWritten) / 48_000 >= player.currentTime().seconds + 0.2 }
            english = player.audioFramesWritten
            let before = player.currentTime()
            item.select(audible.options[1], in: audible)
            #expect(player.currentTime() == before, "time kept")
            // French from the time of the switch on, to 0.4 s.
            await PlayerTests.advance(player, on: clock, until: "0.4 s played",
                                      keepingUp: PlayerTests.soundAhead(of: player, on: clock, since: english, from: before.seconds)) {
                player.currentTime() >= PlayerTests.t(0.4)
            }
            #expect(player.currentTime() >= PlayerTests.t(0.4), "time went on")
            await until("the renderer a tenth of a second ahead") {
                Double(player.audioFramesWritten - english) / 48_000 >= player.currentTime().seconds - before.seconds + 0.1
            }
            player.pause()
            written = player.audioFramesWritten
        }
        let samples = await AudioOutputTests.samples(at: path, atLeast: written, "what was written")
        // English before the switch (past the device's start), French in the last tenth of a second.
        let before = Self.frequency(Array(samples.prefix(english * 2)), skipping: 2_400)
        #expect(abs(before - 440) < Self.tolerance, "before the switch: \(before) Hz")
        let french = Self.frequency(Array(samples.suffix(4_800 * 2)), skipping: 0)
        #expect(abs(french - 880) < Self.tolerance, "after the switch: \(french) Hz")
    }

    @Test func theChosenLanguageIsHeard() async throws {
        let english = Self.frequency(try await Self.sound(choosing: nil))
        #expect(abs(english - 440) < Self.tolerance, "the default, English: \(english) Hz")
        let french = Self.frequency(try await Self.sound(choosing: 1))
        #expect(abs(french - 880) < Self.tolerance, "French chosen before playing: \(french) Hz")
    }
}
