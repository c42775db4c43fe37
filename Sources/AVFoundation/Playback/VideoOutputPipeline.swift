internal import MediaEngine
import Foundation
internal import Locking

/// The pictures of one item decoded ahead for a video output, at most `capacity` at a time, by jobs on
/// the engine's threads that each fill the buffer and end (no thread waits for room).
///
/// Where they come from (`PictureFeed`): a file's video track without a video composition is decoded in
/// order and each picture converted once, from the decoder's frame straight into a pixel buffer of the
/// output's format from a pool that is reused; anything else (a video composition, a composition's
/// segments) is rendered picture by picture through the reading layer's `PictureSource`.
final class VideoOutputPipeline: Sendable {
    struct Frame {
        var time: CMTime
        var end: CMTime
        let buffer: CVPixelBuffer
    }

    private struct State {
        var frames: [Frame] = []
        /// Where decoding goes on from.
        var next = CMTime.zero
        var running = false
        var ended = false
        var generation = 0
        /// Cancelled when decoding starts over elsewhere: the picture being decoded for the old place
        /// is abandoned at its next packet.
        var token = CancellationToken()
        var lastHanded: CMTime?
        /// Since decoding started over (a seek, a preroll, a step away), only the first picture is
        /// decoded ahead, until the player's time runs (its first tick) or the app asks for a later
        /// picture: a paused player being scrubbed decodes one picture a place, and its decoder is free
        /// for the next place at once instead of finishing a picture for this one.
        var lean = false
        var onFlush: (@Sendable () -> Void)?
        /// Called once when the next picture is buffered (or decoding ends).
        var onBuffered: [@Sendable () -> Void] = []

        /// Whether the picture showing at `time` is buffered, or no picture will come (decoding ended).
        func holds(_ time: CMTime) -> Bool {
            ended || frames.contains { $0.time <= time && time < $0.end }
        }

        /// How many pictures are decoded ahead: one while lean, else the capacity.
        var wanted: Int { lean ? 1 : VideoOutputPipeline.capacity }

        /// The time moved to `time`: past the first picture buffered, decoding ahead goes on in full.
        mutating func moved(to time: CMTime) {
            guard lean, let first = frames.first, time >= first.end else { return }
            lean = false
        }

        /// Drops the buffer and starts decoding over at `time`; returns the token of the decoding
        /// abandoned, to cancel outside the lock.
        mutating func restart(at time: CMTime) -> CancellationToken {
            frames = []
            next = time
            ended = false
            generation += 1
            lastHanded = nil
            lean = true
            defer { token = CancellationToken() }
            return token
        }
    }

    /// The feed and the generation it was last started for; touched only by the one fill job running,
    /// under `decoding`'s lock.
    private final class Decoding: @unchecked Sendable {
        var feed: (any PictureFeed)?
        var generation = -1
    }

    static let capacity = 6
    private let item: WeakBox<AVPlayerItem>
    private let pixelFormat: OSType
    private let size: (width: Int, height: Int)?
    private let state = LockedState(State())
    private let decoding = Locked(Decoding())
    private let rendered: PictureSource.KeptReader

    init(item: AVPlayerItem, pixelFormat: OSType, size: (width: Int, height: Int)?) {
        self.item = WeakBox(item)
        self.pixelFormat = pixelFormat
        self.size = size
        rendered = PictureSource.KeptReader(PictureSource(asset: item.asset))
    }

    deinit {
        rendered.release()
    }

    @discardableResult
    private func change<T>(_ body: (inout State) -> T) -> T {
        state.change(body)
    }

    func onFlush(_ handler: @escaping @Sendable () -> Void) { change { $0.onFlush = handler } }

    func whenBuffered(_ handler: @escaping @Sendable () -> Void) {
        let now = change { s -> Bool in
            if !s.frames.isEmpty { return true }
            s.onBuffered.append(handler)
            return false
        }
        if now { handler() }
        refill()
    }

    /// Whether the picture showing at `time` is buffered, or no picture will come (decoding ended).
    func holds(_ time: CMTime) -> Bool {
        change { $0.holds(time) }
    }

    /// The pictures buffered, and whether a job is decoding more (for tests).
    var decodedAhead: (pictures: Int, decoding: Bool) {
        change { ($0.frames.count, $0.running) }
    }

    /// Makes sure the picture at `time` is decoded next (starting over there unless it is buffered or
    /// decoding has just started there), and calls `handler` once a picture is buffered or decoding
    /// ends; the caller checks `holds(_:)` then.
    func prepare(at time: CMTime, then handler: @escaping @Sendable () -> Void) {
        guard time.isNumeric else { return handler() }
        let (held, stale, flushed) = change { s -> (Bool, CancellationToken?, (@Sendable () -> Void)?) in
            s.frames.removeAll { $0.end <= time }
            if s.holds(time) { return (true, nil, nil) }
            s.onBuffered.append(handler)
            // Already starting there: the next picture is the one asked for.
            if s.frames.isEmpty && s.next == time { return (false, nil, nil) }
            return (false, s.restart(at: time), s.onFlush)
        }
        stale?.cancel()
        flushed?()
        if stale != nil { restarted() }
        if held { handler() }
        refill()
    }

