internal import MediaEngine
import Foundation
internal import Locking

/// How far an item's media has been read ahead of its time: the source of `loadedTimeRanges`, of the
/// buffer-empty, buffer-full and likely-to-keep-up flags, and of the player's stalls.
///
/// Jobs on the engine's threads read the played streams' packets from the item's time to `forward`
/// seconds beyond it, then end; the player's ticks start another when its time moves on (no thread
/// waits for room). The reading is the item's one `ItemDemuxer`, whose packets the item's decoders
/// (the video outputs' pictures, the sound) read in turn: it keeps them from a second behind the
/// playhead (`kept`) to what was read, up to its byte limit, where reading ahead pauses.
/// Over a network or a resource loader delegate the reading is what pulls the bytes into the asset's
/// cache, so a read that waits for bytes is a stall; a seek outside what was read starts over there
/// once the packet being read has come (the container is shared with the decoders, so a read is not
/// cut short; the item's end, `stop()`, does cut it short). A read that fails (the server went away,
/// the delegate failed) is reported once through `onFailure`.
final class PlaybackBuffer: Sendable {
    /// A copy of what is read so far.
    struct Range: Sendable {
        /// Where the reading started (the item's time when it last started over).
        var start: CMTime
        /// How far it reached.
        var end: CMTime
        /// Whether it reached the end of the media.
        var ended: Bool

        /// Whether the media at `time` has been read (so playing there does not wait).
        func covers(_ time: CMTime) -> Bool {
            time >= start && (ended || time < end)
        }

        /// Seconds read beyond `time` (infinite once the end is read).
        func ahead(of time: CMTime) -> Double {
            ended ? .infinity : max(0, (end - time).seconds)
        }
    }

    private struct State {
        var range: Range
        var playhead: CMTime
        var running = false
        /// Bumped by each start-over; a job of an older generation stops and starts the newer one.
        var generation = 0
        /// Whether a read since the last start-over placed the demuxer (later reads read on from where
        /// it stands, even where a decoder's seek moved it: a seek here would move it away from them).
        var positioned = false
        /// Whether the demuxer's byte limit stopped reading: reading tries again a quarter of a second
        /// later (the playhead moving on, or the decoders taking packets, lets packets go) or at a jump,
        /// not at every tick.
        var full = false
        var token = CancellationToken()
        var failure: (any Error)?
        var failed: Bool { failure != nil }
        var stopped = false
        var waiters: [(need: Double, resume: @Sendable () -> Void)] = []
    }

    /// Seconds that must be read ahead for playing to be likely to keep up (or the rest of the item).
    static let enough = 1.0
    /// Seconds of packets the demuxer keeps behind the playhead (from the keyframe before), so that the
    /// sound starting again after a pause, a rate change or a change of language, or pictures after a
    /// small seek back, need no seek.
    static let kept = 1.0

    private let forward: @Sendable () -> Double
    private let state: LockedState<State>
    /// The item's container, read by one job at a time (the `running` flag) and by the decoders given it
    /// (`demuxer`); let go on an engine thread when the buffer stops.
    private let kept: Locked<ItemDemuxer?>
    private let onChange: @Sendable () -> Void
    private let onFailure: @Sendable (any Error) -> Void

    /// A buffer over `streams` of `source` from `time`, reading `forward()` seconds ahead of the
    /// playhead. Nothing is read until `follow` or `waitFor` asks.
    init(source: AssetSource, streams: [Int], from time: CMTime, forward: @escaping @Sendable () -> Double,
         onChange: @escaping @Sendable () -> Void, onFailure: @escaping @Sendable (any Error) -> Void) {
        kept = Locked(ItemDemuxer(options: source.options, streamIndices: streams,
                                  open: { token in try source.openUnchanged(cancellation: token) }))
        self.forward = forward
        self.onChange = onChange
        self.onFailure = onFailure
        state = LockedState(State(range: Range(start: time, end: time, ended: false), playhead: time))
    }

    deinit {
        state.value.token.cancel()
        closeReader()
    }

    /// Lets the container go on an engine thread (closing a source may wait on a network); a decoder
    /// still reading from it fails as cancelled.
    private func closeReader() {
        guard let demuxer = kept.withLock({ kept -> ItemDemuxer? in defer { kept = nil }; return kept }) else { return }
        demuxer.close()
        IOExecutor.shared.submit { withExtendedLifetime(demuxer) {} }
    }

    /// The item's container, for a decoder of one of the played streams to read from
    /// (`StreamReader(demuxer:streamIndex:cancellation:)`); nil once the buffer has stopped.
    var demuxer: ItemDemuxer? { kept.withLock { $0 } }

    var range: Range { state.value.range }
    /// Why reading failed, if it did.
    var failure: (any Error)? { state.value.failure }

