internal import CFFmpeg
import Foundation

/// The one container a player item reads for the streams it plays: read ahead of the item's time
/// (`readAhead`), its packets kept in a bounded queue for each stream that has a consumer (a decoder's
/// `StreamReader`, through `StreamReader(demuxer:streamIndex:)`) and dropped for the others once their
/// times are counted. So the bytes a read-ahead pulled (from a file, a network or a resource loader
/// delegate) are the ones decoded, and the item's file is opened once for its read-ahead and its
/// pictures.
///
/// Seeks are shared: the container seeks when a reader or the read-ahead asks for a time that what is
/// read cannot reach (before where reading started, or more than a second past what was read), and
/// every queue is then emptied; a time inside what is read costs no seek (a consumer's queue is cut at
/// its keyframe at or before the time).
///
/// Blocking: every method runs on an engine thread. Thread-safe: the container is used under one
/// lock, a packet at a time, so a reader waits for the read-ahead at most one packet's read. Holds the
/// source open until the last reference goes.
package final class ItemDemuxer: @unchecked Sendable {
    /// How far the read-ahead got.
    package struct Progress: Sendable, Equatable {
        /// The latest item time (seconds) a packet read since the last seek ended at; nil when none had a time.
        package var reached: Double?
        /// Whether the container's end was read.
        package var ended: Bool
        /// Whether the read-ahead stopped because the queues hold `byteLimit` bytes of packets not yet
        /// taken by their readers.
        package var full: Bool
    }

    /// Bytes of packets the queues hold before the read-ahead pauses (a reader taking its packets
    /// reads on past it): 64 MiB unless told, some 50 s of 1080p H.264 at 10 Mbit/s.
    package let byteLimit: Int
    /// Bytes of a stream's packets kept from the start for a reader yet to come (`retaining`).
    static let retentionLimit = 8 << 20
    /// How far past what was read a time may lie and still be reached by reading on rather than by a seek.
    static let readThrough = 1.0

    /// A stream's queue: its packets read and not yet taken, oldest first.
    final class Queue {
        let index: Int32
        var packets: [UnsafeMutablePointer<AVPacket>] = []
        var head = 0
        /// The bytes of the packets held.
        var bytes = 0
        /// Whether the queue holds every packet of its stream read since the last seek.
        var complete: Bool

        init(index: Int32, complete: Bool) {
            self.index = index
            self.complete = complete
        }

        var isEmpty: Bool { head >= packets.count }

        func popFirst() -> UnsafeMutablePointer<AVPacket>? {
            guard head < packets.count else { return nil }
            let first = packets[head]
            head += 1
            bytes -= Int(max(0, first.pointee.size))
            if head >= 64 && head * 2 >= packets.count {
                packets.removeFirst(head)
                head = 0
            }
            return first
        }

        /// Frees every packet; returns their bytes.
        func clear() -> Int {
            var bytes = 0
            for i in head..<packets.count {
                bytes += Int(max(0, packets[i].pointee.size))
                var p: UnsafeMutablePointer<AVPacket>? = packets[i]
                av_packet_free(&p)
            }
            packets = []
            head = 0
            self.bytes = 0
            return bytes
        }
    }

    private let lock = NSLock()
    /// The source's name, once opened.
    private var name = "the item's media"
    private let open: @Sendable (CancellationToken) throws -> any ByteSource
    private let options: DemuxerOptions
    private let streamIndices: [Int]
    private var reader: PacketReader?
    private var scratch: UnsafeMutablePointer<AVPacket>?
    private var queues: [Int32: Queue] = [:]
    private var queuedBytes = 0
    /// Streams whose packets are kept from the container's start, until the first seek or
    /// `retentionLimit`, for a reader that comes once reading has begun (a video output's, once the
    /// item is ready): it then starts where the container started, without a seek (HLS cannot seek to
    /// its very start).
    private var retaining: Set<Int32>
    private var retained: [Int32: Queue] = [:]
    /// Item time (seconds) where reading started: 0 when opened, the time sought since.
    private var readFrom = 0.0
    private var reached: Double?
    private var ended = false
    private var packetsRead = 0
    private var closed = false
    private var seekCount = 0

    /// A demuxer over the streams at `streamIndices` (FFmpeg's indices; at least one) of the bytes
    /// `open` gives, keeping the first packets of those at `retain` for readers yet to come. Opens
    /// nothing until first used.
    package init(options: DemuxerOptions, streamIndices: [Int], retain: [Int] = [], byteLimit: Int = 64 << 20,
                 open: @escaping @Sendable (CancellationToken) throws -> any ByteSource) {
        self.byteLimit = byteLimit
        retaining = Set(retain.map { Int32(clamping: $0) })
        self.options = options
        self.streamIndices = streamIndices
        self.open = open
    }

    deinit {
        for queue in queues.values { _ = queue.clear() }
        for queue in retained.values { _ = queue.clear() }
        var p = scratch
        av_packet_free(&p)
    }

    /// How many times the container has sought (for tests).
    package var seeks: Int { lock.withLock { seekCount } }

    /// Bytes of packets held for readers.
    package var heldBytes: Int { lock.withLock { queuedBytes } }

    /// Stops for good: every later read fails as cancelled. The container is let go with the demuxer.
    package func close() {
        lock.withLock { closed = true }
    }

    /// Reads ahead from `start` (item seconds) until a packet ends at or after `target`, the end, or the
    /// queues are full; seeks first when reading on would not reach `start`. Blocking.
    package func readAhead(from start: Double, through target: Double, _ token: CancellationToken) throws -> Progress {
        try lock.withLock {
            let reader = try opened(token)
            if !reaches(max(0, start)) {
                let lead = queues.keys.min() ?? reader.streamIndex
                let tb = reader.timeBase(of: lead)
                let exact = tb.num > 0 ? (max(0, start) * Double(tb.den) / Double(tb.num)).rounded(.down) : 0
                let ticks = exact.isFinite ? Int64(saturating: exact) : 0
                try seek(reader, stream: lead, atOrBefore: ticks.addingSaturating(reader.origin(in: tb)), token)
            }
        }
        while true {
            let progress: Progress? = try lock.withLock {
                let reader = try opened(token)
                if !ended && queuedBytes < byteLimit && (reached ?? -.infinity) < target {
                    try readOne(reader, token)
                }
                if ended || queuedBytes >= byteLimit || (reached ?? -.infinity) >= target {
                    return Progress(reached: reached, ended: ended, full: !ended && queuedBytes >= byteLimit)
                }
                return nil
            }
            if let progress { return progress }
        }
    }

    /// A reader of the stream at `index`'s packets from this container; nil when the stream is not one
    /// of those read or already has its reader (a second one opens its own container). Blocking: opens
    /// the container when nothing has yet.
    func consumer(of index: Int, _ token: CancellationToken) throws -> Consumer? {
        try lock.withLock {
            let reader = try opened(token)
            let i = Int32(clamping: index)
            guard streamIndices.contains(index), queues[i] == nil, let stream = reader.stream(at: i) else { return nil }
            let queue: Queue
            if let kept = retained.removeValue(forKey: i) {
                queue = kept
                queuedBytes += kept.bytes
            } else {
                queue = Queue(index: i, complete: packetsRead == 0)
            }
            retaining.remove(i)
            queues[i] = queue
            return Consumer(demuxer: self, queue: queue, stream: stream, origin: reader.origin(in: stream.pointee.time_base))
        }
    }

    /// A stream's packets from the shared container, as a `PacketSource`.
    final class Consumer: PacketSource {
        private let demuxer: ItemDemuxer
        private let queue: Queue
        /// Valid while the demuxer lives; used under its lock (reading the container may update it).
        private let stream: UnsafeMutablePointer<AVStream>
        private let originTicks: Int64
        let timeBase: AVRational

        fileprivate init(demuxer: ItemDemuxer, queue: Queue, stream: UnsafeMutablePointer<AVStream>, origin: Int64) {
            self.demuxer = demuxer
            self.queue = queue
            self.stream = stream
            originTicks = origin
            timeBase = stream.pointee.time_base
        }

        deinit { demuxer.remove(queue) }

        var name: String { demuxer.lock.withLock { demuxer.name } }
        func withStream<T>(_ body: (UnsafeMutablePointer<AVStream>) throws -> T) rethrows -> T {
            demuxer.lock.lock()
            defer { demuxer.lock.unlock() }
            return try body(stream)
        }
        var standsAtStart: Bool { demuxer.standsAtStart(queue) }

        func origin(in timeBase: AVRational) -> Int64 {
            guard timeBase.num == self.timeBase.num, timeBase.den == self.timeBase.den else {
                return av_rescale_q(originTicks, self.timeBase, timeBase)
            }
            return originTicks
        }

        func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
            try demuxer.seek(queue, atOrBefore: timestamp, token)
        }

        func next(_ packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
            try demuxer.next(queue, into: packet, token)
        }
    }

    // MARK: - Under the lock

    private func opened(_ token: CancellationToken) throws -> PacketReader {
        if closed || token.isCancelled {
            throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled")
        }
        if let reader { return reader }
        guard let packet = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "read", reason: "out of memory")
        }
        scratch = packet
        let source = try open(token)
        name = source.name
        let made = try PacketReader(source: source, options: options, streamIndices: streamIndices, cancellation: token)
        reader = made
        return made
    }

    /// Whether reading on from where the container stands reaches `seconds` of item time.
    private func reaches(_ seconds: Double) -> Bool {
        seconds >= readFrom && (ended || seconds <= (reached ?? readFrom) + Self.readThrough)
    }

    private func seek(_ reader: PacketReader, stream: Int32, atOrBefore ticks: Int64, _ token: CancellationToken) throws {
        seekCount += 1
        for queue in queues.values {
            queuedBytes -= queue.clear()
            queue.complete = true
        }
        for queue in retained.values { _ = queue.clear() }
        (retained, retaining) = ([:], [])
        let tb = reader.timeBase(of: stream)
        let seconds = tb.den > 0 ? Double(ticks.subtractingSaturating(reader.origin(in: tb))) * Double(tb.num) / Double(tb.den) : 0
        (readFrom, reached, ended, packetsRead) = (seconds.isFinite ? max(0, seconds) : 0, nil, false, 0)
        try reader.seek(stream: stream, atOrBefore: ticks, token)
    }

    /// Reads one packet: counts how far its time reaches, and queues it for its stream's reader.
    private func readOne(_ reader: PacketReader, _ token: CancellationToken) throws {
        guard let packet = scratch else { return }
        guard try reader.next(packet, token) else {
            ended = true
            return
        }
        packetsRead += 1
        let p = packet.pointee
        let tb = reader.timeBase(of: p.stream_index)
        let start = p.pts != avocet_nopts_value() ? p.pts : p.dts
        if start != avocet_nopts_value(), tb.num > 0, tb.den > 0 {
            let ticks = start.addingSaturating(max(0, p.duration)).subtractingSaturating(reader.origin(in: tb))
            let end = Double(ticks) * Double(tb.num) / Double(tb.den)
            if end.isFinite { reached = max(reached ?? end, end) }
        }
        if let queue = queues[p.stream_index] {
            queuedBytes += try keep(packet, in: queue)
        } else if retaining.contains(p.stream_index) {
            let queue = retained[p.stream_index] ?? Queue(index: p.stream_index, complete: true)
            retained[p.stream_index] = queue
            _ = try keep(packet, in: queue)
            if queue.bytes > Self.retentionLimit {
                _ = queue.clear()
                retained[p.stream_index] = nil
                retaining.remove(p.stream_index)
            }
        }
    }

    /// Moves `packet` to the end of `queue`; returns its bytes.
    private func keep(_ packet: UnsafeMutablePointer<AVPacket>, in queue: Queue) throws -> Int {
        guard let kept = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "read", reason: "out of memory")
        }
        av_packet_move_ref(kept, packet)
        queue.packets.append(kept)
        let bytes = Int(max(0, kept.pointee.size))
        queue.bytes += bytes
        return bytes
    }

    private func standsAtStart(_ queue: Queue) -> Bool {
        lock.withLock { queue.complete && readFrom <= 0 && queue.head == 0 }
    }

    private func remove(_ queue: Queue) {
        lock.withLock {
            queuedBytes -= queue.clear()
            if queues[queue.index] === queue { queues[queue.index] = nil }
        }
    }

    /// A reader's seek: inside what is read, its queue is cut at its last keyframe at or before
    /// `timestamp` (or, holding every packet since the last seek, kept); elsewhere the container seeks.
    private func seek(_ queue: Queue, atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        try lock.withLock {
            let reader = try opened(token)
            let tb = reader.timeBase(of: queue.index)
            let ticks = timestamp.subtractingSaturating(reader.origin(in: tb))
            let seconds = tb.den > 0 ? Double(ticks) * Double(tb.num) / Double(tb.den) : 0
            if reaches(seconds) {
                let nopts = avocet_nopts_value()
                let keyframe = (queue.head..<queue.packets.count).last { i in
                    let p = queue.packets[i].pointee
                    let time = p.pts != nopts ? p.pts : p.dts
                    return p.flags & AV_PKT_FLAG_KEY != 0 && time != nopts && time <= timestamp
                }
                if let keyframe {
                    for _ in queue.head..<keyframe {
                        guard let dropped = queue.popFirst() else { break }
                        queuedBytes -= Int(max(0, dropped.pointee.size))
                        var p: UnsafeMutablePointer<AVPacket>? = dropped
                        av_packet_free(&p)
                    }
                    queue.complete = false
                    return
                }
                if queue.complete { return }
            }
            try seek(reader, stream: queue.index, atOrBefore: timestamp, token)
        }
    }

    /// A reader's next packet: the oldest queued, else read on until its stream has one.
    private func next(_ queue: Queue, into packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
        while true {
            let outcome: Bool? = try lock.withLock {
                if let first = queue.popFirst() {
                    queue.complete = false
                    queuedBytes -= Int(max(0, first.pointee.size))
                    av_packet_unref(packet)
                    av_packet_move_ref(packet, first)
                    var p: UnsafeMutablePointer<AVPacket>? = first
                    av_packet_free(&p)
                    return true
                }
                let reader = try opened(token)
                if ended { return false }
                try readOne(reader, token)
                return nil
            }
            if let outcome { return outcome }
        }
    }
}
