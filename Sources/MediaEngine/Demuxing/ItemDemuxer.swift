internal import CFFmpeg
import Foundation

/// The one container a player item reads for the streams it plays. The read-ahead (`readAhead`) reads
/// it ahead of the item's time, and every packet read is kept, stream by stream, from a little behind
/// the item's time (`keep(from:)`) to where reading reached; the decoders (`StreamReader` for pictures,
/// `AudioSampleReader` for sound, through `StreamReader(demuxer:streamIndex:cancellation:)` and
/// `AudioSampleReader(demuxer:…)`) each read their stream's packets from there with a cursor of their
/// own. So the bytes the read-ahead pulled (from a file, a network or a resource loader delegate) are
/// the ones decoded, the item's file is opened once, and a decoder that starts again inside what is
/// kept (the sound after a pause, pictures after a seek into what was read) costs no seek.
///
/// Seeks are shared: the container seeks when a decoder or the read-ahead asks for a time that what is
/// kept cannot give (before it, or more than a second past what was read); everything kept is then let
/// go, and a decoder whose place was lost goes on from its last packet (found again among the packets
/// read after the seek, or by a seek back to it).
///
/// Memory: what is kept is bounded by time (from the last keyframe at or before `keep(from:)` to what
/// was read) and by `byteLimit`, where the read-ahead pauses; a decoder reading on past it keeps one
/// stream going. Before the first `keep(from:)` everything read from the start is kept, so a decoder
/// that comes once reading began (a video output added while the item loads) starts at the beginning
/// without a seek (HLS cannot seek to its very start).
///
/// Blocking: every method runs on an engine thread. Thread-safe: the container is used under one lock,
/// a packet at a time, and what is kept under another, so a decoder finding its packet kept does not
/// wait for a read in flight. Holds the source open until the last reference goes.
package final class ItemDemuxer: @unchecked Sendable {
    /// How far the read-ahead got.
    package struct Progress: Sendable, Equatable {
        /// The latest item time (seconds) a packet read since the last seek ended at; nil when none had a time.
        package var reached: Double?
        /// Whether the container's end was read.
        package var ended: Bool
        /// Whether the read-ahead stopped because `byteLimit` bytes of packets are kept.
        package var full: Bool
    }

    /// Bytes of packets kept before the read-ahead pauses: 64 MiB unless told, some 50 s of 1080p
    /// H.264 at 10 Mbit/s with its sound.
    package let byteLimit: Int
    /// How far past what was read a time may lie and still be reached by reading on rather than by a seek.
    static let readThrough = 1.0

    /// A stream's kept packets, oldest first, numbered from the first read since the demuxer opened.
    final class Track {
        let index: Int32
        /// The stream's time base and item time zero in its ticks (cursors are placed without the container).
        let timeBase: AVRational
        let origin: Int64
        var packets: [UnsafeMutablePointer<AVPacket>] = []
        /// Each packet's item time in seconds (its presentation time, else its decode time; nil: none).
        var times: [Double?] = []
        /// The number of `packets[0]`.
        var base = 0
        var bytes = 0
        /// Whether every packet read since the last seek is still kept.
        var whole = true
        /// How far `trim` has looked (packet number), the last keyframe it saw at or before `scannedTo`,
        /// and the time it looked for: trimming looks at each packet once while that time moves on.
        var scanned = 0
        var scannedKeyframe: Int?
        var scannedTo = -Double.infinity

        init(index: Int32, timeBase: AVRational, origin: Int64) {
            self.index = index
            self.timeBase = timeBase
            self.origin = origin
        }

        /// `ticks` of the stream in item seconds.
        func seconds(_ ticks: Int64) -> Double {
            guard timeBase.num > 0, timeBase.den > 0 else { return 0 }
            let s = Double(ticks.subtractingSaturating(origin)) * Double(timeBase.num) / Double(timeBase.den)
            return s.isFinite ? s : 0
        }

        var end: Int { base + packets.count }

        /// Lets the first `count` packets go; returns their bytes.
        func dropFirst(_ count: Int) -> Int {
            let n = min(count, packets.count)
            guard n > 0 else { return 0 }
            var freed = 0
            for i in 0..<n {
                freed += Int(max(0, packets[i].pointee.size))
                var p: UnsafeMutablePointer<AVPacket>? = packets[i]
                av_packet_free(&p)
            }
            packets.removeFirst(n)
            times.removeFirst(n)
            base += n
            bytes -= freed
            whole = false
            return freed
        }

        /// Lets every packet go; returns their bytes.
        func clear() -> Int {
            let freed = dropFirst(packets.count)
            whole = true
            return freed
        }
    }

    /// A decoder's place in its stream's packets.
    final class Cursor {
        let track: Track
        /// The number of the next packet handed out.
        var position: Int
        /// The decode time (else presentation time) of the last packet handed out, in container ticks.
        var last: Int64?
        /// Packets up to this decode time are skipped (a seek back to the last packet handed out).
        var skipsThrough: Int64?
        /// Whether a seek for another let this cursor's place go.
        var displaced = false
        /// The time (container ticks) of the cursor's own last seek.
        var target: Int64?

        init(track: Track) {
            self.track = track
            position = track.base
        }
    }

    /// The container: opened, read and sought under it.
    private let container = NSLock()
    /// What interrupts the container's reads and seeks: only `close()`. A decoder's or the read-ahead's
    /// own cancellation is looked at between packets, never inside FFmpeg: an interrupted read leaves a
    /// demuxer (HLS's above all) unable to go on, and the container is everyone's.
    private let life = CancellationToken()
    /// What is kept, the cursors and the counts.
    private let lock = NSLock()
    /// The source's name, once opened.
    private var name = "the item's media"
    private let open: @Sendable (CancellationToken) throws -> any ByteSource
    private let options: DemuxerOptions
    private let streamIndices: [Int]
    // Under `container`:
    private var reader: PacketReader?
    private var scratch: UnsafeMutablePointer<AVPacket>?
    private var indexes: [Int32: KeyframeIndex] = [:]
    // Under `lock`:
    private var tracks: [Int32: Track] = [:]
    private var cursors: [ObjectIdentifier: Cursor] = [:]
    private var keptBytes = 0
    /// Item time (seconds) where reading started: 0 when opened, the time sought since.
    private var readFrom = 0.0
    private var reached: Double?
    private var ended = false
    private var closed = false
    private var seekCount = 0
    /// Packets before the last keyframe at or before this item time are let go.
    private var keepFrom = -Double.infinity
    /// Whether a packet with a time has been read since the last seek (the first one's time, earlier
    /// than the time sought when the seek landed on a keyframe before it, is where reading started).
    private var placedSinceSeek = false

    /// A demuxer over the streams at `streamIndices` (FFmpeg's indices; at least one) of the bytes
    /// `open` gives. Opens nothing until first used.
    package init(options: DemuxerOptions, streamIndices: [Int], byteLimit: Int = 64 << 20,
                 open: @escaping @Sendable (CancellationToken) throws -> any ByteSource) {
        self.byteLimit = byteLimit
        self.options = options
        self.streamIndices = streamIndices
        self.open = open
    }

    deinit {
        for track in tracks.values { _ = track.clear() }
        var p = scratch
        av_packet_free(&p)
    }

    /// How many times the container has sought (for tests).
    package var seeks: Int { lock.withLock { seekCount } }

    /// Bytes of packets kept.
    package var keptByteCount: Int { lock.withLock { keptBytes } }

    /// Stops for good: lets what is kept go, and every later read fails as cancelled. The container is
    /// let go with the demuxer.
    package func close() {
        lock.withLock {
            closed = true
            for track in tracks.values { keptBytes -= track.clear() }
        }
        life.cancel()
    }

    /// Lets go of the packets before `seconds` of item time (from each stream's last keyframe at or
    /// before it on): the player's time less what a decoder starting again near it needs. Cheap: what
    /// is kept is trimmed at the next read.
    package func keep(from seconds: Double) {
        lock.withLock { keepFrom = seconds }
    }

    /// Reads ahead until a packet ends at or after `target`, the end, or `byteLimit` bytes are kept.
    /// With `placing` (the first read after the player's time jumped to `start`, item seconds), seeks
    /// first when reading on would not reach `start`; else reads on from where the container stands (a
    /// decoder's seek may have moved it: seeking away from the decoders would make them seek back).
    /// Blocking.
    package func readAhead(from start: Double, through target: Double, placing: Bool = true, _ token: CancellationToken) throws -> Progress {
        var first = true
        while true {
            let progress: Progress? = try container.withLock {
                let reader = try opened(token)
                if first && placing && !lock.withLock({ reaches(max(0, start)) }) {
                    let lead = reader.streamIndex
                    let tb = reader.timeBase(of: lead)
                    let exact = tb.num > 0 ? (max(0, start) * Double(tb.den) / Double(tb.num)).rounded(.down) : 0
                    let ticks = exact.isFinite ? Int64(saturating: exact) : 0
                    try seek(reader, stream: lead, atOrBefore: ticks.addingSaturating(reader.origin(in: tb)), for: nil, token)
                }
                first = false
                let done = lock.withLock { () -> Progress? in
                    for track in tracks.values { trim(track) }
                    shed()
                    guard ended || keptBytes >= byteLimit || (reached ?? -.infinity) >= target else { return nil }
                    return Progress(reached: reached, ended: ended, full: !ended && keptBytes >= byteLimit)
                }
                if let done { return done }
                try readOne(reader, token)
                return nil
            }
            if let progress { return progress }
        }
    }

    /// Whether the stream at `streamIndex` is one of those read.
    package func reads(_ streamIndex: Int) -> Bool { streamIndices.contains(streamIndex) }

    /// What the container's index says of where a tolerant seek lands.
    package enum KeyframeAnswer: Sendable, Equatable {
        /// The keyframe's item time.
        case keyframe(MediaTimestamp)
        /// The index cannot say (gaps, or no keyframe in the window): the seek lands where asked.
        case unknown
        /// The container is in use or not open yet (only without `waiting`).
        case busy
    }

    /// Where a tolerant seek for `request` lands by the index of the stream at `streamIndex` (one of
    /// those read), from the index alone: nothing is read or decoded. With `waiting` false it never
    /// blocks (a read in flight, or a container not yet open, answers `.busy`); with `waiting`, it runs
    /// on an engine thread and may open the container.
    package func keyframeTime(streamIndex: Int, for request: PictureRequest, waiting: Bool, _ token: CancellationToken) throws -> KeyframeAnswer {
        if waiting {
            container.lock()
        } else if !container.try() {
            return .busy
        }
        defer { container.unlock() }
        if !waiting && reader == nil { return .busy }
        let reader = try opened(token)
        let i = Int32(clamping: streamIndex)
        guard streamIndices.contains(streamIndex), let stream = reader.stream(at: i) else { return .unknown }
        var index = indexes[i] ?? KeyframeIndex(format: reader.format)
        let time = index.keyframeTime(for: request, in: stream, origin: reader.origin(in: stream.pointee.time_base))
        indexes[i] = index
        return time.map { .keyframe($0) } ?? .unknown
    }

    /// A reader of the stream at `index`'s packets, from the first kept; nil when the stream is not one
    /// of those read. Blocking: opens the container when nothing has yet.
    func consumer(of index: Int, _ token: CancellationToken) throws -> Consumer? {
        try container.withLock {
            let reader = try opened(token)
            let i = Int32(clamping: index)
            guard streamIndices.contains(index), let stream = reader.stream(at: i) else { return nil }
            let cursor = lock.withLock { () -> Cursor? in
                guard let track = tracks[i] else { return nil }
                let cursor = Cursor(track: track)
                cursors[ObjectIdentifier(cursor)] = cursor
                return cursor
            }
            guard let cursor else { return nil }
            return Consumer(demuxer: self, cursor: cursor, stream: stream, format: reader.format,
                            origin: reader.origin(in: stream.pointee.time_base))
        }
    }

    /// A stream's packets from the shared container, as a `PacketSource`.
    final class Consumer: PacketSource {
        private let demuxer: ItemDemuxer
        private let cursor: Cursor
        /// Valid while the demuxer lives; used under its container lock (reading may update it).
        private let stream: UnsafeMutablePointer<AVStream>
        private let originTicks: Int64
        let timeBase: AVRational
        let format: ContainerFormat

        fileprivate init(demuxer: ItemDemuxer, cursor: Cursor, stream: UnsafeMutablePointer<AVStream>, format: ContainerFormat,
                         origin: Int64) {
            self.demuxer = demuxer
            self.cursor = cursor
            self.stream = stream
            self.format = format
            originTicks = origin
            timeBase = stream.pointee.time_base
        }

        deinit { demuxer.remove(cursor) }

        var name: String { demuxer.lock.withLock { demuxer.name } }
        var standsAtStart: Bool { demuxer.standsAtStart(cursor) }

        func withStream<T>(_ body: (UnsafeMutablePointer<AVStream>) throws -> T) rethrows -> T {
            demuxer.container.lock()
            defer { demuxer.container.unlock() }
            return try body(stream)
        }

        func origin(in timeBase: AVRational) -> Int64 {
            guard timeBase.num == self.timeBase.num, timeBase.den == self.timeBase.den else {
                return av_rescale_q(originTicks, self.timeBase, timeBase)
            }
            return originTicks
        }

        func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
            try demuxer.seek(cursor, atOrBefore: timestamp, token)
        }

        func next(_ packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
            try demuxer.next(cursor, into: packet, token)
        }
    }

    // MARK: - Under the locks

    /// The container, opened the first time. Under `container`.
    private func opened(_ token: CancellationToken) throws -> PacketReader {
        if lock.withLock({ closed }) || token.isCancelled {
            throw MediaEngineError(.cancelled, source: lock.withLock { name }, operation: "read", reason: "cancelled")
        }
        if let reader { return reader }
        if scratch == nil { scratch = av_packet_alloc() }
        guard scratch != nil else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "read", reason: "out of memory")
        }
        // Opened under `life`: `close()` ends an open that hangs, whoever asked for it.
        let source = try open(life)
        let made = try PacketReader(source: source, options: options, streamIndices: streamIndices, cancellation: life)
        lock.withLock {
            name = source.name
            for index in streamIndices {
                let i = Int32(clamping: index)
                let tb = made.timeBase(of: i)
                tracks[i] = Track(index: i, timeBase: tb, origin: made.origin(in: tb))
            }
        }
        reader = made
        return made
    }

    /// Whether reading on from where the container stands reaches `seconds` of item time. Under `lock`.
    private func reaches(_ seconds: Double) -> Bool {
        seconds >= readFrom && (ended || seconds <= (reached ?? readFrom) + Self.readThrough)
    }

    /// Seeks the container for `cursor` (nil: the read-ahead) and lets everything kept go; the other
    /// cursors lose their place. Under `container`.
    private func seek(_ reader: PacketReader, stream: Int32, atOrBefore ticks: Int64, for cursor: Cursor?,
                      _ token: CancellationToken) throws {
        let tb = reader.timeBase(of: stream)
        let seconds = tb.den > 0 ? Double(ticks.subtractingSaturating(reader.origin(in: tb))) * Double(tb.num) / Double(tb.den) : 0
        lock.withLock {
            seekCount += 1
            for track in tracks.values {
                keptBytes -= track.clear()
                (track.scanned, track.scannedKeyframe, track.scannedTo) = (track.base, nil, -.infinity)
            }
            for other in cursors.values where other !== cursor { other.displaced = true }
            cursor.map { $0.position = $0.track.base }
            (readFrom, reached, ended, keepFrom, placedSinceSeek) = (seconds.isFinite ? max(0, seconds) : 0, nil, false, -.infinity, false)
        }
        do {
            try reader.seek(stream: stream, atOrBefore: ticks, life)
        } catch {
            // Where the container stands is not known: nothing is reached without another seek.
            lock.withLock { (readFrom, reached) = (.infinity, nil) }
            throw error
        }
    }

    /// Reads one packet and keeps it; trims what lies before `keepFrom`. Under `container`.
    private func readOne(_ reader: PacketReader, _ token: CancellationToken) throws {
        guard let packet = scratch else { return }
        if token.isCancelled { throw MediaEngineError(.cancelled, source: reader.name, operation: "read", reason: "cancelled") }
        guard try reader.next(packet, life) else {
            lock.withLock { ended = true }
            return
        }
        let p = packet.pointee
        let tb = reader.timeBase(of: p.stream_index)
        let nopts = avocet_nopts_value()
        let startTicks = p.pts != nopts ? p.pts : p.dts
        var time: Double?
        var end: Double?
        if startTicks != nopts, tb.num > 0, tb.den > 0 {
            let origin = reader.origin(in: tb)
            let start = Double(startTicks.subtractingSaturating(origin)) * Double(tb.num) / Double(tb.den)
            let stop = Double(startTicks.addingSaturating(max(0, p.duration)).subtractingSaturating(origin)) * Double(tb.num) / Double(tb.den)
            time = start.isFinite ? start : nil
            end = stop.isFinite ? stop : nil
        }
        guard let kept = av_packet_alloc() else {
            throw MediaEngineError(.outOfMemory, source: reader.name, operation: "read", reason: "out of memory")
        }
        av_packet_move_ref(kept, packet)
        lock.withLock {
            if let end { reached = max(reached ?? end, end) }
            if let time, !placedSinceSeek {
                placedSinceSeek = true
                readFrom = min(readFrom, max(0, time))
            }
            guard !closed, let track = tracks[kept.pointee.stream_index] else {
                var unkept: UnsafeMutablePointer<AVPacket>? = kept
                av_packet_free(&unkept)
                return
            }
            track.packets.append(kept)
            track.times.append(time)
            let bytes = Int(max(0, kept.pointee.size))
            track.bytes += bytes
            keptBytes += bytes
            trim(track)
            shed()
        }
    }

    /// Over `byteLimit` (a stream whose keyframes are far apart, or none after its first, keeps more
    /// than its time says): lets go of the packets every cursor of their stream has passed, and of
    /// every packet of a stream no cursor reads. Under `lock`.
    private func shed() {
        guard keptBytes > byteLimit else { return }
        for track in tracks.values {
            let needed = cursors.values.filter { $0.track === track && !$0.displaced }.map(\.position).min() ?? track.end
            keptBytes -= track.dropFirst(needed - track.base)
        }
    }

    /// Lets `track`'s packets before its last keyframe at or before `keepFrom` go, looking at each
    /// packet once while `keepFrom` moves on. Under `lock`.
    private func trim(_ track: Track) {
        guard keepFrom > -.infinity else { return }
        if keepFrom < track.scannedTo || track.scanned < track.base {
            (track.scanned, track.scannedKeyframe) = (track.base, nil)
        }
        track.scannedTo = keepFrom
        while track.scanned < track.end {
            let i = track.scanned - track.base
            if let t = track.times[i], t > keepFrom { break }
            if track.times[i] != nil, track.packets[i].pointee.flags & AV_PKT_FLAG_KEY != 0 { track.scannedKeyframe = track.scanned }
            track.scanned += 1
        }
        guard let keyframe = track.scannedKeyframe, keyframe > track.base else { return }
        keptBytes -= track.dropFirst(keyframe - track.base)
    }

    private func standsAtStart(_ cursor: Cursor) -> Bool {
        lock.withLock { !cursor.displaced && cursor.track.whole && cursor.track.base == 0 && cursor.position == 0 && readFrom <= 0 }
    }

    private func remove(_ cursor: Cursor) {
        lock.withLock { _ = cursors.removeValue(forKey: ObjectIdentifier(cursor)) }
    }

    /// A decoder's seek: to its stream's last kept keyframe at or before `timestamp` when reading on
    /// reaches the time (or to its first kept packet, when every packet since the container's seek is
    /// kept); elsewhere the container seeks. Placing among what is kept does not wait for a read in
    /// flight.
    private func seek(_ cursor: Cursor, atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        let placed = try lock.withLock { () -> Bool in
            if closed { throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled") }
            (cursor.displaced, cursor.last, cursor.skipsThrough, cursor.target) = (false, nil, nil, timestamp)
            return place(cursor, atOrBefore: timestamp)
        }
        if placed { return }
        try container.withLock {
            let reader = try opened(token)
            // A read in flight may have made it placeable meanwhile.
            if lock.withLock({ !cursor.displaced && place(cursor, atOrBefore: timestamp) }) { return }
            try seek(reader, stream: cursor.track.index, atOrBefore: timestamp, for: cursor, token)
        }
    }

    /// Places `cursor` among what is kept for a start at `timestamp` (container ticks), if it can be
    /// without a seek: at the last kept keyframe at or before it, when reading on from there reaches
    /// it (what is kept runs without a gap from the last seek); or, with every packet since the seek
    /// kept and the time after where reading started, at the first kept. Under `lock`.
    private func place(_ cursor: Cursor, atOrBefore timestamp: Int64) -> Bool {
        let track = cursor.track
        let seconds = track.seconds(timestamp)
        guard ended || seconds <= (reached ?? readFrom) + Self.readThrough else { return false }
        let nopts = avocet_nopts_value()
        let keyframe = track.packets.indices.last { i in
            let p = track.packets[i].pointee
            let time = p.pts != nopts ? p.pts : p.dts
            return p.flags & AV_PKT_FLAG_KEY != 0 && time != nopts && time <= timestamp
        }
        if let keyframe {
            cursor.position = track.base + keyframe
            return true
        }
        guard track.whole, seconds >= readFrom else { return false }
        cursor.position = track.base
        return true
    }

    /// A decoder's next packet: the next kept, else read on until its stream has one.
    private func next(_ cursor: Cursor, into packet: UnsafeMutablePointer<AVPacket>, _ token: CancellationToken) throws -> Bool {
        while true {
            if try lock.withLock({ try handOut(cursor, into: packet) }) { return true }
            let outcome: Bool? = try container.withLock {
                let reader = try opened(token)
                let state = lock.withLock { () -> (lost: Bool, kept: Bool, ended: Bool) in
                    let lost = cursor.displaced || cursor.position < cursor.track.base
                    return (lost, cursor.position < cursor.track.end, ended)
                }
                if state.lost {
                    try find(cursor, reader, token)
                    return nil
                }
                if state.kept { return nil }
                if state.ended { return false }
                try readOne(reader, token)
                return nil
            }
            if let outcome { return outcome }
        }
    }

    /// Hands out the cursor's next kept packet (a new reference to it) when it has one and its place
    /// holds. Under `lock`.
    private func handOut(_ cursor: Cursor, into packet: UnsafeMutablePointer<AVPacket>) throws -> Bool {
        if closed { throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "cancelled") }
        let track = cursor.track
        while !cursor.displaced && cursor.position >= track.base && cursor.position < track.end {
            let kept = track.packets[cursor.position - track.base]
            cursor.position += 1
            let p = kept.pointee
            let nopts = avocet_nopts_value()
            let time = p.dts != nopts ? p.dts : p.pts
            // Packets up to the last handed out, and those without a time among them, are not handed again.
            if let through = cursor.skipsThrough, time == nopts || time <= through { continue }
            cursor.skipsThrough = nil
            av_packet_unref(packet)
            let rc = av_packet_ref(packet, kept)
            if rc < 0 { throw FFmpeg.error(rc, "read", source: name) }
            if time != nopts { cursor.last = time }
            return true
        }
        return false
    }

    /// Finds a cursor's place again after a seek for another or a trim: after its last packet among
    /// those kept, when what is kept reaches back to it (or will, reading on from where the container
    /// stands), skipping what it was handed already; else by a seek back to it. A cursor that has
    /// handed out nothing since its own seek is placed for that seek's time again. Under `container`.
    private func find(_ cursor: Cursor, _ reader: PacketReader, _ token: CancellationToken) throws {
        let (placed, target) = lock.withLock { () -> (Bool, Int64?) in
            cursor.displaced = false
            let track = cursor.track
            guard let last = cursor.last else {
                guard let target = cursor.target else {
                    cursor.position = track.base
                    return (true, nil)
                }
                return (place(cursor, atOrBefore: target), target)
            }
            let nopts = avocet_nopts_value()
            func time(_ i: Int) -> Int64? {
                let p = track.packets[i].pointee
                let t = p.dts != nopts ? p.dts : p.pts
                return t == nopts ? nil : t
            }
            let firstTimed = track.packets.indices.first { time($0) != nil }.flatMap(time)
            if let start = firstTimed {
                // What is kept must start at or before the last packet handed out, without a gap after it.
                guard track.base <= cursor.position || track.whole, start <= last else { return (false, last) }
                cursor.position = track.base + (track.packets.indices.first { (time($0) ?? .min) > last } ?? track.packets.count)
            } else {
                // Nothing kept yet since another's seek: reading on gets there when it started before it.
                guard track.whole, track.seconds(last) >= readFrom,
                      ended || track.seconds(last) <= (reached ?? readFrom) + Self.readThrough else { return (false, last) }
                cursor.position = track.end
            }
            cursor.skipsThrough = last
            return (true, last)
        }
        guard !placed, let target else { return }
        try seek(reader, stream: cursor.track.index, atOrBefore: target, for: cursor, token)
        lock.withLock { if cursor.last != nil { cursor.skipsThrough = target } }
    }
}
