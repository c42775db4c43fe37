import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// A movie with a hundred tracks (`hundred-tracks.mp4`: 0.5 s of video and 100 enabled mono AAC
/// tracks of 0.25 s each, at 8 kHz): inspected, read track by track and mixed, exported (all hundred
/// mixed) and played.
// One test at a time: each opens the file (a demuxer of 101 streams) for every track it reads, and all
// of them at once starved the other tests' loads in CI's stress run beside two busy processes.
@Suite("A movie with a hundred tracks", .serialized)
struct ManyTracksTests {
    static let url = URL(fileURLWithPath: Fixtures.path("hundred-tracks.mp4"))

    /// FFmpeg's muxer puts each enabled track in an alternate group of its own (they play together,
    /// not instead of one another), so the audible group is the first track's group, of one option.
    @Test("its tracks load, each enabled and in a group of its own")
    func inspected() async throws {
        let asset = AVURLAsset(url: Self.url)
        let tracks = try await asset.load(.tracks)
        #expect(tracks.count == 101 && tracks.filter { $0.mediaType == .audio }.count == 100)
        let enabled = try await tracks.asyncMap { try await $0.load(.isEnabled) }
        #expect(enabled.allSatisfy { $0 })
        let group = try await asset.loadMediaSelectionGroup(for: .audible)
        #expect(group?.options.count == 1 && group?.options.first?.mediaType == .audio)
    }

    /// Ten of the tracks (every tenth) through outputs of their own, and all hundred through one mix.
    /// Each output opens the file for itself (a demuxer of 101 streams), and its first job waits in the
    /// shared engine queue: a hundred of them at once held up every other test's loads past their 10 s
    /// waits in the stress run beside two busy processes (see the note on issue 20).
    @Test("a reader decodes ten of the hundred sound tracks at once, and mixes all hundred")
    func readAndMixed() async throws {
        let asset = AVURLAsset(url: Self.url)
        let audio = try await asset.loadTracks(withMediaType: .audio)
        let reader = try AVAssetReader(asset: asset)
        let outputs = stride(from: 0, to: audio.count, by: 10).map {
            AVAssetReaderTrackOutput(track: audio[$0], outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM])
        }
        for output in outputs {
            #expect(reader.canAdd(output))
            reader.add(output)
        }
        #expect(reader.startReading())
        var frames: [Int] = []
        for output in outputs {
            frames.append(try await AssetReaderTests.drain(output).reduce(0) { $0 + $1.numSamples })
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        // 0.25 s at 8 kHz in every track.
        #expect(frames.count == 10 && frames.allSatisfy { $0 == 2000 }, "\(frames)")

        let mixing = try AVAssetReader(asset: asset)
        let mix = AVAssetReaderAudioMixOutput(audioTracks: audio, audioSettings: nil)
        mixing.add(mix)
        #expect(mixing.startReading())
        let mixed = try await AssetReaderTests.drain(mix)
        #expect(mixing.status == .completed, "\(String(describing: mixing.error))")
        let format = try #require(mixed.first?.formatDescription?.audioStreamBasicDescription)
        #expect(format.mSampleRate == 8000 && format.mChannelsPerFrame == 1)
        // The mix ends with its tracks, a quarter of the movie's half second.
        #expect(mixed.reduce(0) { $0 + $1.numSamples } == 2000)
        #expect(try AssetReaderTests.peak(mixed) > 0.5)
    }

    @Test("an export mixes the hundred tracks into one")
    func exportedMixed() async throws {
        let asset = AVURLAsset(url: Self.url)
        let (mixed, _) = try await ExportTests.export(asset, preset: AVAssetExportPresetLowQuality, name: "hundred-mixed.mp4")
        let tracks = try await AVURLAsset(url: mixed).load(.tracks)
        #expect(tracks.map(\.mediaType) == [.video, .audio])
        let sound = try #require(tracks.last)
        #expect(abs(try await sound.load(.timeRange).duration.seconds - 0.25) < 0.05, "the mix ends with its tracks")
    }

    @Test("a player plays it to the end")
    func played() async throws {
        let item = AVPlayerItem(url: Self.url)
        let player = AVPlayer(playerItem: item)
        // No sound card in tests: ALSA's null device (the default device may be a test's PulseAudio server).
        player.audioDevice = AudioWork.AudioUsageTests.nullDevice
        let clock = CMClock.manual()
        player.sourceClock = clock
        try await PlayerTests.ready(item, in: player)
        #expect(item.status == .readyToPlay, "\(String(describing: item.error))")
        player.play()
        for _ in 0..<8 { clock.advance(by: PlayerTests.t(0.1)) }
        await until("player.rate == 0") { player.rate == 0 }
        #expect(player.rate == 0 && player.currentTime() == item.duration, "played to the end: \(player.currentTime().seconds)")
    }
}
