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

    /// The samples (stereo Float32) a file device at `path` holds, once it holds `frames` frames: the
    /// renderer thread lets the device go and ALSA's file device writes out what it holds, which a
    /// loaded machine (a sanitizer build) is slow to do.
    static func samples(at path: String, atLeast frames: Int, _ what: String) async -> [Float] {
        let bytes = frames * 2 * MemoryLayout<Float>.size
        await until("the device's file holding \(what)") {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) >= bytes
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
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
            try await PlayerTests.ready(item, in: player)
            player.play()
            await until("player.audioFramesWritten > 24_000") { player.audioFramesWritten > 24_000 }
            player.pause()
            #expect(player.audioFramesWritten > 24_000, "half a second of sound written: \(player.audioFramesWritten)")
            // Kept a fifth of a second ahead of the player's time, not the whole file at once.
            #expect(Double(player.audioFramesWritten) / 48_000 < player.currentTime().seconds + 0.5)
        }
        return await samples(at: path, atLeast: 24_000, "half a second of sound")
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

    /// A composition's sound: av.mp4's audio from 0.5 s placed at 0, silenced by the audio mix from
    /// 0.5 s; played to its end into the file device. Sound for the first half second, silence after.
    /// On a manual clock that moves only while the sound written is a tenth of a second ahead of it, so
    /// a loaded machine (a sanitizer build beside the suite) cannot leave the renderer behind the time
    /// and end the item with part of the sound unwritten.
    @Test func aCompositionPlaysItsSegmentsAtTheMixVolumes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = try #require(try await AVURLAsset(url: PlayerTests.url("av.mp4")).loadTracks(withMediaType: .audio).first)
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 1))
        try track.insertTimeRange(CMTimeRange(start: PlayerTests.t(0.5), duration: PlayerTests.t(1)), of: source, at: .zero)
        let volumes = AVMutableAudioMixInputParameters(track: track)
        volumes.setVolume(1, at: .zero)
        volumes.setVolume(0, at: PlayerTests.t(0.5))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [volumes]
        do {
            let item = AVPlayerItem(asset: composition)
            item.audioMix = mix
            let (player, clock) = try await PlayerTests.soundPlayer(item, writingTo: path)
            await PlayerTests.play(player, on: clock, until: "the end", keepingUp: PlayerTests.soundAhead(of: player, on: clock, upTo: 0.95)) { false }
            #expect(player.rate == 0)
            #expect(player.currentTime() == PlayerTests.t(1))
            #expect(player.audioFramesWritten >= 45_600, "the whole second written: \(player.audioFramesWritten) frames")
        }
        // The renderer thread lets the device go, and ALSA's file device writes out what it holds: wait
        // for the file to hold what was written (a sanitizer build is slow to get there).
        let samples = await Self.samples(at: path, atLeast: 45_600, "the second written")
        #expect(samples.count >= 45_600 * 2, "sound heard: \(samples.count / 2) frames")
        func rms(_ part: ArraySlice<Float>) -> Double { (part.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, part.count))).squareRoot() }
        let loud = rms(samples.prefix(2 * 23_000)), quiet = rms(samples.dropFirst(2 * 25_000))
        #expect(loud > 0.01 && quiet < 0.001, "loud \(loud), then quiet \(quiet)")
    }
}
