import CoreMedia
import Foundation
internal import MediaEngine
import Synchronization

/// Plays an ``AVAudioPlayer``'s media: decodes it (MediaEngine's `AudioSampleReader`, at the device's
/// 48 kHz in the file's own channels), measures the levels, mixes to stereo at the volume and pan, and
/// writes to the audio device, on a thread of its own that the player starts when it prepares or plays
/// and that ends when it stops, finishes, or is released. ALSA's writes block at the device's pace;
/// nothing here blocks the player's caller.
///
/// The device is the one the player names (tests), else `AVOCET_AUDIO_DEVICE`, else ALSA's "default".
/// Where none opens (servers, CI) the sound is decoded, measured and dropped at the pace of the host
/// clock, so the time, the end and the meters behave as with sound (said once on standard error). The
/// thread keeps a fifth of a second ahead of what is heard, as the AVPlayer's renderer does; a device
/// that keeps time (a sound card, PulseAudio) paces it itself, and the time follows what it reports
/// it will play when.
///
/// The player's time is worked out from what was written: each stretch of sound written is kept with
/// the device frame it starts at, and a clock says which device frame is heard when: on the host
/// clock, frame f is heard f / 48000 s after the start; on a device that keeps time, as it last
/// reported (and at most a fifth of a second on from that report: a device that stops taking sound
/// holds the time). So ``currentTime(at:)`` never runs ahead of what was decoded, and stands still
/// before a scheduled start and while a device is slow to start.
final class AudioPlayerRenderer: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only while holding `condition`; the rest is
    // immutable.

    /// What the renderer tells its player.
    enum Event: Sendable {
        /// Playback reached its end (true) or stopped at a decoding error (false).
        case finished(Bool)
        case decodeError(NSError)
    }

    /// The device's frames a second.
    static let deviceRate = Double(AudioDevice.rate)
    /// Frames decoded and written at a time (21 ms at 48 kHz).
    static let blockFrames = 1024
    /// How far ahead of what is heard the thread decodes on the host clock.
    static let lead = 0.2

    /// The name of each player's thread (as the system shows it: at most 15 bytes).
    static let threadName = "avocet.aplayer"
    private static let warned = Atomic<Bool>(false)

    /// A stretch of sound written: `frames` device frames from device frame `frame` of the run (the
    /// run's first frame is 0), showing media from `media` at `rate` media seconds a device second.
    private struct Segment {
        var frame: Int
        var frames: Int
        var media: Double
        var rate: Double
        var end: Int { frame + frames }
    }

    /// Which device frame of the run is heard when: `frame` at `host`, and on at the device's rate for
    /// at most `limit` seconds.
    private struct Clock {
        var host: Double
        var frame: Double
        var limit: Double

        /// The frame heard at `now`.
        func frame(at now: Double) -> Double { frame + min(max(0, now - host), limit) * AudioPlayerRenderer.deviceRate }

        /// When `frame` is heard (on the host clock's pace).
        func host(of frame: Int) -> Double { host + (Double(frame) - self.frame) / AudioPlayerRenderer.deviceRate }
    }

    /// A volume, or a fade from one volume to another over a span of host time.
    struct Fade {
        var from: Float
        var to: Float
        var start: Double
        var seconds: Double

        init(_ volume: Float) { (from, to, start, seconds) = (volume, volume, 0, 0) }

        init(from: Float, to: Float, start: Double, seconds: Double) { (self.from, self.to, self.start, self.seconds) = (from, to, start, seconds) }

        func value(at host: Double) -> Float {
            guard seconds > 0 else { return to }
            let done = min(1, max(0, (host - start) / seconds))
            return from + (to - from) * Float(done)
        }
    }

    private struct State {
        var playing = false
        /// Bumped by every change that ends the sound being played (pause, seek, rate, stop, end).
        var generation = 0
        /// The time when not playing, and where playing starts.
        var position = 0.0
        /// When playing starts being heard (host seconds): now, or the time `play(atTime:)` gave.
        var startHost = 0.0
        /// What the run being played has written, and which of it is heard when (nil: nothing yet).
        var segments: [Segment] = []
        var clock: Clock?
        /// The epoch the running thread serves; a thread whose epoch this is not ends.
        var epoch = 0
        var threadRunning = false
        /// This player's threads alive (a new one waits for an old one to let the device go).
        var aliveThreads = 0
        var volume = Fade(1)
        var pan: Float = 0
        var rate: Float = 1
        var enableRate = false
        var loops = 0
        var metering = false
        var meter: AudioLevelMeter
        var device: (name: String, configuration: String?)?
        var events: (@Sendable (Event) -> Void)?
        var framesWritten = 0
    }

    let media: AudioPlayerMedia
    /// This player's threads alive now (for tests: none may outlive its player, or its stop).
    let liveThreads = Atomic<Int>(0)
    private let condition = NSCondition()
    private var state: State

    init(media: AudioPlayerMedia) {
        self.media = media
        state = State(meter: AudioLevelMeter(channels: Int(media.channels)))
    }

    /// The host clock, in seconds (CoreMedia's host time clock: monotonic, shared by every player).
    static func now() -> Double { CMClock.hostTimeClock.time.seconds }

    // MARK: - State

    /// Reads the state under the lock.
    private func read<T>(_ body: (State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(state)
    }

    /// Changes the state under the lock and wakes the thread.
    @discardableResult
    private func change<T>(_ body: (inout State) -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body(&state)
    }

    func setEvents(_ events: (@Sendable (Event) -> Void)?) { change { $0.events = events } }

    var device: (name: String, configuration: String?)? {
        get { read { $0.device } }
        set { change { $0.device = newValue } }
    }

    var framesWritten: Int { read { $0.framesWritten } }

    var isPlaying: Bool { read { $0.playing } }

    var volume: Float {
        get { read { $0.volume.value(at: Self.now()) } }
        set { change { $0.volume = Fade(newValue) } }
    }

    func fadeVolume(to volume: Float, over seconds: Double) {
        let now = Self.now()
        change { s in s.volume = Fade(from: s.volume.value(at: now), to: volume, start: now, seconds: seconds) }
    }

    var pan: Float {
        get { read { $0.pan } }
        set { change { $0.pan = newValue } }
    }

    var numberOfLoops: Int {
        get { read { $0.loops } }
        set { change { $0.loops = newValue } }
    }

    var isMeteringEnabled: Bool {
        get { read { $0.metering } }
        set { change { $0.metering = newValue } }
    }

    func updateMeters() {
        let now = Self.now()
        change { s in if s.metering { s.meter.update(at: now) } }
    }

    func levels(_ channel: Int) -> (average: Float, peak: Float) {
        read { s in
            guard s.metering, s.meter.average.indices.contains(channel) else { return (AudioLevelMeter.floor, AudioLevelMeter.floor) }
            return (s.meter.average[channel], s.meter.peak[channel])
        }
    }

    var rate: Float {
        get { read { $0.rate } }
        set { restart { $0.rate = newValue } }
    }

    var enableRate: Bool {
        get { read { $0.enableRate } }
        set { restart { $0.enableRate = newValue } }
    }

    /// Changes what the sound being played depends on (the rate): playing goes on from the time now.
    private func restart(_ body: (inout State) -> Void) {
        let now = Self.now()
        change { s in
            let before = (s.enableRate, s.rate)
            body(&s)
            guard s.playing, before != (s.enableRate, s.rate) else { return }
            Self.moveOn(&s, to: Self.mediaTime(s, at: now), at: now)
        }
    }

    func currentTime(at now: Double) -> Double { read { Self.mediaTime($0, at: now) } }

    /// Seeks: playing goes on from `time` (clamped to the media; only at 0 where its duration is
    /// unknown) at once, or at the scheduled start still to come.
    func seek(to time: Double) {
        guard time.isFinite else { return }
        let target = media.duration > 0 ? min(max(0, time), media.duration) : max(0, time)
        let now = Self.now()
        change { s in
            if s.playing {
                Self.moveOn(&s, to: target, at: now)
            } else {
                s.position = target
            }
        }
    }

    /// The media time heard at `now`: from the stretch of sound being heard (up to the end of what
    /// was written), else (paused, before a scheduled start or the first sound) the position.
    private static func mediaTime(_ s: State, at now: Double) -> Double {
        guard s.playing, let clock = s.clock, let first = s.segments.first, let last = s.segments.last else { return s.position }
        let frame = min(clock.frame(at: now), Double(last.end))
        guard frame >= Double(first.frame) else { return s.position }
        let segment = s.segments.last { Double($0.frame) <= frame } ?? first
        return segment.media + min(frame - Double(segment.frame), Double(segment.frames)) / deviceRate * segment.rate
    }

    /// Forgets the run that was playing: what it wrote and its clock.
    private static func clearRun(_ s: inout State) {
        s.segments = []
        s.clock = nil
    }

    /// Ends the sound being played and starts anew from `time`, heard from `now` (or from the start
    /// `play(atTime:)` scheduled, while it is still to come).
    private static func moveOn(_ s: inout State, to time: Double, at now: Double) {
        s.generation += 1
        s.position = time
        s.startHost = max(now, s.startHost)
        Self.clearRun(&s)
        s.meter.dropUnheard(at: now)
    }

    // MARK: - Control

    /// Starts the thread unless it runs: it opens the device and the reader and waits to play.
    func prepare() {
        change { s in startThread(&s) }
    }

    /// Plays from the position, heard from `host` (now when nil or past). False when already playing
    /// and `host` asks a start time (a scheduled start cannot be honoured); true otherwise.
    func play(at host: Double?) -> Bool {
        let now = Self.now()
        return change { s in
            if s.playing { return host == nil }
            startThread(&s)
            s.playing = true
            s.generation += 1
            s.startHost = max(now, host ?? now)
            Self.clearRun(&s)
            return true
        }
    }

    func pause() {
        let now = Self.now()
        change { s in
            guard s.playing else { return }
            s.position = Self.mediaTime(s, at: now)
            s.playing = false
            s.generation += 1
            Self.clearRun(&s)
            s.meter.dropUnheard(at: now)
        }
    }

    /// Stops playing (the time stays where it was) and ends the thread, which lets the device go.
    func stop() {
        let now = Self.now()
        change { s in
            if s.playing { s.position = Self.mediaTime(s, at: now) }
            s.playing = false
            s.generation += 1
            Self.clearRun(&s)
            s.meter.dropUnheard(at: now)
            if s.threadRunning {
                s.threadRunning = false
                s.epoch += 1
            }
        }
    }

    /// Stops for good (the player is gone): nothing more is told.
    func shutDown() {
        stop()
        setEvents(nil)
    }

    private func startThread(_ s: inout State) {
        guard !s.threadRunning else { return }
        s.threadRunning = true
        s.epoch += 1
        s.aliveThreads += 1
        let epoch = s.epoch
        liveThreads.add(1, ordering: .relaxed)
        let thread = Thread { [self] in
            Self.nameThisThread()
            run(epoch: epoch)
            liveThreads.subtract(1, ordering: .relaxed)
        }
        thread.start()
    }

    // MARK: - The thread

    /// Names the calling thread for the system (ps, top, debuggers, /proc) `threadName`: Linux takes a
    /// thread's name written to /proc/thread-self/comm. (Foundation's `Thread.name` names the system's
    /// thread only when set on the running thread after `start()` has returned in the starting one: a
    /// race that leaves some threads unnamed.) Elsewhere, or where that file is missing, nothing.
    private static func nameThisThread() {
        guard let comm = FileHandle(forWritingAtPath: "/proc/thread-self/comm") else { return }
        try? comm.write(contentsOf: Data(threadName.utf8))
        try? comm.close()
    }

    /// What one run of playing plays.
    private struct Job {
        var epoch: Int
        var generation: Int
        var from: Double
        var startHost: Double
        var rate: Double
    }

    private enum Outcome {
        case interrupted
        case ended
        case failed(NSError)
    }

    private func isCurrent(_ job: Job, _ s: State) -> Bool {
        s.epoch == job.epoch && s.generation == job.generation && s.playing
    }

    /// The thread: opens the device, then plays each run of playing as it comes, until its epoch ends
    /// (stop, release, the end).
    private func run(epoch: Int) {
        // An earlier thread of this player may still hold the device: wait (a little) for it to go.
        let chosen: (name: String, configuration: String?)? = {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: 2)
            while state.aliveThreads > 1 && state.epoch == epoch && condition.wait(until: deadline) {}
            return state.device
        }()
        var output = Output(device: read { $0.epoch == epoch } ? Self.openDevice(chosen) : nil)
        var pipeline = Pipeline(media: media)
        // Ready to decode before the first play (a failure here is told when playing starts).
        if read({ $0.epoch == epoch }) { _ = try? pipeline.open() }
        var served = -1
        while true {
            condition.lock()
            while state.epoch == epoch && !(state.playing && state.generation != served) { condition.wait() }
            guard state.epoch == epoch else {
                condition.unlock()
                break
            }
            let job = Job(epoch: epoch, generation: state.generation, from: state.position, startHost: state.startHost,
                          rate: state.enableRate ? Double(min(2, max(0.5, state.rate))) : 1)
            served = job.generation
            condition.unlock()
            let outcome = play(job, on: &output, pipeline: &pipeline)
            // Whatever the device still holds is not to be heard (paused, moved), or is silence.
            output.drop()
            switch outcome {
            case .interrupted:
                break
            case .ended:
                if let events = finish(job, { s in s.position = 0 }) { events(.finished(true)) }
            case .failed(let error):
                let now = Self.now()
                if let events = finish(job, { s in s.position = Self.mediaTime(s, at: now) }) {
                    events(.decodeError(error))
                    events(.finished(false))
                }
            }
        }
        output.drop()
        change { $0.aliveThreads -= 1 }
    }

    /// Playing came to its end or a decoding error: stops and ends this thread, unless the player
    /// moved on meanwhile (paused, stopped, moved: then nothing is told). Returns whom to tell.
    private func finish(_ job: Job, _ place: (inout State) -> Void) -> (@Sendable (Event) -> Void)? {
        change { s in
            guard isCurrent(job, s) else { return nil }
            place(&s)
            s.playing = false
            s.generation += 1
            Self.clearRun(&s)
            s.threadRunning = false
            s.epoch += 1
            return s.events
        }
    }

    /// Waits until the host clock reads `host`; false when the job stops being current first.
    private func wait(until host: Double, _ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while isCurrent(job, state) {
            let left = host - Self.now()
            if left <= 0 { return true }
            _ = condition.wait(until: Date(timeIntervalSinceNow: min(left, 0.1)))
        }
        return false
    }

    /// Plays `job` until it ends, fails, or is no longer current.
    private func play(_ job: Job, on output: inout Output, pipeline: inout Pipeline) -> Outcome {
        let channels = Int(media.channels)
        do {
            try pipeline.start(at: job.from, rate: job.rate)
        } catch {
            return .failed(AudioPlayerMedia.error(error, failedCall: "AudioFileReadPacketData"))
        }
        var passStart = job.from
        var passMedia = 0.0
        var passes = 0
        // Device frames written in this run (silence before a scheduled start included), and when the
        // first were (the device cannot have played more than the time since).
        var frame = 0
        var firstWrite: Double?
        // On the host clock, frame f is heard f / 48000 s after the start.
        var paced = !(output.device?.keepsTime ?? false)
        if paced { setClock(Clock(host: job.startHost, frame: 0, limit: .infinity), job) }
        while true {
            if paced {
                let due = read { $0.clock?.host(of: frame) } ?? job.startHost
                guard wait(until: due - Self.lead, job) else { return .interrupted }
            } else {
                // A device that keeps time paces the writes itself; a scheduled start is waited for
                // here, but for the last fifth of a second, which is written as silence.
                guard wait(until: frame == 0 ? job.startHost - Self.lead : 0, job) else { return .interrupted }
            }
            let block: [Float]
            do {
                block = try pipeline.read(Self.blockFrames)
            } catch {
                guard drain(job, &output, frame: frame, paced: paced, since: firstWrite) else { return .interrupted }
                return .failed(AudioPlayerMedia.error(error, failedCall: "AudioFileReadPacketData"))
            }
            let frames = block.count / max(1, channels)
            if frames == 0 {
                let reached = passStart + passMedia
                if media.durationIsExact, passStart < media.duration, media.duration - reached > max(0.1, 0.05 * media.duration) {
                    guard drain(job, &output, frame: frame, paced: paced, since: firstWrite) else { return .interrupted }
                    return .failed(AudioError.make(AudioError.invalidFile,
                                                   "\(media.name): the sound ends at \(reached) s of the \(media.duration) s the file states: it is damaged",
                                                   failedCall: "AudioFileReadPacketData", domain: NSOSStatusErrorDomain))
                }
                let again = read { s in s.loops < 0 || passes < s.loops }
                if again && (passMedia > 0 || passStart > 0) {
                    passes += 1
                    do {
                        try pipeline.start(at: 0, rate: job.rate)
                    } catch {
                        return .failed(AudioPlayerMedia.error(error, failedCall: "AudioFileReadPacketData"))
                    }
                    (passStart, passMedia) = (0, 0)
                    continue
                }
                return drain(job, &output, frame: frame, paced: paced, since: firstWrite) ? .ended : .interrupted
            }
            // A device that keeps time starts late by silence; what it holds plays before this block.
            var queued = 0
            if !paced, let device = output.device {
                queued = device.pendingFrames()
                let ahead = job.startHost - (Self.now() + Double(queued) / Self.deviceRate)
                if firstWrite == nil { firstWrite = Self.now() }
                if frame == 0 && ahead > 0.001 {
                    frame += output.writeSilence(seconds: ahead)
                    queued = device.pendingFrames()
                }
            }
            let seconds = Double(frames) / Self.deviceRate
            let (host, gains, pan, metering) = read { s -> (Double, (Float, Float), Float, Bool) in
                let host = paced ? s.clock?.host(of: frame) ?? job.startHost : Self.now() + Double(queued) / Self.deviceRate
                return (host, (s.volume.value(at: host), s.volume.value(at: host + seconds)), s.pan, s.metering)
            }
            let measured = metering ? block.withUnsafeBufferPointer {
                AudioLevelMeter.measure($0, channels: channels, host: host, seconds: seconds)
            } : nil
            if output.device != nil {
                do {
                    output.write(try pipeline.stereo(block, gains: gains, pan: pan))
                } catch {
                    return .failed(AudioPlayerMedia.error(error, failedCall: "AudioFileReadPacketData"))
                }
            }
            let mediaStart = passStart + passMedia
            var report: Clock?
            if !paced {
                if let device = output.device {
                    let now = Self.now()
                    let played = min(frame + frames - device.pendingFrames(), Int(max(0, now - (firstWrite ?? now)) * Self.deviceRate))
                    report = Clock(host: now, frame: Double(played), limit: Self.lead)
                } else {
                    // The device failed: on, on the host clock, from the frame the device was at.
                    paced = true
                    report = Clock(host: Self.now(), frame: Double(frame), limit: .infinity)
                }
            }
            let segment = Segment(frame: frame, frames: frames, media: mediaStart, rate: job.rate)
            let stillCurrent = change { s -> Bool in
                guard isCurrent(job, s) else { return false }
                if let measured { s.meter.record(measured) }
                if let report { Self.follow(report, &s) }
                s.framesWritten += frames
                if let last = s.segments.last, last.end == segment.frame, abs(last.media + Double(last.frames) / Self.deviceRate * last.rate - segment.media) < 0.000_5 {
                    s.segments[s.segments.count - 1].frames += frames
                } else {
                    s.segments.append(segment)
                }
                // What was heard before the stretch heard now is no longer needed.
                if let heard = s.clock?.frame(at: Self.now()) {
                    while s.segments.count > 1 && Double(s.segments[1].frame) <= heard { s.segments.removeFirst() }
                }
                return true
            }
            guard stillCurrent else { return .interrupted }
            frame += frames
            passMedia += seconds * job.rate
        }
    }

    private func setClock(_ clock: Clock, _ job: Job) {
        change { s in if isCurrent(job, s) { s.clock = clock } }
    }

    /// Takes a device's report of the frame it plays now, never going back: a report behind the frame
    /// shown holds the time there until the device catches up (or, for the host clock taking over from
    /// a failed device, goes on from there).
    private static func follow(_ report: Clock, _ s: inout State) {
        let shown = s.clock?.frame(at: report.host) ?? 0
        if report.frame >= shown {
            s.clock = report
        } else {
            s.clock = Clock(host: report.host, frame: shown, limit: report.limit.isInfinite ? .infinity : 0)
        }
    }

    /// Waits until the `frame` frames written have been heard: on the host clock, until their time; on
    /// a device that keeps time, until it has played them, following its reports. A device that keeps
    /// time is first given a fifth of a second of silence after them, which pushes the last of the
    /// sound out (PulseAudio holds back a partial last fragment); one that stops taking sound for a
    /// second is given up on. False when the job stops being current first.
    private func drain(_ job: Job, _ output: inout Output, frame: Int, paced: Bool, since firstWrite: Double?) -> Bool {
        guard !paced, output.device != nil else {
            return wait(until: read { $0.clock?.host(of: frame) } ?? job.startHost, job)
        }
        let padding = output.writeSilence(seconds: Self.lead)
        var last = (played: Int.min, host: Self.now())
        while let device = output.device {
            let now = Self.now()
            let played = min(frame, frame + padding - device.pendingFrames(), Int(max(0, now - (firstWrite ?? now)) * Self.deviceRate))
            change { s in if isCurrent(job, s) { Self.follow(Clock(host: now, frame: Double(played), limit: Self.lead), &s) } }
            if played >= frame { return read { isCurrent(job, $0) } }
            if played > last.played {
                last = (played, now)
            } else if now - last.host > 1 {
                return read { isCurrent(job, $0) }
            }
            guard wait(until: now + min(0.05, Double(frame - played) / Self.deviceRate), job) else { return false }
        }
        // The device failed meanwhile.
        return read { isCurrent(job, $0) }
    }

    /// Opens the device `chosen` names, else `AVOCET_AUDIO_DEVICE`'s, else ALSA's "default"; nil (said
    /// once on standard error) where none opens.
    private static func openDevice(_ chosen: (name: String, configuration: String?)?) -> AudioDevice? {
        let name = chosen?.name ?? ProcessInfo.processInfo.environment["AVOCET_AUDIO_DEVICE"] ?? "default"
        do {
            return try AudioDevice(name: name, configuration: chosen?.configuration)
        } catch {
            if !warned.exchange(true, ordering: .relaxed) {
                try? FileHandle.standardError.write(contentsOf: Data("avocet: no audio device (\(error)); AVAudioPlayer plays on the host clock without sound\n".utf8))
            }
            return nil
        }
    }

    /// The device sound goes to, while it works.
    private struct Output {
        var device: AudioDevice?
        /// Whether something was written since the device was last emptied.
        var written = false

        mutating func write(_ samples: [Float]) {
            guard let device, !samples.isEmpty else { return }
            do {
                try device.write(samples)
                written = true
            } catch {
                // The device failed (unplugged): play on, on the host clock.
                self.device = nil
            }
        }

        /// Writes `seconds` of silence (at most one: the write blocks until the device takes it);
        /// returns the frames written.
        mutating func writeSilence(seconds: Double) -> Int {
            let frames = Int(min(1, max(0, seconds)) * AudioPlayerRenderer.deviceRate)
            guard frames > 0, device != nil else { return 0 }
            write([Float](repeating: 0, count: frames * Int(AudioDevice.channels)))
            return frames
        }

        /// Drops what the device holds (the sound was paused, moved or stopped).
        mutating func drop() {
            if written { device?.drop() }
            written = false
        }
    }

    /// The decoding side of the thread: the reader (opened once, on first use, and started again for
    /// each run), the time stretcher for rates other than 1, and the mixer to stereo.
    private struct Pipeline {
        let media: AudioPlayerMedia
        private var reader: AudioSampleReader?
        private var mixer: ChannelMixer?
        private var stretcher: TimeStretcher?
        /// The stretcher's output not yet read, and whether it has had the whole input.
        private var stretched: [Float] = []
        private var drained = false
        private let token = CancellationToken()

        init(media: AudioPlayerMedia) { self.media = media }

        /// Opens the media and its decoder unless they are open (blocking: a file's open and header).
        @discardableResult
        mutating func open() throws -> AudioSampleReader {
            if let reader { return reader }
            let opened = try AudioSampleReader(source: media.openSource(), options: DemuxerOptions(), streamIndex: media.streamIndex,
                                               outputRate: AudioDevice.rate, channels: media.channels, cancellation: token)
            reader = opened
            return opened
        }

        /// Starts reading at `seconds` of the media, `rate` media seconds a device second (other than 1:
        /// through the time stretcher, which keeps the pitch).
        mutating func start(at seconds: Double, rate: Double) throws {
            try open().start(at: max(0, seconds), speed: 1, token)
            stretcher = rate == 1 ? nil : TimeStretcher(channels: Int(media.channels), rate: rate, sampleRate: Int(AudioDevice.rate))
            (stretched, drained) = ([], false)
        }

        /// Up to `frames` frames at the device's rate in the media's channels; none at the end.
        mutating func read(_ frames: Int) throws -> [Float] {
            guard let reader else { return [] }
            guard let stretcher else { return try reader.read(frames, token) }
            let wanted = frames * Int(media.channels)
            while stretched.count < wanted && !drained {
                let input = try reader.read(frames, token)
                if input.isEmpty {
                    stretched += stretcher.finish()
                    drained = true
                } else {
                    stretched += input.withUnsafeBufferPointer { stretcher.process($0) }
                }
            }
            let count = min(wanted, stretched.count)
            let out = Array(stretched[0..<count])
            stretched.removeFirst(count)
            return out
        }

        /// `block` as the device's interleaved stereo, at `gains` (the volume at its start and end, the
        /// frames between ramped) and `pan` (-1 left only ... 1 right only: the other side is turned
        /// down, a balance).
        mutating func stereo(_ block: [Float], gains: (Float, Float), pan: Float) throws -> [Float] {
            let channels = Int(media.channels)
            var out: [Float]
            switch channels {
            case 1:
                out = [Float](repeating: 0, count: block.count * 2)
                for (i, v) in block.enumerated() { (out[2 * i], out[2 * i + 1]) = (v, v) }
            case 2: out = block
            default:
                let mixer = try self.mixer ?? ChannelMixer(from: media.channels, to: 2, rate: AudioDevice.rate)
                self.mixer = mixer
                out = try block.withUnsafeBufferPointer { try mixer.mix($0) }
            }
            let frames = out.count / 2
            guard frames > 0 else { return out }
            let left = pan > 0 ? 1 - min(1, pan) : 1
            let right = pan < 0 ? 1 + max(-1, pan) : 1
            let step = (gains.1 - gains.0) / Float(frames)
            for f in 0..<frames {
                let gain = gains.0 + step * Float(f)
                out[2 * f] *= gain * left
                out[2 * f + 1] *= gain * right
            }
            return out
        }
    }
}