    /// The playhead moved on to `time` (the player's ticks): reads on when less than `forward()` is read
    /// beyond it. Time running past what was read is a stall, not a jump: the range stays.
    func follow(_ time: CMTime) {
        // A time before where reading starts is a tick that read the clock before a seek moved it.
        state.change { s in
            if time >= s.range.start { s.playhead = time }
        }
        demuxer?.keep(from: time.seconds - PlaybackBuffer.kept)
        readOn()
    }

    /// The playhead jumped to `time` (a seek, or an item taken up again): reading starts over there when
    /// it lies outside what was read (the job in flight ends after the packet it is reading).
    func jump(to time: CMTime) {
        let stale = state.change { s -> CancellationToken? in
            s.playhead = time
            s.full = false
            guard time < s.range.start || (!s.range.ended && time > s.range.end) else { return nil }
            let stale = s.token
            s.generation += 1
            s.token = CancellationToken()
            s.range = Range(start: time, end: time, ended: false)
            s.positioned = false
            return stale
        }
        stale?.cancel()
        if stale != nil { onChange() }
        demuxer?.keep(from: time.seconds - PlaybackBuffer.kept)
        readOn()
    }

    /// Waits (holding no thread) until `seconds` are read beyond the playhead, or the end, or a failure.
    func waitFor(_ seconds: Double) async {
        await withHandOffContinuation { (done: CheckedContinuation<Void, Never>) in
            let now = state.change { s -> Bool in
                if s.failed || s.stopped || s.range.ahead(of: s.playhead) >= seconds { return true }
                s.waiters.append((seconds, { done.resume() }))
                return false
            }
            if now { done.resume() }
            readOn()
        }
    }

    /// Stops reading for good (the item is gone or failed) and lets waiters go.
    func stop() {
        let (token, waiters) = state.change { s -> (CancellationToken, [@Sendable () -> Void]) in
            s.stopped = true
            defer { s.waiters = [] }
            return (s.token, s.waiters.map(\.resume))
        }
        token.cancel()
        // Interrupts a read in flight at once (a server or delegate that never answers), and lets the
        // kept packets go; the container itself is let go once no job uses it.
        demuxer?.close()
        for resume in waiters { resume() }
        if !state.value.running { closeReader() }
    }

    /// Starts a job reading on, unless one runs, the end was read, or enough is read.
    private func readOn() {
        // Asked outside the lock: it reads the item, whose release (and deinit) must not happen inside it.
        let target = max(PlaybackBuffer.enough, forward())
        let start = state.change { s -> Bool in
            guard !s.running, !s.stopped, !s.failed, !s.range.ended, !s.full,
                  s.range.ahead(of: s.playhead) < target else { return false }
            s.running = true
            return true
        }
        if start { IOExecutor.shared.submit { [self] in read() } }
    }

    /// Reads on from where reading stands until `forward()` seconds beyond the playhead, half a second
    /// at a time (each step reported), on an engine thread.
    private func read() {
        defer {
            let stopped = state.change { s -> Bool in
                s.running = false
                return s.stopped
            }
            if stopped { closeReader() } else { readOn() }
        }
        while true {
            let forward = max(PlaybackBuffer.enough, self.forward())
            let (generation, token, positioned, from, target) = state.change { s in
                (s.generation, s.token, s.positioned, s.range.end, s.playhead.seconds + forward)
            }
            guard !token.isCancelled, from.seconds < target, let demuxer else { return }
            do {
                // The demuxer seeks only where reading on would not get there (a container just opened
                // reads from the start without one: HLS cannot seek before it has read, and need not).
                let progress = try AVError.converting {
                    try demuxer.readAhead(from: from.seconds, through: min(target, from.seconds + 0.5), placing: !positioned, token)
                }
                let (reached, ended) = (progress.reached, progress.ended)
                let resumed = state.change { s -> [@Sendable () -> Void]? in
                    guard s.generation == generation else { return nil }
                    s.positioned = true
                    if progress.full { s.full = true }
                    if let reached, reached.isFinite {
                        let time = CMTime(seconds: reached, preferredTimescale: 90_000)
                        if time > s.range.end { s.range.end = time }
                    }
                    s.range.ended = ended
                    let ahead = s.range.ahead(of: s.playhead)
                    let ready = s.waiters.filter { ahead >= $0.need }.map(\.resume)
                    s.waiters.removeAll { ahead >= $0.need }
                    return ready
                }
                guard let resumed else { continue }
                onChange()
                for resume in resumed { resume() }
                // Full: reading tries again a quarter of a second later.
                if progress.full {
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.25) { [weak self] in
                        self?.state.change { $0.full = false }
                        self?.readOn()
                    }
                }
                if ended || progress.full { return }
            } catch {
                let failure = AVError.converting(error)
                let (current, waiters) = state.change { s -> (Bool, [@Sendable () -> Void]) in
                    guard s.generation == generation, !token.isCancelled else { return (false, []) }
                    s.failure = failure
                    defer { s.waiters = [] }
                    return (true, s.waiters.map(\.resume))
                }
                guard current else { continue }
                onFailure(failure)
                for resume in waiters { resume() }
                return
            }
        }
    }
}
