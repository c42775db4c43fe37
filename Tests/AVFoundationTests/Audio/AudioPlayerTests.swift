import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// What a player's delegate was told, when (on the device clock) and on which thread.
final class AudioPlayerEvents: NSObject, AVAudioPlayerDelegate, @unchecked Sendable {
    // @unchecked Sendable: the fields are touched only under `lock`.
    struct Finish {
        var flag: Bool
        var host: Double
        var onMainThread: Bool
        var currentTime: Double
        var isPlaying: Bool
    }

    private let lock = NSLock()
    private var finishes: [Finish] = []
    private var errors: [NSError?] = []

    var finished: [Finish] { lock.withLock { finishes } }
    var decodeErrors: [NSError?] { lock.withLock { errors } }

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        let finish = Finish(flag: flag, host: player.deviceCurrentTime, onMainThread: Thread.isMainThread,
                            currentTime: player.currentTime, isPlaying: player.isPlaying)
        lock.withLock { finishes.append(finish) }
    }

    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {
        lock.withLock { errors.append(error.map { $0 as NSError }) }
    }
}

/// AVAudioPlayer against the audio fixtures, on ALSA's null device (no sound card: the host clock
/// paces it) or its file device (which keeps the samples played, read back): the end and its delegate
/// call after the file's duration, the time while playing, paused and moved, loops, stop, volume, pan,
/// rate, the meters' levels of the 0.5 sine, play(atTime:), the initializers' errors, a damaged file's
/// decoding error, players from data, and no thread outliving its player.
@Suite("Audio player", .serialized)
struct AudioPlayerTests {
    /// ALSA's null device, defined on the spot: it takes samples at once, so the host clock paces.
    static let nullDevice = (name: "avocetnull", configuration: Optional("pcm.avocetnull { type null }"))

