import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// The player's sound reaching an audio device: ALSA's file device keeps what is played, so the test
/// reads the samples back (no sound card needed).
@Suite("Audio output", .serialized)
struct AudioOutputTests {
    static func fileDevice(_ path: String) -> (name: String, configuration: String?) {
        ("avocet", #"pcm.avocet { type file slave { pcm { type null } } file "\#(path)" format raw }"#)
    }

    /// Plays av.mp4 for a while on the host clock into a file device; returns the samples written.
    static func play(muted: Bool) async throws -> [Float] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
            let player = AVPlayer(playerItem: item)
            player.audioDevice = fileDevice(path)
            player.isMuted = muted
            try await PlayerTests.ready(item)
            player.play()
            try await PlayerTests.eventually { player.audioFramesWritten > 24_000 }
            player.pause()
            #expect(player.audioFramesWritten > 24_000, "half a second of sound written: \(player.audioFramesWritten)")
            // Kept a fifth of a second ahead of the player's time, not the whole file at once.
            #expect(Double(player.audioFramesWritten) / 48_000 < player.currentTime().seconds + 0.5)
        }
        try await Task.sleep(nanoseconds: 100_000_000)   // the renderer thread lets the device go
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func soundReachesTheDevice() async throws {
        let samples = try await Self.play(muted: false)
        #expect(samples.count >= 24_000 * 2)
        let rms = (samples.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, samples.count))).squareRoot()
        #expect(rms > 0.01, "\(rms)")
    }

    @Test func mutedSoundIsSilent() async throws {
        let samples = try await Self.play(muted: true)
        #expect(samples.count >= 24_000 * 2 && samples.allSatisfy { $0 == 0 })
    }
}
