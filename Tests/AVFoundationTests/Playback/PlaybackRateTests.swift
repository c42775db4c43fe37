import AVFoundation
import CoreMedia
import FixtureSupport
import Foundation
import Testing

/// The player's sound at rates other than 1, as ``AVPlayerItem/audioTimePitchAlgorithm`` says: the pitch
/// kept from 0.5 to 2 (the default algorithm, `.timeDomain`, and `.spectral`), following the rate with
/// `.varispeed`, and silence outside 0.5 ... 2. The sound goes to ALSA's file device, which keeps what
/// is played, and the tests read the samples back. The player runs on a manual clock: the renderer keeps a fifth of a
/// second of item time ahead of the player's time, so moving the clock to just before the end lets it
/// write the whole item, exactly, however loaded the machine.
///
/// The fixture is sine-f32.wav: one second at 44.1 kHz, left a 440 Hz sine, right an 880 Hz one, both
/// of amplitude 0.5 (read at the device's 48 kHz).
@Suite("Playback rate and pitch", .serialized)
struct PlaybackRateTests {
    static let sine = Fixtures.audioPath("sine-f32.wav")

    /// What a run wrote: the samples the device's file holds (stereo, interleaved) and the frames the
    /// renderer counted.
    struct Run {
        var samples: [Float]
        var framesWritten: Int
        var frames: Int { samples.count / 2 }
        var left: [Float] { Swift.stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }
    }

    /// Waits until the renderer has written at least `frames` frames and then writes no more for a
    /// tenth of a second (its job has ended, or it waits for the clock).
    static func writingSettles(_ player: AVPlayer, atLeast frames: Int, _ what: String) async {
        await until("\(what): at least \(frames) frames written, then no more (\(player.audioFramesWritten) written)") {
            let before = player.audioFramesWritten
            guard before >= frames else { return false }
            try? await Task.sleep(for: .milliseconds(100))
            return player.audioFramesWritten == before
        }
    }

    /// Plays `item` at `rate` on a manual clock into a file device, its algorithm set to `algorithm`
    /// (nil: the default): moves the clock on to 0.9 s of item time while the sound written keeps
    /// ahead of it, so the renderer writes the whole second, and waits until it has written about `expected` frames (less a block) and stopped.
    /// `midway`, when given, runs with the clock still at 0 once the first fifth of a second is written
    /// (the renderer waits for the clock then). Returns what was written, once the player is gone and
    /// the device's file holds it.
    static func play(_ item: AVPlayerItem, rate: Float, algorithm: AVAudioTimePitchAlgorithm? = nil, expected: Int,
                     midway: (@Sendable (AVPlayerItem) -> Void)? = nil) async throws -> Run {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-rate-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var written = 0
        do {
            if let algorithm { item.audioTimePitchAlgorithm = algorithm }
            let player = AVPlayer(playerItem: item)
            player.audioDevice = AudioOutputTests.fileDevice(path)
            let clock = CMClock.manual()
            player.sourceClock = clock
            try await PlayerTests.ready(item, in: player)
            try await PlayerTests.readAhead(item)
            player.rate = rate
            #expect(player.timeControlStatus == .playing)
            if let midway {
                // A fifth of a second of item time ahead of the clock, less a block.
                await writingSettles(player, atLeast: Int(0.2 / Double(rate) * 48_000) - 1_100, "the first fifth of a second")
                midway(item)
            }
            // To 0.9 s of item time, 40 ms of the clock at a time, the clock waiting while the sound
            // written is less than a tenth of a second of item time ahead of it (the renderer keeps a
            // fifth ahead): one jump of the clock could find the renderer not yet started on a loaded
            // machine (seen under ThreadSanitizer in CI: the sound then started at 0.9 s), and what it
            // writes must not depend on the machine's load.
            let step = 0.04 * Double(rate)
            let keepingUp = { Double(player.audioFramesWritten) / 48_000 * Double(rate) >= min(clock.time.seconds * Double(rate) + 0.1, 1) }
            await PlayerTests.advance(player, on: clock, until: "the player's time at 0.9 s (rate \(rate))", keepingUp: keepingUp) {
                player.currentTime().seconds >= 0.9 - step / 2
            }
            let time = player.currentTime().seconds
            #expect(time >= 0.9 - step / 2 && time < 0.9 + step, "the player's time runs at the rate: \(time)")
            await writingSettles(player, atLeast: expected - 1_100, "the whole item at rate \(rate)")
            written = player.audioFramesWritten
            // Then to the end: the player stops there.
            clock.advance(by: CMTime(seconds: 0.2 / Double(rate), preferredTimescale: 48_000))
            await until("the player pausing at the end (rate \(player.rate))") { player.rate == 0 }
            #expect(player.currentTime() == item.duration)
        }
        // The player is gone: its renderer lets the device go, and ALSA's file device writes out what
        // it holds.
        let samples = await AudioOutputTests.samples(at: path, atLeast: written, "the \(written) frames written")
        return Run(samples: samples, framesWritten: written)
    }

