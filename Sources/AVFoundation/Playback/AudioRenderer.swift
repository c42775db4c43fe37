internal import MediaEngine
import Foundation
import Synchronization

/// Plays a player's sound: the mix of the current item's enabled audio tracks (a file's, or a
/// composition's segments, at the item's audio mix volumes) from the item's time, resampled to the
/// device's 48 kHz stereo at the player's rate (pitch follows), scaled by the volume (0 when muted), and
/// written to the audio device on a thread of its own (ALSA's writes block at the device's pace). It
/// keeps about a fifth of a second ahead of the player's time. What the mix takes (the facts, the files
/// of a composition's segments) is worked out on that thread too, once an item and mix.
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
    /// Frames written to the device (for tests and figures).
    let framesWritten = Atomic<Int>(0)

    private static let warned = Atomic<Bool>(false)

    /// A renderer for `device` (a name and, for a device defined on the spot, an ALSA configuration), else
    /// the one `AVOCET_AUDIO_DEVICE` names, else ALSA's "default". Returns at once: the device is opened
    /// on the renderer's own thread (opening can take a while), and when none opens the renderer says
    /// so once on standard error and plays nothing.
    init(device chosen: (name: String, configuration: String?)?, clock: @escaping @Sendable () -> CMTime) {
        self.clock = clock
        let name = chosen?.name ?? ProcessInfo.processInfo.environment["AVOCET_AUDIO_DEVICE"] ?? "default"
        let configuration = chosen?.configuration
        let thread = Thread { [weak self] in
            let device: AudioDevice
            do {
                device = try AudioDevice(name: name, configuration: configuration)
            } catch {
                if !AudioRenderer.warned.exchange(true, ordering: .relaxed) {
                    FileHandle.standardError.write(Data("avocet: no audio device (\(error)); playing on the host clock without sound\n".utf8))
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
            (self.item, self.audioMix, tracks) = (WeakBox(item), audioMix, ids)
            return inputs
        }
    }

    /// Plays `job` until it ends, is replaced or stopped.
    private func play(_ job: Job, on device: AudioDevice, mix: inout MixInputs) {
        let rate = Double(job.rate)
        guard rate > 0, rate.isFinite, let inputs = try? mix.of(job.item), !inputs.isEmpty else { return finish(job) }
        let reader = AudioMixReader(inputs, rate: AudioDevice.rate, channels: AudioDevice.channels, from: job.from.seconds, speed: rate)
        let token = CancellationToken()
        var played = 0.0   // seconds of item time written
        let block = 1024
        while state.value.generation == job.generation && !reader.isAtEnd {
            // Keep a fifth of a second ahead of the player's time, whatever the device's pace.
            let ahead = job.from.seconds + played - clock().seconds
            if ahead > 0.2 {
                Thread.sleep(forTimeInterval: min(0.05, ahead - 0.2))
                continue
            }
            guard let samples = try? reader.read(block, token), !samples.isEmpty else { return finish(job) }
            let gain = state.value.gain
            let scaled = gain == 1 ? samples : samples.map { $0 * gain }
            guard state.value.generation == job.generation else { return }
            do { try device.write(scaled) } catch { return finish(job) }
            framesWritten.add(samples.count / Int(AudioDevice.channels), ordering: .relaxed)
            played += Double(samples.count / Int(AudioDevice.channels)) / Double(AudioDevice.rate) * rate
            if device.keepsTime {
                // What is heard now: what was written, less what the device still holds.
                let heard = Heard(itemTime: job.from.seconds + played - Double(device.pendingFrames()) / Double(AudioDevice.rate) * rate,
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
