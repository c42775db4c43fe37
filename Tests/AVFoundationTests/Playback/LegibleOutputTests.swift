import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// Records what a legible output delivers, in order, on its queue.
final class LegibleRecorder: NSObject, AVPlayerItemLegibleOutputPushDelegate, @unchecked Sendable {
    enum Event: Equatable {
        case text([String], at: Double)
        case natives(Int, at: Double)
        case flushed
    }

    let queue = DispatchQueue(label: "legible-recorder")
    let events = Locked<[Event]>([])

    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {
        let time = (itemTime.seconds * 1000).rounded() / 1000
        if nativeSamples.isEmpty {
            events.withLock { $0.append(.text(strings.map(\.string), at: time)) }
        } else {
            events.withLock { $0.append(.natives(nativeSamples.filter { $0 is CMSampleBuffer }.count, at: time)) }
        }
    }

    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {
        events.withLock { $0.append(.flushed) }
    }

    var texts: [[String]] {
        events.withLock { $0 }.compactMap { if case .text(let strings, _) = $0 { return strings } else { return nil } }
    }
}

/// The text of the item's presented subtitle track reaches a legible output's delegate as the item
/// plays (Fixtures/selection.mkv: English cues at 0.1-0.5 s and 0.6-0.9 s, French ones at the same
/// times, placed 21 ms later by the muxer).
@Suite("Legible output", .serialized)
struct LegibleOutputTests {
    /// A player on selection.mkv with the subtitles of `language` ("en": the English track, forced-only;
    /// "fr": the French one) chosen before the item loads, and a legible output added.
    static func setUp(_ output: AVPlayerItemLegibleOutput, language: String) async throws -> (AVPlayer, AVPlayerItem, LegibleRecorder) {
        let player = AVPlayer()
        player.sourceClock = CMClock.manual()
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("selection.mkv")))
        let item = AVPlayerItem(asset: asset)
        let legible = try #require(try await asset.loadMediaSelectionGroup(for: .legible))
        item.select(legible.options.first { $0.extendedLanguageTag == language }, in: legible)
        let recorder = LegibleRecorder()
        output.setDelegate(recorder, queue: recorder.queue)
        item.add(output)
        player.replaceCurrentItem(with: item)
        try await PlayerTests.ready(item, in: player)
        return (player, item, recorder)
    }

    @Test func cuesArriveAsTheItemPlays() async throws {
        let output = AVPlayerItemLegibleOutput()
        let (player, _, recorder) = try await Self.setUp(output, language: "en")
        #expect(output.delegate === recorder && output.delegateQueue === recorder.queue)
        // The cues are read once the item is ready: wait for them (a seek into a cue shows it), then
        // play from the start.
        await until("the output has read its cues") {
            _ = await player.seek(to: CMTime(value: 3, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero)
            return recorder.texts.last == ["Shore ahead."]
        }
        _ = await player.seek(to: .zero, toleranceBefore: .zero, toleranceAfter: .zero)
        await until("the seek's delivery is in") { recorder.texts.last == [] }
        recorder.events.withLock { $0 = [] }
        let clock = try #require(player.sourceClock)
        await PlayerTests.play(player, on: clock, until: "both cues shown and the last one ended") { recorder.texts.count >= 4 }
        player.pause()
        #expect(Array(recorder.texts.prefix(4)) == [["Shore ahead."], [], ["Hold on."], []], "\(recorder.events.withLock { $0 })")
        let times = recorder.events.withLock { $0 }.compactMap { if case .text(let s, let at) = $0, !s.isEmpty { return at } else { return nil } }
        #expect(times.count >= 2 && abs(times[0] - 0.121) < 0.002 && abs(times[1] - 0.621) < 0.002, "\(times)")
    }

    @Test func aSeekFlushesAndShowsWhatIsThere() async throws {
        let output = AVPlayerItemLegibleOutput()
        let (player, item, recorder) = try await Self.setUp(output, language: "en")
        // The cues are read once the item is ready; wait for them before seeking into one.
        await until("the output has read its cues") {
            _ = await player.seek(to: CMTime(value: 7, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero)
            return recorder.texts.last == ["Hold on."]
        }
        #expect(recorder.events.withLock { $0 }.contains(.flushed))

        // Another subtitle track chosen: what showed is flushed, and the new track's cue showing there
        // arrives once it is read, with no seek or tick (the player is paused).
        let legible = try #require(try await item.asset.loadMediaSelectionGroup(for: .legible))
        let flushes = recorder.events.withLock { $0.filter { $0 == .flushed }.count }
        item.select(legible.options[1], in: legible)
        await until("the French cue shows where the player stands") { recorder.texts.last == ["Tenez bon."] }
        #expect(recorder.events.withLock { $0.filter { $0 == .flushed }.count } == flushes + 1)
        // Subtitles turned off: flushed again, and nothing more shows.
        item.select(nil, in: legible)
        await until("the text cleared") { recorder.texts.last == [] }
    }

    @Test func nativeSubtypesArriveAsSampleBuffers() async throws {
        let output = AVPlayerItemLegibleOutput(mediaSubtypesForNativeRepresentation: [NSNumber(value: FourCharCode(fourCharString: "srt "))])
        let (player, _, recorder) = try await Self.setUp(output, language: "fr")
        await until("a French cue handed over as its sample") {
            _ = await player.seek(to: CMTime(value: 3, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero)
            return recorder.events.withLock { $0 }.contains(.natives(1, at: 0.121))
        }
        output.textStylingResolution = .sourceAndRulesOnly
        output.textStylingResolution = AVPlayerItemLegibleOutput.TextStylingResolution(rawValue: "Other")
        #expect(output.textStylingResolution == .sourceAndRulesOnly, "another value is ignored")
    }
}
