internal import MediaEngine
import Foundation
import Synchronization

/// Plays a player's sound: the mix of the current item's enabled audio tracks (a file's, or a
/// composition's segments, at the item's audio mix volumes) from the item's time, at the player's
/// rate, scaled by the volume (0 when muted), and written to the audio device (48 kHz stereo) on a
/// thread of its own (ALSA's writes block at the device's pace). It keeps about a fifth of a second
/// ahead of the player's time. What the mix takes (the facts, the files of a composition's segments)
/// is worked out on that thread too, once an item and mix.
///
/// The rate and the item's ``AVPlayerItem/audioTimePitchAlgorithm`` choose how the sound is made
/// (``Rendering``):
/// - at rate 1, the mix as it is;
/// - from 0.5 to 2 with ``AVAudioTimePitchAlgorithm/spectral``, ``AVAudioTimePitchAlgorithm/timeDomain``
///   or ``AVAudioTimePitchAlgorithm/lowQualityZeroLatency``: the mix read at its own speed and
///   stretched to the rate (MediaEngine's `TimeStretcher`, WSOLA, for all three), so the pitch stays;
///   it costs about 100 000 multiply-adds on this thread for each 16 ms of sound;
/// - from 0.5 to 2 with ``AVAudioTimePitchAlgorithm/varispeed``: the mix resampled at the rate, so the
///   pitch follows it, as on a tape;
/// - below 0.5 or above 2 (slow motion, fast forward), whatever the algorithm: silence, written at the
///   device's pace (Avocet's own choice, AVAudioPlayer's range; Apple's algorithms reach from 1/32
///   to 32). A device that keeps time still
///   plays the silence, so the player's time still follows it.
///
/// A change of the algorithm while playing takes effect with the next block written (what the
/// device already holds plays out first); a change of rate restarts the job (the player calls
/// ``play(_:from:rate:)`` again).
///
/// The device is ALSA's "default", or the one `AVOCET_AUDIO_DEVICE` names. Where none can be opened
/// (servers, CI) the player plays on the host clock alone and says so once on standard error. A device
/// that keeps time (a sound card, PulseAudio; not ALSA's null or file devices) reports what it has
/// played (`heardTime(atHost:)`), which the player's time follows.
final class AudioRenderer: Sendable {
    /// What the renderer is asked to play.
    struct Job: Sendable {
        var item: AVPlayerItem
        var from: CMTime
        var rate: Float
        var generation: Int
    }

    private struct State {
        var job: Job?
        var generation = 0
        var gain: Float = 1
        var stopped = false
        var heard: Heard?
    }

    /// What a device that keeps time has played of the current job: the item time being heard when the
    /// host clock read `host`.
    struct Heard: Sendable {
        var itemTime: Double
        var host: Double
        var rate: Double
    }

    /// The item time being heard now, from the device's last report (at most a fifth of a second old:
    /// a device that stopped taking samples stops this clock); nil without a device that keeps time,
    /// or before it has played anything of the current job.
    func heardTime(atHost host: Double) -> Double? {
        guard let heard = state.value.heard else { return nil }
        return heard.itemTime + min(max(0, host - heard.host), 0.2) * heard.rate
    }

    private let state = LockedState(State())
    private let wake = NSCondition()
    /// The player's item time, to keep pace with.
    private let clock: @Sendable () -> CMTime
    /// Told once when the device stops taking sound for good (ALSA could not recover it).
    private let failed: @Sendable (any Error) -> Void
    /// Frames written to the device (for tests and figures).
    let framesWritten = Atomic<Int>(0)

    private static let warned = Atomic<Bool>(false)

    /// A renderer for `device` (a name and, for a device defined on the spot, an ALSA configuration), else
    /// the one `AVOCET_AUDIO_DEVICE` names, else ALSA's "default". Returns at once: the device is opened
    /// on the renderer's own thread (opening can take a while), and when none opens the renderer says
    /// so once on standard error and plays nothing.
    ///
    /// `failed` is called (on the renderer's thread) when the device fails while playing in a way ALSA
    /// cannot recover from (unplugged, its server gone): the renderer then plays nothing more.
    init(device chosen: (name: String, configuration: String?)?, clock: @escaping @Sendable () -> CMTime,
         failed: @escaping @Sendable (any Error) -> Void) {
        self.clock = clock
        self.failed = failed
        let name = chosen?.name ?? ProcessInfo.processInfo.environment["AVOCET_AUDIO_DEVICE"] ?? "default"
        let configuration = chosen?.configuration
        let thread = Thread { [weak self] in
            let device: AudioDevice
            do {
                device = try AudioDevice(name: name, configuration: configuration)
            } catch {
                if !AudioRenderer.warned.exchange(true, ordering: .relaxed) {
                    try? FileHandle.standardError.write(contentsOf: Data("avocet: no audio device (\(error)); playing on the host clock without sound\n".utf8))
                }
                return
            }
            self?.run(on: device)
        }
        thread.name = "avocet.audio"
        thread.start()
    }