    /// The buffered frame showing at `time`, dropping older ones; restarts decoding at `time` when
    /// it lies outside what is buffered or being decoded.
    private func frame(at time: CMTime) -> Frame? {
        guard time.isNumeric else { return nil }
        let (found, flushed, stale) = change { s -> (Frame?, (@Sendable () -> Void)?, CancellationToken?) in
            s.moved(to: time)
            s.frames.removeAll { $0.end <= time }
            if let first = s.frames.first, first.time <= time { return (first, nil, nil) }
            // Before the buffer (a step back), or far from where decoding stands (a jump): start over there.
            let before = s.frames.first.map { time < $0.time } ?? false
            let away = s.frames.isEmpty && (time < s.next - CMTime(value: 1, timescale: 10) || time > s.next + CMTime(value: 1, timescale: 1))
            if before || away || s.ended && time < s.next {
                return (nil, s.onFlush, s.restart(at: time))
            }
            return (nil, nil, nil)
        }
        stale?.cancel()
        flushed?()
        if stale != nil { restarted() }
        refill()
        return found
    }

    /// Decoding started over (lean): the player's next tick, which lets decoding ahead go on in full,
    /// comes within 10 ms rather than when its clock has next thing due.
    private func restarted() {
        item.value?.player?.updateTicking()
    }

    /// The player's time runs (its tick: the player ticks only while its rate is not zero): decoding
    /// ahead goes on in full at once, so the pictures after the first are ready when they are due.
    func advanced(to time: CMTime) {
        let more = change { s -> Bool in
            defer { s.lean = false }
            return s.lean
        }
        if more { refill() }
    }

    func hasNew(at time: CMTime) -> Bool {
        guard let frame = frame(at: time) else { return false }
        return change { $0.lastHanded != frame.time }
    }

    func take(at time: CMTime) -> (CVPixelBuffer, CMTime)? {
        guard let frame = frame(at: time) else { return nil }
        change { $0.lastHanded = frame.time }
        refill()
        return (frame.buffer, frame.time)
    }

    /// Starts a job filling the buffer, unless one runs or the buffer is full.
    func refill() {
        let start = change { s -> Bool in
            guard !s.running, !s.ended, s.frames.count < s.wanted, item.value?.status == .readyToPlay else { return false }
            s.running = true
            return true
        }
        guard start else { return }
        IOExecutor.shared.submit { [self] in fill() }
    }

    /// Decodes pictures from where decoding stands until the buffer is full, on an engine thread (one
    /// job at a time: `running`).
    private func fill() {
        defer {
            change { $0.running = false }
            let more = change { s in s.frames.count < s.wanted && !s.ended }
            if more { refill() }
        }
        guard let item = item.value else { return }
        decoding.withLock { decoding in
            if decoding.feed == nil { decoding.feed = makeFeed(for: item) }
            guard let feed = decoding.feed else {
                let waiting = change { s -> [@Sendable () -> Void] in
                    s.ended = true
                    defer { s.onBuffered = [] }
                    return s.onBuffered
                }
                for handler in waiting { handler() }
                return
            }
            fill(from: feed, startedFor: &decoding.generation)
        }
    }

    private func fill(from feed: any PictureFeed, startedFor started: inout Int) {
        while true {
            let (time, generation, full, token) = change { s in (s.next, s.generation, s.frames.count >= s.wanted, s.token) }
            if full { return }
            let restarted = started != generation
            var picture: Frame?
            do {
                if restarted {
                    try feed.start(at: time, token)
                    started = generation
                }
                picture = try feed.next(token)
            } catch {
                picture = nil
            }
            guard var frame = picture else {
                let waiting = change { s -> [@Sendable () -> Void] in
                    guard s.generation == generation else { return [] }
                    s.ended = true
                    defer { s.onBuffered = [] }
                    return s.onBuffered
                }
                for handler in waiting { handler() }
                return
            }
            // The first picture after a start shows from the time asked for (an HLS stream's first
            // picture comes a little after its start); every picture lasts at least a tick.
            if restarted && frame.time > time { frame.time = time }
            frame.end = max(frame.end, frame.time + CMTime(value: 1, timescale: 90_000))
            let notify = change { s -> [@Sendable () -> Void] in
                guard s.generation == generation else { return [] }
                if let last = s.frames.indices.last {
                    // A picture at or before the one buffered last (a repeated timestamp) is dropped.
                    guard frame.time > s.frames[last].time else { return [] }
                    // The one before shows until this one does: across a gap, and no longer than that.
                    s.frames[last].end = frame.time
                }
                s.frames.append(frame)
                s.next = frame.end
                defer { s.onBuffered = [] }
                return s.onBuffered
            }
            for handler in notify { handler() }
        }
    }

    /// The feed for `item`: the file's pictures in order when the item shows one file track as it is,
    /// else rendered ones.
    private func makeFeed(for item: AVPlayerItem) -> (any PictureFeed)? {
        guard let tracks = try? item.asset.blockingFacts().get().tracks else { return nil }
        if item.videoComposition == nil, let file = FilePictureFeed.track(of: item, in: tracks) {
            return FilePictureFeed(file: file, demuxer: { [weak item] in item?.snapshot.buffer?.demuxer }, pixelFormat: pixelFormat, size: size)
        }
        return RenderedPictureFeed(reader: rendered, item: item, tracks: tracks, pixelFormat: pixelFormat, size: size)
    }
}