    static func sineItem() -> AVPlayerItem { AVPlayerItem(url: URL(fileURLWithPath: sine)) }

    // MARK: - Measures

    /// `samples` Hann-windowed.
    static func windowed(_ samples: ArraySlice<Float>) -> [Double] {
        let n = samples.count
        return samples.enumerated().map { i, x in Double(x) * (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(max(1, n - 1)))) }
    }

    /// The power of `frequency` in `samples` (already windowed) at 48 kHz (Goertzel).
    static func power(of frequency: Double, in samples: [Double]) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / 48_000)
        var (s1, s2) = (0.0, 0.0)
        for x in samples {
            let s = x + coefficient * s1 - s2
            (s2, s1) = (s1, s)
        }
        return s1 * s1 + s2 * s2 - coefficient * s1 * s2
    }

    /// The frequency in `range` where `samples` (already windowed) peak, searched in `step`s.
    static func peak(in samples: [Double], _ range: ClosedRange<Double>, by step: Double) -> Double {
        var best = range.lowerBound, bestPower = -1.0
        for f in Swift.stride(from: range.lowerBound, through: range.upperBound, by: step) {
            let p = power(of: f, in: samples)
            if p > bestPower { (best, bestPower) = (f, p) }
        }
        return best
    }

    /// The frequency (100 Hz to 2 kHz, to a twentieth of a hertz) where `samples` at 48 kHz peak: found
    /// roughly in the middle tenth of a second (10 Hz bins), then finely over the whole.
    /// The same, worked out on a thread of its own (millions of multiply-adds: under a sanitizer they
    /// would hold a thread of the cooperative pool for seconds).
    static func peakFrequency(of samples: ArraySlice<Float>) async throws -> Double {
        try await onOwnThread { peakFrequencyHere(of: samples) }
    }

    static func peakFrequencyHere(of samples: ArraySlice<Float>) -> Double {
        let centre = samples.startIndex + samples.count / 2
        let short = windowed(samples[max(samples.startIndex, centre - 2_400)..<min(samples.endIndex, centre + 2_400)])
        let rough = peak(in: short, 100...2_000, by: 4)
        let whole = windowed(samples)
        let closer = peak(in: whole, (rough - 12)...(rough + 12), by: 0.5)
        return peak(in: whole, (closer - 0.5)...(closer + 0.5), by: 0.05)
    }

    /// `samples`' middle three quarters (the edges of a run are left out).
    static func middle(_ samples: [Float]) -> ArraySlice<Float> {
        samples[(samples.count / 8)..<(samples.count * 7 / 8)]
    }

    /// The root mean square of `samples`.
    static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, samples.count))).squareRoot()
    }

    // MARK: - Tests

    @Test func theDefaultAlgorithmIsTimeDomainAndUnknownOnesAreRefused() {
        let item = Self.sineItem()
        #expect(item.audioTimePitchAlgorithm == .timeDomain)
        item.audioTimePitchAlgorithm = .varispeed
        #expect(item.audioTimePitchAlgorithm == .varispeed)
        // Apple's raises an exception; Avocet keeps what was set.
        item.audioTimePitchAlgorithm = AVAudioTimePitchAlgorithm("Chipmunk")
        #expect(item.audioTimePitchAlgorithm == .varispeed)
        for algorithm: AVAudioTimePitchAlgorithm in [.spectral, .lowQualityZeroLatency, .timeDomain] {
            item.audioTimePitchAlgorithm = algorithm
            #expect(item.audioTimePitchAlgorithm == algorithm)
        }
    }

    /// At rate 1 the sound is the file's, as before: the written samples are the sines themselves (at
    /// 48 kHz), a second of them.
    @Test func rateOnePlaysTheSoundAsItIs() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 1, expected: 48_000)
        #expect(abs(run.framesWritten - 48_000) < 1_100 && run.frames == run.framesWritten, "\(run.framesWritten) written, \(run.frames) in the file")
        let signal = Fixtures.audioSignal(of: "sine-f32.wav")
        var worst = 0.0
        for frame in 1_000..<min(47_000, run.frames) {
            for channel in 0..<2 {
                worst = max(worst, abs(Double(run.samples[2 * frame + channel]) - signal.value(channel: channel, frame: frame, rate: 48_000)))
            }
        }
        #expect(worst < 0.01, "the written sound strays \(worst) from the sines")
        let peakLeft = try await Self.peakFrequency(of: Self.middle(run.left))
        #expect(abs(peakLeft - 440) < 2)
    }

    /// At 1.5 with the default algorithm the second plays in two thirds of a second at its own pitch.
    @Test func rateOneAndAHalfKeepsThePitch() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 1.5, expected: 32_000)
        #expect(abs(run.framesWritten - 32_000) < 1_100 && run.frames == run.framesWritten, "\(run.framesWritten) written, \(run.frames) in the file")
        let peak = try await Self.peakFrequency(of: Self.middle(run.left))
        #expect(abs(peak - 440) < 3, "left peaks at \(peak) Hz")
        let right = Swift.stride(from: 1, to: run.samples.count, by: 2).map { run.samples[$0] }
        let rightPeak = try await Self.peakFrequency(of: Self.middle(right))
        #expect(abs(rightPeak - 880) < 3, "right peaks at \(rightPeak) Hz")
        // A sine's amplitude stays: the windows line up, so they do not cancel.
        #expect(Self.rms(Self.middle(run.left)) > 0.3, "rms \(Self.rms(Self.middle(run.left)))")
    }

    /// With `.varispeed` at 1.5 the pitch follows the rate, as on a tape: 440 Hz becomes 660.
    @Test func varispeedLetsThePitchFollowTheRate() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 1.5, algorithm: .varispeed, expected: 32_000)
        #expect(abs(run.framesWritten - 32_000) < 1_100 && run.frames == run.framesWritten, "\(run.framesWritten) written, \(run.frames) in the file")
        let peak = try await Self.peakFrequency(of: Self.middle(run.left))
        #expect(abs(peak - 660) < 3, "left peaks at \(peak) Hz")
    }

    /// At 0.5 with `.spectral` the second plays in two, at its own pitch.
    @Test func halfSpeedKeepsThePitch() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 0.5, algorithm: .spectral, expected: 96_000)
        #expect(abs(run.framesWritten - 96_000) < 1_100 && run.frames == run.framesWritten, "\(run.framesWritten) written, \(run.frames) in the file")
        let peak = try await Self.peakFrequency(of: Self.middle(run.left))
        #expect(abs(peak - 440) < 3, "left peaks at \(peak) Hz")
        #expect(Self.rms(Self.middle(run.left)) > 0.3, "rms \(Self.rms(Self.middle(run.left)))")
    }

    /// At 3 (fast forward) the sound is silent, written at the device's pace for the item time played
    /// (a third of a second for the second), while the player's time runs on to the end.
    @Test func fastForwardIsSilent() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 3, expected: 16_000)
        #expect(abs(run.framesWritten - 16_000) < 1_100 && run.frames == run.framesWritten, "\(run.framesWritten) written, \(run.frames) in the file")
        let loudest = run.samples.reduce(0) { max($0, abs($1)) }
        #expect(loudest < 1e-4, "the loudest sample: \(loudest)")
    }

    /// Below 0.5 (slow motion) the sound is silent too, whatever the algorithm.
    @Test func slowMotionIsSilent() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 0.25, algorithm: .varispeed, expected: 192_000)
        #expect(abs(run.framesWritten - 192_000) < 1_100 && run.frames == run.framesWritten, "\(run.framesWritten) written, \(run.frames) in the file")
        let loudest = run.samples.reduce(0) { max($0, abs($1)) }
        #expect(loudest < 1e-4, "the loudest sample: \(loudest)")
    }

    /// The stretched sound stays on the item's time: a composition of the sine silenced by its audio
    /// mix from 0.5 s falls silent at 0.5 / rate s of the sound written (within 40 ms), at 1.5 and
    /// at 0.5. (The heard time a device that keeps time reports is worked out from the frames written
    /// in the same way.)
    @Test func theStretchedSoundStaysOnTheItemTime() async throws {
        let source = try #require(try await AVURLAsset(url: URL(fileURLWithPath: Self.sine)).loadTracks(withMediaType: .audio).first)
        for rate in [1.5, 0.5] {
            let composition = AVMutableComposition()
            let track = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 1))
            try track.insertTimeRange(CMTimeRange(start: .zero, duration: PlayerTests.t(1)), of: source, at: .zero)
            let volumes = AVMutableAudioMixInputParameters(track: track)
            volumes.setVolume(1, at: .zero)
            volumes.setVolume(0, at: PlayerTests.t(0.5))
            let mix = AVMutableAudioMix()
            mix.inputParameters = [volumes]
            let item = AVPlayerItem(asset: composition)
            item.audioMix = mix
            let expected = Int(48_000 / rate)
            let run = try await Self.play(item, rate: Float(rate), expected: expected)
            #expect(abs(run.framesWritten - expected) < 1_100, "rate \(rate): \(run.framesWritten) written")
            // Where the sound falls silent: the first 5 ms stretch below a tenth of the sine's level
            // after which it stays there.
            let left = run.left
            let stretch = 240
            let quiet = Swift.stride(from: 0, to: left.count - stretch, by: stretch).map { Self.rms(left[$0..<($0 + stretch)]) < 0.035 }
            let lastLoud = quiet.lastIndex(of: false) ?? -1
            let silentFrom = (lastLoud + 1) * stretch
            let edge = Int(0.5 / rate * 48_000)
            #expect(abs(silentFrom - edge) < 1_920, "rate \(rate): silent from frame \(silentFrom), the item's 0.5 s is frame \(edge)")
            #expect(Self.rms(left[(edge / 4)..<(edge * 3 / 4)]) > 0.3, "rate \(rate): loud before")
        }
    }

    /// Changing the algorithm while playing takes effect with the next sound written: varispeed's
    /// 660 Hz for the first fifth of a second of item time, then 440 Hz with `.timeDomain`.
    @Test func changingTheAlgorithmWhilePlayingTakesEffect() async throws {
        let run = try await Self.play(Self.sineItem(), rate: 1.5, algorithm: .varispeed, expected: 32_000) { item in
            item.audioTimePitchAlgorithm = .timeDomain
        }
        #expect(abs(run.framesWritten - 32_000) < 1_100, "\(run.framesWritten) written")
        // 0.2 s of item time at 1.5 is 6400 frames, less up to a block.
        let before = try await Self.peakFrequency(of: run.left[500..<5_000])
        let after = try await Self.peakFrequency(of: run.left[9_000..<min(run.left.count, 30_000)])
        #expect(abs(before - 660) < 5 && abs(after - 440) < 3, "before \(before) Hz, after \(after) Hz")
    }
}
