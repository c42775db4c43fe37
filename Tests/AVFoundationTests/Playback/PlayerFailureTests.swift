import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// A player whose sound device fails for good: `status` becomes `.failed` with an `AVError`, the player
/// pauses, and it does not play again (as Apple's: a failed player is replaced by a new one).
@Suite("Player failure", .serialized)
struct PlayerFailureTests {
    struct DeviceGone: Error, LocalizedError {
        var errorDescription: String? { "the device was unplugged" }
    }

    @Test func aFailedDeviceFailsThePlayer() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        let statuses = PlayerTests.Recorder<AVPlayer.Status>()
        let observation = player.observe(\.status, options: [.new]) { player, _ in statuses.add(player.status) }
        player.playImmediately(atRate: 1)
        #expect(player.timeControlStatus == .playing)
        let seeks = PlayerTests.Recorder<Bool>()
        // A tolerant seek, whose keyframe lookup first opens the index on an engine thread: usually still
        // under way when the device fails (then it hears false), else landed (true); heard once either way.
        player.seek(to: CMTime(value: 2, timescale: 1)) { seeks.add($0) }

        player.soundDidFail(DeviceGone())
        #expect(player.status == .failed && statuses.values == [.failed])
        let error = try #require(player.error as? AVError)
        #expect(error.code == .mediaServicesWereReset)
        #expect(error.localizedDescription.contains("unplugged"))
        #expect(player.rate == 0 && player.timeControlStatus == .paused)
        await until("the seek under way hears of it") { !seeks.values.isEmpty }
        #expect(seeks.values.count == 1)

        player.play()
        #expect(player.rate == 0 && player.timeControlStatus == .paused, "a failed player does not play again")
        player.soundDidFail(DeviceGone())
        #expect(statuses.values == [.failed], "it fails once")
        #expect(item.status == .readyToPlay, "the item itself did not fail")
        observation.invalidate()
    }
}