    /// ALSA's file device writing raw stereo Float32 to `path`.
    static func fileDevice(_ path: String) -> (name: String, configuration: String?) {
        ("avocetfile", #"pcm.avocetfile { type file slave { pcm { type null } } file "\#(path)" format raw }"#)
    }

    /// A player of the audio fixture `name` on the null device, telling `events`.
    static func player(_ name: String, events: AudioPlayerEvents? = nil) throws -> AVAudioPlayer {
        let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: Fixtures.audioPath(name)))
        player.audioDevice = nullDevice
        player.delegate = events
        return player
    }

    /// Plays `player` to its end; returns the device-clock seconds from play() to the delegate's call.
    static func playToEnd(_ player: AVAudioPlayer, _ events: AudioPlayerEvents, timeout: Double = 10) async throws -> Double {
        let start = player.deviceCurrentTime
        #expect(player.play())
        #expect(player.isPlaying)
        try #require(await until("the delegate told of the end", timeout: timeout) { !events.finished.isEmpty })
        return try #require(events.finished.first).host - start
    }

    /// The samples (stereo Float32) the file device at `path` holds once it holds `frames` frames
    /// (ALSA's file device writes out when the player's thread lets it go).
    static func samples(at path: String, atLeast frames: Int) async -> [Float] {
        await until("the device's file holding \(frames) frames") {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) >= frames * 8
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The root mean square of every `stride`-th sample from `offset`.
    static func rms(_ samples: [Float], offset: Int, stride: Int) -> Double {
        let picked = Swift.stride(from: offset, to: samples.count, by: stride).map { Double(samples[$0]) }
        return (picked.reduce(0) { $0 + $1 * $1 } / Double(max(1, picked.count))).squareRoot()
    }

    /// The players' threads alive, as the system lists them (/proc/self/task/*/comm).
    static func playerThreadsInProcess() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.trimmingCharacters(in: .whitespacesAndNewlines) == "avocet.aplayer"
        }.count
    }

    /// A temporary path for a file device.
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("avocet-player-\(UUID().uuidString).raw").path
    }

    // MARK: - Playing to the end

    @Test func playingAShortFileToItsEndTellsTheDelegateAfterItsDuration() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-s16.wav", events: events)
        #expect(abs(player.duration - 1.0) < 0.001, "the file holds 44100 frames at 44100 Hz: \(player.duration)")
        let elapsed = try await Self.playToEnd(player, events)
        let finish = try #require(events.finished.first)
        #expect(finish.flag, "played to the end")
        #expect(elapsed >= 0.97, "the end comes after the file's second of sound, not before: \(elapsed)")
        #expect(elapsed < 1.0 + 1.5 * TestTiming.scale, "and about then: \(elapsed)")
        #expect(!finish.onMainThread, "the delegate is called on the player's own queue")
        #expect(!finish.isPlaying && finish.currentTime == 0, "stopped, back at the start: \(finish.currentTime)")
        // 44100 frames at 44.1 kHz are 48000 at the device's 48 kHz (the resampler's edges aside).
        #expect(abs(player.audioFramesWritten - 48_000) < 200, "\(player.audioFramesWritten) frames played")
        let threads = player.liveThreadCounter
        await until("the player's thread ending at the end") { threads() == 0 }
        #expect(events.finished.count == 1 && events.decodeErrors.isEmpty)
    }

    @Test func aPlayerMadeFromDataPlays() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.audioPath("sine-s16.wav")))
        let player = try AVAudioPlayer(data: data, fileTypeHint: AVFileType.wav.rawValue)
        player.audioDevice = Self.nullDevice
        let events = AudioPlayerEvents()
        player.delegate = events
        #expect(player.data == data && player.url == nil)
        #expect(player.numberOfChannels == 2 && abs(player.duration - 1) < 0.001)
        let elapsed = try await Self.playToEnd(player, events)
        #expect(events.finished.first?.flag == true)
        #expect(elapsed >= 0.97, "\(elapsed)")
        #expect(abs(player.audioFramesWritten - 48_000) < 200, "\(player.audioFramesWritten) frames played")
    }

    @Test func theFactsOfTheSound() throws {
        let player = try Self.player("sine-s16.wav")
        #expect(player.url == URL(fileURLWithPath: Fixtures.audioPath("sine-s16.wav")) && player.data == nil)
        #expect(player.numberOfChannels == 2)
        #expect(player.format.sampleRate == 44_100 && player.format.channelCount == 2)
        #expect(player.format.commonFormat == .pcmFormatInt16, "the file's own 16-bit samples")
        #expect((player.settings[AVFormatIDKey] as? NSNumber)?.uint32Value == kAudioFormatLinearPCM)
        #expect((player.settings[AVSampleRateKey] as? NSNumber)?.doubleValue == 44_100)
        #expect((player.settings[AVNumberOfChannelsKey] as? NSNumber)?.intValue == 2)
        #expect((player.settings[AVLinearPCMBitDepthKey] as? NSNumber)?.intValue == 16)
        let mp3 = try Self.player("sine.mp3")
        #expect(mp3.format.streamDescription.pointee.mFormatID == kAudioFormatMPEGLayer3)
        #expect(mp3.numberOfChannels == 2 && mp3.duration > 0.99 && mp3.duration < 1.1, "\(mp3.duration)")
        let surround = try Self.player("sine-5.1.wav")
        #expect(surround.numberOfChannels == 6 && abs(surround.duration - 0.5) < 0.001)
        #expect(!player.isPlaying && player.currentTime == 0 && player.volume == 1 && player.pan == 0 && player.rate == 1)
        #expect(!player.enableRate && player.numberOfLoops == 0 && !player.isMeteringEnabled)
    }

    // MARK: - Time

    @Test func theTimeAdvancesWhilePlayingStaysWhilePausedAndMovesWhenSet() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-s16.wav", events: events)
        // Looping, so that a test held up on a busy machine does not meet the end.
        player.numberOfLoops = -1
        #expect(player.play())
        await until("currentTime passing 0.2 s") { player.currentTime > 0.2 }
        player.pause()
        #expect(!player.isPlaying)
        let paused = player.currentTime
        #expect(paused > 0.2 && paused < 1, "\(paused)")
        let pausedAt = player.deviceCurrentTime
        await until("a fifth of a second passing") { player.deviceCurrentTime > pausedAt + 0.2 }
        #expect(player.currentTime == paused, "paused, the time stands: \(player.currentTime) vs \(paused)")
        player.currentTime = 0.7
        #expect(player.currentTime == 0.7, "set while paused, it is where it was set")
        #expect(player.play())
        await until("currentTime passing 0.75 s") { player.currentTime > 0.75 }
        #expect(player.isPlaying)
        let before = player.deviceCurrentTime
        player.currentTime = 0.1
        let moved = player.currentTime
        let after = player.deviceCurrentTime
        #expect(moved >= 0.1 && moved <= 0.1 + (after - before) + 0.001, "set while playing, it goes on from there: \(moved)")
        await until("currentTime passing 0.3 s") { player.currentTime > 0.3 }
        player.currentTime = 5
        #expect(player.currentTime <= player.duration, "a time past the end is the end")
        player.stop()
        #expect(events.finished.isEmpty)
    }

    @Test func playAtATimeStartsThen() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-s16.wav", events: events)
        let start = player.deviceCurrentTime + 0.5
        #expect(player.play(atTime: start))
        #expect(player.isPlaying, "waiting for its time, it counts as playing")
        #expect(!player.play(atTime: start + 1), "a playing player cannot start at another time")
        #expect(!player.play(atTime: .nan))
        await until("the device clock reaching 0.1 s before the start") { player.deviceCurrentTime > start - 0.1 }
        let waiting = player.currentTime
        if player.deviceCurrentTime < start {
            #expect(waiting == 0, "before its time, the player stays at the start: \(waiting)")
        }
        try #require(await until("the delegate told of the end") { !events.finished.isEmpty })
        let end = try #require(events.finished.first).host
        #expect(end - start >= 0.97, "the second of sound starts at the time given: \(end - start)")
        #expect(end - start < 1.0 + 1.5 * TestTiming.scale, "\(end - start)")
    }

    // MARK: - Loops and stop

    @Test func oneLoopPlaysTheSoundTwice() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-s16.wav", events: events)
        player.numberOfLoops = 1
        let elapsed = try await Self.playToEnd(player, events, timeout: 15)
        #expect(events.finished.first?.flag == true)
        #expect(elapsed >= 1.95, "twice the second of sound: \(elapsed)")
        #expect(elapsed < 2.0 + 1.5 * TestTiming.scale, "\(elapsed)")
        #expect(abs(player.audioFramesWritten - 96_000) < 400, "\(player.audioFramesWritten) frames played")
        #expect(events.finished.count == 1, "told once, at the end of the last loop")
    }

    @Test func loopingForeverGoesOnUntilStopped() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-5.1.wav", events: events)
        player.numberOfLoops = -1
        let start = player.deviceCurrentTime
        #expect(player.play())
        // The file lasts half a second: 1.2 s of sound is the file played two times and more.
        await until("1.2 s of looping") { player.audioFramesWritten > Int(1.2 * 48_000) }
        #expect(player.isPlaying && player.currentTime < 0.5, "still playing, inside the file: \(player.currentTime)")
        // Decoding keeps at most a fifth of a second ahead of the host clock.
        #expect(player.deviceCurrentTime - start > 0.99, "\(player.deviceCurrentTime - start)")
        player.stop()
        #expect(!player.isPlaying)
        #expect(events.finished.isEmpty, "stop() is not an end")
    }

    @Test func stopDoesNotTellTheDelegateAndKeepsTheTime() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-s16.wav", events: events)
        // Looping while stop() is tested, so that a test held up on a busy machine does not meet the end.
        player.numberOfLoops = -1
        let start = player.deviceCurrentTime
        #expect(player.play())
        await until("currentTime passing 0.2 s") { player.currentTime > 0.2 }
        player.stop()
        let stopped = player.currentTime
        #expect(!player.isPlaying && stopped > 0.2 && stopped < 1, "stopped where it was: \(stopped)")
        let threads = player.liveThreadCounter
        await until("the player's thread ending at stop()") { threads() == 0 }
        // Long after the sound would have ended, with the delegate queue given time to deliver.
        await until("the file's end passing") { player.deviceCurrentTime > start + 1.5 }
        #expect(events.finished.isEmpty && events.decodeErrors.isEmpty, "stop() calls no delegate method")
        #expect(player.currentTime == stopped, "stop() does not reset the time")
        // Played again, it goes on from there to the end.
        player.numberOfLoops = 0
        let elapsed = try await Self.playToEnd(player, events)
        #expect(elapsed >= 0.97 - stopped && elapsed < 1.0 + 1.5 * TestTiming.scale, "\(elapsed)")
        #expect(events.finished.count == 1 && events.finished.first?.flag == true)
    }

    // MARK: - Volume, pan, rate

    /// Plays the audio fixture `name` to its end into a file device; returns the stereo samples
    /// written, once there are at least `frames`.
    static func playIntoFile(name: String = "sine-s16.wav", frames: Int = 47_000,
                             _ configure: (AVAudioPlayer) -> Void) async throws -> [Float] {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = AudioPlayerEvents()
        do {
            let player = try Self.player(name, events: events)
            player.audioDevice = fileDevice(path)
            configure(player)
            _ = try await playToEnd(player, events)
        }
        return await samples(at: path, atLeast: frames)
    }

    @Test func volumeZeroPlaysSilence() async throws {
        let loud = try await Self.playIntoFile { _ in }
        #expect(abs(Self.rms(loud, offset: 0, stride: 2) - 0.5 / 2.0.squareRoot()) < 0.02, "the 0.5 sine at volume 1")
        let silent = try await Self.playIntoFile { $0.volume = 0 }
        #expect(silent.count >= 47_000 * 2 && silent.allSatisfy { $0 == 0 }, "volume 0: every sample 0")
        let half = try await Self.playIntoFile { $0.volume = 0.5 }
        #expect(abs(Self.rms(half, offset: 0, stride: 2) - 0.25 / 2.0.squareRoot()) < 0.01, "volume 0.5 halves the sine")
    }

    @Test func panSendsTheSoundToOneSide() async throws {
        let left = try await Self.playIntoFile { $0.pan = -1 }
        #expect(abs(Self.rms(left, offset: 0, stride: 2) - 0.5 / 2.0.squareRoot()) < 0.02, "left as recorded")
        #expect(Self.rms(left, offset: 1, stride: 2) == 0, "right silent at pan -1")
        let right = try await Self.playIntoFile { $0.pan = 1 }
        #expect(Self.rms(right, offset: 0, stride: 2) == 0, "left silent at pan 1")
        #expect(abs(Self.rms(right, offset: 1, stride: 2) - 0.5 / 2.0.squareRoot()) < 0.02, "right as recorded")
    }

    @Test func aFadeReachesItsVolume() async throws {
        let player = try Self.player("sine-s16.wav")
        player.numberOfLoops = -1
        #expect(player.play())
        let start = player.deviceCurrentTime
        player.setVolume(0, fadeDuration: 0.4)
        let early = player.volume
        let read = player.deviceCurrentTime
        // Linear from 1 to 0 over 0.4 s: at most the time since the fade began has gone.
        #expect(early <= 1 && Double(early) >= 1 - (read - start) / 0.4 - 0.001, "the fade has just begun: \(early) after \(read - start) s")
        await until("the fade's end") { player.deviceCurrentTime > start + 0.45 }
        #expect(player.volume == 0)
        player.volume = 3
        #expect(player.volume == 1, "volumes above 1 are 1")
        player.stop()
    }

    @Test func rateTwoFinishesInHalfTheTime() async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player("sine-s16.wav", events: events)
        player.enableRate = true
        player.rate = 2
        let elapsed = try await Self.playToEnd(player, events)
        #expect(events.finished.first?.flag == true)
        #expect(elapsed >= 0.47, "a second of sound at twice the speed: \(elapsed)")
        #expect(elapsed < 0.5 + 1.5 * TestTiming.scale, "\(elapsed)")
        #expect(abs(player.audioFramesWritten - 24_000) < 200, "\(player.audioFramesWritten) frames played")
        // Without enableRate the rate is kept but not used.
        let plain = AudioPlayerEvents()
        let other = try Self.player("sine-s16.wav", events: plain)
        other.rate = 2
        #expect(other.rate == 2)
        let normal = try await Self.playToEnd(other, plain)
        #expect(normal >= 0.97, "\(normal)")
    }

    /// The amplitude of `frequency` in every `stride`-th sample from `offset` of `samples` at 48 kHz
    /// (Goertzel over the run): about 0.5 for a sine of amplitude 0.5 at that frequency, near 0 for
    /// one an octave away.
    static func amplitude(of frequency: Double, in samples: [Float], offset: Int, stride: Int) -> Double {
        var re = 0.0, im = 0.0, n = 0
        let w = 2 * Double.pi * frequency / 48_000
        for i in Swift.stride(from: offset, to: samples.count, by: stride) {
            re += Double(samples[i]) * cos(w * Double(n))
            im -= Double(samples[i]) * sin(w * Double(n))
            n += 1
        }
        return 2 * (re * re + im * im).squareRoot() / Double(max(1, n))
    }

    @Test func aChangedRateKeepsThePitch() async throws {
        for rate: Float in [2, 0.5] {
            let path = Self.temporaryPath()
            defer { try? FileManager.default.removeItem(atPath: path) }
            let events = AudioPlayerEvents()
            let expected = Int((48_000 / Double(rate)).rounded())
            do {
                let player = try Self.player("sine-s16.wav", events: events)
                player.audioDevice = Self.fileDevice(path)
                player.enableRate = true
                player.rate = rate
                let elapsed = try await Self.playToEnd(player, events)
                #expect(elapsed >= 0.97 / Double(rate), "rate \(rate): \(elapsed)")
                #expect(abs(player.audioFramesWritten - expected) < 200, "rate \(rate): \(player.audioFramesWritten) frames played")
            }
            let samples = await Self.samples(at: path, atLeast: expected - 200)
            // Left is the 440 Hz sine, right the 880 Hz one, whatever the rate (varispeed would move
            // them to 880 and 1760 at rate 2, 220 and 440 at 0.5). The edges of the run are left out.
            let middle = Array(samples[(samples.count / 8)..<(samples.count * 7 / 8)])
            let left440 = Self.amplitude(of: 440, in: middle, offset: 0, stride: 2)
            let left880 = Self.amplitude(of: 880, in: middle, offset: 0, stride: 2)
            let shifted = Self.amplitude(of: 440 * Double(rate), in: middle, offset: 0, stride: 2)
            let right880 = Self.amplitude(of: 880, in: middle, offset: 1, stride: 2)
            #expect(left440 > 0.4 && left880 < 0.05 && shifted < 0.05, "rate \(rate): left 440 Hz \(left440), 880 Hz \(left880), \(440 * rate) Hz \(shifted)")
            #expect(right880 > 0.4, "rate \(rate): right 880 Hz \(right880)")
        }
    }

    @Test func monoAndSurroundFilesPlayOnBothSides() async throws {
        // Mono: the 1000 Hz sine on both sides, as recorded.
        let mono = try await Self.playIntoFile(name: "sine-mono.wav", frames: 47_000) { _ in }
        for side in 0..<2 {
            let level = Self.amplitude(of: 1_000, in: Array(mono[(mono.count / 8)..<(mono.count * 7 / 8)]), offset: side, stride: 2)
            #expect(abs(level - 0.5) < 0.02, "side \(side): \(level)")
        }
        // 5.1 (FL 300 Hz, FR 400, FC 500, LFE 100, BL 600, BR 700): FFmpeg's downmix puts the left
        // channels on the left, the right ones on the right, the centre on both.
        let surround = try await Self.playIntoFile(name: "sine-5.1.wav", frames: 23_500) { _ in }
        let middle = Array(surround[(surround.count / 8)..<(surround.count * 7 / 8)])
        let left = (Self.amplitude(of: 300, in: middle, offset: 0, stride: 2), Self.amplitude(of: 400, in: middle, offset: 0, stride: 2))
        let right = (Self.amplitude(of: 400, in: middle, offset: 1, stride: 2), Self.amplitude(of: 300, in: middle, offset: 1, stride: 2))
        let centre = (Self.amplitude(of: 500, in: middle, offset: 0, stride: 2), Self.amplitude(of: 500, in: middle, offset: 1, stride: 2))
        #expect(left.0 > 0.05 && left.1 < 0.01, "left: 300 Hz \(left.0), 400 Hz \(left.1)")
        #expect(right.0 > 0.05 && right.1 < 0.01, "right: 400 Hz \(right.0), 300 Hz \(right.1)")
        #expect(centre.0 > 0.03 && abs(centre.0 - centre.1) < 0.005, "centre on both sides: \(centre)")
    }

    // MARK: - Metering

    @Test func theMetersGiveTheSinesLevel() async throws {
        let player = try Self.player("sine-s16.wav")
        player.numberOfLoops = -1
        player.updateMeters()
        #expect(player.peakPower(forChannel: 0) == -160, "metering off")
        player.isMeteringEnabled = true
        #expect(player.play())
        // A sine of amplitude 0.5: peak 20 log10(0.5) = -6.02 dB, mean square 0.125 = -9.03 dB. Asked
        // until a reading covers sound heard (the first tenth of a second may not be all sound yet).
        await until("the meters reading the sine") {
            player.updateMeters()
            return abs(player.peakPower(forChannel: 0) - -6.02) < 0.3 && abs(player.averagePower(forChannel: 1) - -9.03) < 0.3
        }
        for channel in 0..<2 {
            let peak = player.peakPower(forChannel: channel)
            let average = player.averagePower(forChannel: channel)
            #expect(abs(peak - -6.02) < 0.3, "channel \(channel) peak \(peak)")
            #expect(abs(average - -9.03) < 0.3, "channel \(channel) average \(average)")
        }
        #expect(player.averagePower(forChannel: 2) == -160 && player.peakPower(forChannel: -1) == -160, "no such channel")
        player.stop()
        let stopped = player.deviceCurrentTime
        await until("the meters' tenth of a second passing") { player.deviceCurrentTime > stopped + 0.15 }
        player.updateMeters()
        #expect(player.peakPower(forChannel: 0) == -160 && player.averagePower(forChannel: 1) == -160, "nothing heard since stop()")
    }

    // MARK: - Errors

    static func status(_ body: () throws -> AVAudioPlayer) -> (domain: String, code: Int)? {
        do {
            _ = try body()
            return nil
        } catch {
            let ns = error as NSError
            return (ns.domain, ns.code)
        }
    }

    @Test func theInitializersThrowApplesErrors() throws {
        let missing = Self.status { try AVAudioPlayer(contentsOf: URL(fileURLWithPath: "/nonexistent/avocet.wav")) }
        #expect(missing?.domain == NSOSStatusErrorDomain && missing?.code == -43, "a missing file: \(String(describing: missing))")
        let text = Self.status { try AVAudioPlayer(contentsOf: URL(fileURLWithPath: Fixtures.audioPath("not-audio.wav"))) }
        #expect(text?.domain == NSOSStatusErrorDomain && text?.code == 1_954_115_647, "a line of text: 'typ?': \(String(describing: text))")
        let garbage = Self.status { try AVAudioPlayer(data: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })) }
        #expect(garbage?.code == 1_954_115_647, "garbage bytes: 'typ?': \(String(describing: garbage))")
        let empty = Self.status { try AVAudioPlayer(data: Data()) }
        #expect(empty?.code == 1_954_115_647, "no bytes: 'typ?': \(String(describing: empty))")
        let silentMovie = Self.status { try AVAudioPlayer(contentsOf: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4"))) }
        #expect(silentMovie?.code == 1_954_115_647, "a movie without sound: 'typ?': \(String(describing: silentMovie))")
        let web = try #require(URL(string: "http://127.0.0.1:1/a.mp3"))
        let remote = Self.status { try AVAudioPlayer(contentsOf: web) }
        #expect(remote?.code == -43, "not a local file")
        let movie = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: Fixtures.audioPath("sine-movie.mp4")))
        #expect(movie.numberOfChannels == 2, "a movie's sound plays")
    }

    @Test(arguments: [("sine-truncated.flac", 18_432), ("sine-truncated.mp3", 21_935)])
    func aTruncatedFileReportsADecodingError(name: String, decodedFrames: Int) async throws {
        let events = AudioPlayerEvents()
        let player = try Self.player(name, events: events)
        #expect(player.duration > 0.99, "the header states the whole second: \(player.duration)")
        let elapsed = try await Self.playToEnd(player, events)
        #expect(events.finished.first?.flag == false, "stopped by the damage")
        let error = try #require(events.decodeErrors.first ?? nil)
        #expect(error.domain == NSOSStatusErrorDomain && error.code == 1_685_348_671, "'dta?': \(error)")
        // FFmpeg decodes `decodedFrames` frames at 44.1 kHz before the damage, and they are played first.
        let sound = Double(decodedFrames) / 44_100
        #expect(elapsed >= sound - 0.05 && elapsed < sound + 1.5 * TestTiming.scale, "\(sound) s of sound, then the error: \(elapsed)")
        #expect(events.decodeErrors.count == 1 && events.finished.count == 1)
        #expect(!player.isPlaying && abs(player.currentTime - sound) < 0.1, "stopped where the sound ended: \(player.currentTime)")
    }

    // MARK: - Threads

    @Test func playersMadeAndDroppedLeaveNoThreadBehind() async throws {
        var counters: [@Sendable () -> Int] = []
        do {
            var players: [AVAudioPlayer] = []
            for i in 0..<24 {
                let player = try Self.player(i % 2 == 0 ? "sine-s16.wav" : "sine.mp3")
                // Looping for ever: a player that reached its end would end its thread before a busy
                // machine had started and named the last ones.
                player.numberOfLoops = -1
                if i % 3 == 0 { player.prepareToPlay() } else { player.play() }
                players.append(player)
                counters.append(player.liveThreadCounter)
            }
            #expect(counters.map { $0() } == Array(repeating: 1, count: 24), "a thread each")
            await until("the players' threads named in the system") { Self.playerThreadsInProcess() >= 24 }
            players.removeAll()
        }
        await until("every player's thread ending once its player is gone") { counters.allSatisfy { $0() == 0 } }
    }
}