    /// Plays `item`'s sound from `time` at `rate` (replacing what played).
    func play(_ item: AVPlayerItem, from time: CMTime, rate: Float) {
        state.change { s in
            s.generation += 1
            s.job = Job(item: item, from: time, rate: rate, generation: s.generation)
            s.heard = nil
        }
        signal()
    }

    /// Stops the sound at once.
    func stop() {
        state.change { s in
            s.generation += 1
            s.job = nil
            s.heard = nil
        }
        signal()
    }

    func setGain(_ gain: Float) { state.change { $0.gain = gain } }

    /// Ends the thread (the player is gone).
    func shutDown() {
        state.change { s in
            s.stopped = true
            s.job = nil
            s.generation += 1
        }
        signal()
    }

    private func signal() {
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// The renderer's thread: plays each job as it comes, and drops what the device holds whenever the
    /// job is replaced or stopped (only this thread touches the device). Ends at `shutDown()`.
    private func run(on device: AudioDevice) {
        var played: Int?
        var mix = MixInputs()
        while true {
            wake.lock()
            while state.value.job == nil && !state.value.stopped { wake.wait() }
            wake.unlock()
            let s = state.value
            if s.stopped { return }
            if played != nil && played != s.generation { device.drop() }
            guard let job = s.job else { continue }
            played = job.generation
            play(job, on: device, mix: &mix)
            if state.value.generation != job.generation { device.drop() }
        }
    }

    /// The inputs of the last item's mix, kept while the item and its audio mix stay the same.
    private struct MixInputs {
        var item: WeakBox<AVPlayerItem>?
        var audioMix: AVAudioMix?
        var tracks: [CMPersistentTrackID] = []
        var inputs: [ExportPlan.EncodedAudio.Input] = []

        /// The inputs for `item`: its enabled audio tracks over its whole time, at its audio mix's volumes
        /// (the item keeps its own copy of the mix, so the same copy means the same volumes). Blocking:
        /// reads the asset's facts and loads a composition's segment files.
        mutating func of(_ item: AVPlayerItem) throws -> [ExportPlan.EncodedAudio.Input] {
            let audioMix = item.audioMix
            let audios = item.snapshot.tracks.filter { $0.isEnabled }.compactMap(\.assetTrack).filter { $0.mediaType == .audio }
            let ids = audios.map(\.trackID)
            if self.item?.value === item && self.audioMix === audioMix && tracks == ids { return inputs }
            let sources = SegmentSources(for: item.asset)
            sources.blockingPrepare(audios)
            let duration = item.duration.isNumeric ? item.duration : .positiveInfinity
            inputs = try MixTimeline.audioInputs(audios, in: CMTimeRange(start: .zero, duration: duration), audioMix: audioMix,
                                                   sources: sources, fromFileStart: false)
            // A file's item reads its sound from the container its read-ahead reads (a composition has none).
            if let demuxer = item.snapshot.buffer?.demuxer {
                for i in inputs.indices {
                    for j in inputs[i].pieces.indices { inputs[i].pieces[j].demuxer = demuxer }
                }
            }
            (self.item, self.audioMix, tracks) = (WeakBox(item), audioMix, ids)
            return inputs
        }
    }

    /// How a job's sound is made from the item's mix, by the rate and the item's algorithm (see the
    /// type's summary).
    enum Rendering: Equatable {
        /// The mix read at the rate: as it is at rate 1, else resampled (the pitch follows the rate).
        case resampled
        /// The mix read at its own speed and stretched to the rate (the pitch stays).
        case stretched
        /// Silence at the device's pace: rates below 0.5 or above 2.
        case silent

        /// The rendering for `rate` (item seconds a second, above 0) with `algorithm`: silence outside
        /// 0.5 ... 2; within it, resampled at rate 1 or with ``AVAudioTimePitchAlgorithm/varispeed``,
        /// stretched with any other algorithm.
        static func of(rate: Double, algorithm: AVAudioTimePitchAlgorithm) -> Rendering {
            guard rate >= 0.5, rate <= 2 else { return .silent }
            return rate == 1 || algorithm == .varispeed ? .resampled : .stretched
        }
    }

    /// Where a job's samples come from: the mix reader (and the stretcher), or silence up to where the
    /// mix ends. Blocking (decodes) on the renderer's thread; one caller at a time.
    private struct Sound {
        let rendering: Rendering
        private let reader: AudioMixReader?
        private let stretcher: TimeStretcher?
        /// The stretcher's output not yet handed out, and whether it has had all of the mix.
        private var stretched: [Float] = []
        private var drained = false
        /// Frames of silence still to write (`.silent`; `Int.max` for a mix of unknown length).
        private var silence = 0

        /// The sound of `inputs` from item time `start` at `rate` (above 0, finite), made as
        /// `rendering` says.
        init(_ inputs: [ExportPlan.EncodedAudio.Input], from start: Double, rate: Double, rendering: Rendering) {
            self.rendering = rendering
            let channels = Int(AudioDevice.channels)
            switch rendering {
            case .resampled:
                reader = AudioMixReader(inputs, rate: AudioDevice.rate, channels: AudioDevice.channels, from: start, speed: rate)
                stretcher = nil
            case .stretched:
                reader = AudioMixReader(inputs, rate: AudioDevice.rate, channels: AudioDevice.channels, from: start, speed: 1)
                stretcher = TimeStretcher(channels: channels, rate: rate, sampleRate: Int(AudioDevice.rate))
            case .silent:
                (reader, stretcher) = (nil, nil)
                // As far as the mix's last span goes (as AudioMixReader counts it), at the rate.
                let end = inputs.flatMap(\.pieces).filter { $0.targetEnd > $0.targetStart }.map(\.targetEnd).max() ?? 0
                let frames = ((end - start) / rate * Double(AudioDevice.rate)).rounded(.up)
                silence = frames.isFinite ? Int(min(max(0, frames), 9.0e15)) : .max
            }
        }

        /// Up to `frames` frames of interleaved stereo at the device's rate; none once the sound has
        /// ended. Throws when the mix cannot be read.
        mutating func read(_ frames: Int, _ token: CancellationToken) throws -> [Float] {
            let channels = Int(AudioDevice.channels)
            switch rendering {
            case .silent:
                let count = min(frames, silence)
                silence -= count
                return [Float](repeating: 0, count: count * channels)
            case .resampled:
                guard let reader, !reader.isAtEnd else { return [] }
                return try reader.read(frames, token)
            case .stretched:
                guard let reader, let stretcher else { return [] }
                let wanted = frames * channels
                while stretched.count < wanted && !drained {
                    if reader.isAtEnd {
                        // The end of the mix: what the stretcher holds comes out (`rate` times fewer
                        // frames than it was given in all).
                        stretched += stretcher.finish()
                        drained = true
                    } else {
                        let input = try reader.read(frames, token)
                        stretched += input.withUnsafeBufferPointer { stretcher.process($0) }
                    }
                }
                let count = min(wanted, stretched.count)
                let out = Array(stretched[0..<count])
                stretched.removeFirst(count)
                return out
            }
        }
    }

    /// Plays `job` until it ends, is replaced or stopped.
    ///
    /// The item time of what is written is counted from the frames written: each device frame is
    /// `rate` / 48000 s of the item, resampled, stretched or silent alike. The stretcher lays its
    /// output frame n from the mix's frame n × rate (within its ±10 ms search), so what it holds back
    /// (its latency: a window and its search, some 45 ms of the mix read but not yet stretched, and up
    /// to a block more) is not counted as written, and the heard time (written, less what the device
    /// still holds, both at the rate) stays on the sound heard.
    private func play(_ job: Job, on device: AudioDevice, mix: inout MixInputs) {
        let rate = Double(job.rate)
        guard rate > 0, rate.isFinite, let inputs = try? mix.of(job.item), !inputs.isEmpty else { return finish(job) }
        let start = job.from.seconds
        var sound = Sound(inputs, from: start, rate: rate, rendering: .of(rate: rate, algorithm: job.item.audioTimePitchAlgorithm))
        let token = CancellationToken()
        var played = 0.0   // seconds of item time written
        let block = 1024
        let channels = Int(AudioDevice.channels)
        while state.value.generation == job.generation {
            // Keep a fifth of a second ahead of the player's time, whatever the device's pace.
            let ahead = start + played - clock().seconds
            if ahead > 0.2 {
                // At least 2 ms: the player's time moves in steps of its timebase's timescale (1/600 s
                // from a start at zero), and microsecond sleeps until the next step (a dozen in a row,
                // some 80 wasted wake-ups a second) gain nothing.
                Thread.sleep(forTimeInterval: min(0.05, max(0.002, ahead - 0.2)))
                continue
            }
            // The item's algorithm changed: the sound goes on from what was written, made the new way.
            let rendering = Rendering.of(rate: rate, algorithm: job.item.audioTimePitchAlgorithm)
            if rendering != sound.rendering { sound = Sound(inputs, from: start + played, rate: rate, rendering: rendering) }
            guard let samples = try? sound.read(block, token), !samples.isEmpty else { return finish(job) }
            let gain = sound.rendering == .silent ? 1 : state.value.gain
            let scaled = gain == 1 ? samples : samples.map { $0 * gain }
            guard state.value.generation == job.generation else { return }
            do {
                try device.write(scaled)
            } catch {
                finish(job)
                return failed(AVError.converting(error))
            }
            let frames = samples.count / channels
            framesWritten.add(frames, ordering: .relaxed)
            played += Double(frames) / Double(AudioDevice.rate) * rate
            if device.keepsTime {
                // What is heard now: what was written, less what the device still holds.
                let heard = Heard(itemTime: start + played - Double(device.pendingFrames()) / Double(AudioDevice.rate) * rate,
                                  host: CMClock.hostTimeClock.time.seconds, rate: rate)
                state.change { s in if s.generation == job.generation { s.heard = heard } }
            }
        }
        finish(job)
    }

    private func finish(_ job: Job) {
        // The sound has all been written: the host clock takes over (an audio track that ends before
        // the pictures must not hold the time).
        state.change { s in if s.generation == job.generation { (s.job, s.heard) = (nil, nil) } }
    }
}
