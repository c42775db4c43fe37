import Foundation
internal import MediaEngine

/// Decodes an audio file ahead of its reader, on a thread of its own: while the caller converts or
/// processes one buffer, the next is being decoded (a second core does the decoding). At most `depth`
/// chunks wait (interleaved float at the stream's rate): the first after a start or a restart of 4,096
/// frames, so that a short read there waits for little, each next one twice the last up to
/// `chunkFrames` (by default 65,536 frames, or 512 KiB of samples for more than two channels); the
/// thread starts at the first read, and ends at the end of the stream, at an error, or when the file
/// goes.
///
/// With `inline`, there is no thread: reads decode on the calling thread (for a reader whose decoder
/// already works ahead on threads of its own), and `reader` is touched by that one consumer only.
/// One consumer at a time (``AVAudioFile``'s lock). ``restart(_:)`` pauses the thread, lets the
/// caller move or replace the engine's reader, and drops what was decoded for the old position.
final class DecodeAhead: @unchecked Sendable {
    // @unchecked Sendable: every field below is guarded by `condition`; `reader` is used by the thread
    // only while `busy`, and by `restart` only while paused and not busy.
    private let condition = NSCondition()
    private var reader: AudioSampleReader
    private var chunks: [[Float]] = []
    /// Samples of `chunks[0]` already read.
    private var offset = 0
    private var ended = false
    private var failure: (any Error)?
    private var busy = false
    private var paused = false
    private var running = false
    private var stopped = false
    /// Where the reader's first frame lies (its `firstFrame`), once known.
    private var first: Int64?
    private let channels: Int
    private let chunkFrames: Int
    private let depth: Int
    private let token: CancellationToken
    /// Whether reads decode on the calling thread (no thread of its own).
    private let inline: Bool
    /// The frames of the next chunk the thread decodes.
    private var nextChunk: Int
    private static let firstChunk = 4_096

    /// `chunkFrames`: the largest chunk; nil for 65,536 frames, fewer for more than two channels.
    init(_ reader: AudioSampleReader, channels: Int, token: CancellationToken, chunkFrames: Int? = nil, depth: Int = 4, inline: Bool = false) {
        let largest = max(1, chunkFrames ?? min(65_536, max(Self.firstChunk, 131_072 / max(1, channels))))
        (self.reader, self.channels, self.token, self.chunkFrames, self.depth) = (reader, channels, token, largest, depth)
        self.inline = inline
        nextChunk = min(Self.firstChunk, largest)
    }

    /// Where the decoded sound's first frame lies (the engine reader's `firstFrame`); nil until known.
    var firstFrame: Int64? {
        condition.lock()
        defer { condition.unlock() }
        return inline ? reader.firstFrame : first
    }

    /// Lends `body` up to `frames` decoded frames (interleaved float), waiting for the thread while
    /// none is ready; returns what `body` returns, having counted as read the frames it was lent. At
    /// the end of the stream `body` gets none. Throws the decoding's error once everything decoded
    /// before it was read.
    func read<T>(_ frames: Int, _ body: (UnsafeBufferPointer<Float>) throws -> T) throws -> T {
        if inline { return try reader.read(frames, token, body) }
        condition.lock()
        while chunks.isEmpty && !ended && failure == nil {
            if !running { start() }
            condition.wait()
        }
        guard let chunk = chunks.first else {
            let error = failure
            condition.unlock()
            if let error { throw error }
            return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
        let from = offset
        condition.unlock()
        let taken = min(max(0, frames) * channels, chunk.count - from)
        let result = try chunk.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[from..<(from + taken)])) }
        condition.lock()
        offset += taken
        if offset >= chunk.count {
            chunks.removeFirst()
            offset = 0
            condition.broadcast()
        }
        condition.unlock()
        return result
    }

    /// Pauses the thread once its chunk in hand is done, drops what was decoded, and runs `change`
    /// on the calling thread with the engine's reader: it moves the reader (`start(at:)`) or returns
    /// another in its place. Reading then goes on from there.
    func restart(_ change: (AudioSampleReader) throws -> AudioSampleReader) throws {
        condition.lock()
        paused = true
        while busy { condition.wait() }
        (chunks, offset, ended, failure, first) = ([], 0, false, nil, nil)
        nextChunk = min(Self.firstChunk, chunkFrames)
        let current = reader
        condition.unlock()
        defer {
            condition.lock()
            paused = false
            condition.broadcast()
            condition.unlock()
        }
        let next = try change(current)
        condition.lock()
        reader = next
        condition.unlock()
    }

    /// Ends the thread (the file is closed or gone); a decode in hand finishes first.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Starts the thread; called with the lock held.
    private func start() {
        running = true
        let thread = Thread { [self] in run() }
        thread.name = "avocet-audiofile"
        thread.start()
    }

    /// The thread: decodes a chunk whenever there is room, until the end, an error or `stop()`.
    private func run() {
        while true {
            condition.lock()
            while !stopped && (paused || chunks.count >= depth) { condition.wait() }
            if stopped {
                running = false
                condition.broadcast()
                condition.unlock()
                return
            }
            busy = true
            let current = reader
            let frames = nextChunk
            nextChunk = min(frames * 2, chunkFrames)
            condition.unlock()
            let decoded = Result { try current.read(frames, token) }
            let known = current.firstFrame
            condition.lock()
            busy = false
            switch decoded {
            case .success(let samples) where samples.isEmpty:
                ended = true
            case .success(let samples):
                chunks.append(samples)
            case .failure(let error):
                failure = error
            }
            if first == nil { first = known }
            let done = ended || failure != nil
            if done { running = false }
            condition.broadcast()
            condition.unlock()
            if done { return }
        }
    }
}
