internal import MediaEngine
import Foundation
import Synchronization

/// Plays a player's sound: decodes the current item's first enabled audio track (a file's) from the
/// item's time, resampled to the device's 48 kHz stereo at the player's rate (pitch follows), scaled
/// by the volume (0 when muted), and writes it to the audio device on a thread of its own (ALSA's
/// writes block at the device's pace). It keeps about a fifth of a second ahead of the player's time.
///
/// The device is ALSA's "default", or the one `AVOCET_AUDIO_DEVICE` names. Where none can be opened
/// (servers, CI) the player plays on the host clock alone and says so once on standard error.
final class AudioRenderer: Sendable {
    /// What the renderer is asked to play.
    struct Job: Sendable {
        var track: AVAssetTrack
        var from: CMTime
        var rate: Float
        var generation: Int
    }

    private struct State {
        var job: Job?
        var generation = 0
        var gain: Float = 1
        var stopped = false
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

    /// Plays `track` from `time` at `rate` (replacing what played).
    func play(_ track: AVAssetTrack, from time: CMTime, rate: Float) {
        state.change { s in
            s.generation += 1
            s.job = Job(track: track, from: time, rate: rate, generation: s.generation)
        }
        signal()
    }

    /// Stops the sound at once.
    func stop() {
        state.change { s in
            s.generation += 1
            s.job = nil
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
        while true {
            wake.lock()
            while state.value.job == nil && !state.value.stopped { wake.wait() }
            wake.unlock()
            let s = state.value
            if s.stopped { return }
            if played != nil && played != s.generation { device.drop() }
            guard let job = s.job else { continue }
            played = job.generation
            play(job, on: device)
            if state.value.generation != job.generation { device.drop() }
        }
    }

    /// Plays `job` until it ends, is replaced or stopped.
    private func play(_ job: Job, on device: AudioDevice) {
        guard let file = job.track.file else { return finish(job) }
        let rate = Double(job.rate)
        guard rate > 0, rate.isFinite,
              let reader = try? AudioSampleReader(source: file.source.openUnchanged(), options: file.source.options,
                                                  streamIndex: file.stream.index, outputRate: AudioDevice.rate,
                                                  channels: AudioDevice.channels, cancellation: CancellationToken()) else { return finish(job) }
        let token = CancellationToken()
        guard (try? reader.start(at: job.from.seconds, speed: rate, token)) != nil else { return finish(job) }
        var played = 0.0   // seconds of item time written
        let block = 1024
        while state.value.generation == job.generation {
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
        }
    }

    private func finish(_ job: Job) {
        state.change { s in if s.generation == job.generation { s.job = nil } }
    }
}
