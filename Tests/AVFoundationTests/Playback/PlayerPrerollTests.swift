import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// `preroll(atRate:completionHandler:)`: the item's media is read ahead and its video outputs hold the
/// picture at the current time before the handler hears true; a player that cannot preroll, or a
/// preroll interrupted, hears false.
@Suite("Player preroll", .serialized)
struct PlayerPrerollTests {
    /// Waits for a preroll's answer with a deadline.
    static func answer(_ player: AVPlayer, rate: Float = 1) async -> Bool? {
        let answers = PlayerTests.Recorder<Bool>()
        player.preroll(atRate: rate) { answers.add($0) }
        await until("the preroll's answer") { !answers.values.isEmpty }
        return answers.values.first
    }

    /// A paused player on a manual clock, its item (the frame-index movie) with a BGRA video output.
    static func player() -> (AVPlayer, AVPlayerItem, AVPlayerItemVideoOutput) {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        return (player, item, output)
    }

    @Test func aPrerollFillsThePipelineAtTheCurrentTime() async throws {
        let (player, item, output) = Self.player()
        #expect(await Self.answer(player) == false, "an item not ready yet cannot be prerolled")
        try await PlayerTests.ready(item, in: player)
        let landed = await player.seek(to: CMTime(value: 3, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        #expect(landed)

        #expect(await Self.answer(player) == true)
        let now = player.currentTime()
        #expect(now == CMTime(value: 3, timescale: 1))
        #expect(item.isPlaybackLikelyToKeepUp)
        #expect(output.hasNewPixelBuffer(forItemTime: now), "the picture at the current time is decoded before the answer")
        let picture = try #require(output.copyPixelBuffer(forItemTime: now, itemTimeForDisplay: nil))
        #expect(VideoOutputTests.frameNumber(picture) == 75)
    }

    /// A preroll a little ahead of what is buffered (less than a second: decoding would otherwise go on
    /// from where it stands, and stop full before reaching it) still gets the picture there.
    @Test func aPrerollJustAheadOfTheBuffer() async throws {
        let (player, item, output) = Self.player()
        try await PlayerTests.ready(item, in: player)
        _ = try #require(try await VideoOutputTests.picture(output, at: .zero))
        #expect(await player.seek(to: CMTime(value: 8, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero))
        #expect(await Self.answer(player) == true)
        let picture = try #require(output.copyPixelBuffer(forItemTime: CMTime(value: 8, timescale: 10), itemTimeForDisplay: nil))
        #expect(VideoOutputTests.frameNumber(picture) == 20)
    }

    @Test func aPlayingPlayerCannotPreroll() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        player.rate = 1
        #expect(await Self.answer(player) == false, "Apple's raises; Avocet's answers false")
        player.pause()
        #expect(await Self.answer(player) == true)
    }

    @Test func everyPrerollIsAnsweredOnce() async throws {
        let player = AVPlayer()
        // No item: nothing to preroll.
        #expect(await Self.answer(player) == false)
        let answers = PlayerTests.Recorder<Bool>()
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        player.replaceCurrentItem(with: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        player.cancelPendingPrerolls()
        player.preroll(atRate: 1) { answers.add($0) }
        player.replaceCurrentItem(with: AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4"))))
        await until("the preroll's answer") { !answers.values.isEmpty }
        // Either it finished before the item changed, or the change interrupted it: one answer.
        #expect(answers.values.count == 1)
    }
}
