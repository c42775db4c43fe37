import Foundation

/// The state of a `BufferedByteSource`: the bytes arrived so far (a bounded cache of blocks), the
/// requests out at the feeder, what is known of the resource's end, and its failure. A value type with
/// no locks, threads or clocks: each event returns what its owner must do (start or cancel requests,
/// wake waiters), so every rule here is tested on its own.
///
/// Rules:
/// - Bytes are cached in aligned blocks of `blockSize`; each block fills from its start with the
///   feeder's own `Data` pieces (no copy on the way in). A read is served from the block holding its
///   offset as soon as that byte has arrived, before the request that brings it finishes.
/// - A read of a byte not yet here starts a request at its block's start, unless one in flight will
///   bring it. In network mode (the default, until the feeder says the whole resource is available on
///   demand) a request asks for `readAhead` bytes and a read that comes within half of that of the end
///   of what is cached or coming starts the next one; on demand (`onDemandRequest`, `onDemandCapacity`),
///   requests are smaller, the next one starts only within half a request of a sequential reader, and
///   the cache is smaller. The first request, before the feeder says which kind it is, is an on-demand one.
/// - The cache holds at most `capacity` bytes: the least recently used blocks go first, never one a
///   request is filling.
/// - A request that finishes short marks the end of the resource there (a resource loader's rule),
///   unless the feeder's short answers are only partial (HTTP) and the length says there is more.
///   Without byte ranges one stream from the start brings everything. A failed request fails the
///   source until `recover()` (a new load).
package struct FeedStateMachine: Sendable {
    package struct Configuration: Sendable, Equatable {
        package var blockSize: Int
        /// Most bytes cached at once.
        package var capacity: Int
        /// How much a network-mode request asks for.
        package var readAhead: Int64
        /// Most requests in flight; starting another cancels the oldest.
        package var maxRequests: Int

        /// How much an on-demand request asks for: a few blocks, since each request costs the feeder a
        /// round trip (fewer, larger answers read a local file faster).
        package var onDemandRequest: Int
        /// Most bytes cached at once on demand: the feeder has every byte at hand, so little is kept.
        package var onDemandCapacity: Int

        package init(blockSize: Int = 256 << 10, capacity: Int = 16 << 20, readAhead: Int64 = 2 << 20, maxRequests: Int = 6,
                     onDemandRequest: Int = 1 << 20, onDemandCapacity: Int = 4 << 20) {
            self.blockSize = max(1, blockSize)
            self.capacity = max(capacity, 2 * self.blockSize)
            self.readAhead = max(readAhead, Int64(self.blockSize))
            self.maxRequests = max(1, maxRequests)
            // Whole blocks: a request never ends inside one.
            self.onDemandRequest = max(1, onDemandRequest / self.blockSize) * self.blockSize
            self.onDemandCapacity = max(onDemandCapacity, 2 * self.onDemandRequest)
        }
    }

    /// Counters for benchmarks and tests.
    package struct Statistics: Sendable, Equatable {
        package var requestsStarted = 0
        package var bytesRequested: Int64 = 0
        package var bytesReceived: Int64 = 0
        package var cachedBytes = 0
        package var peakCachedBytes = 0
        /// Requests started with no length (to the end of the resource).
        package var openEndedRequests = 0
    }

    /// The bytes of one aligned block that have arrived, from its start: the feeder's own `Data`
    /// pieces, kept without copying (slices share their storage).
    private struct Block {
        var pieces: [Data] = []
        var count = 0
        var lastUse: UInt64

        /// Copies from `within` into `buffer`, as far as the block has bytes; returns the count.
        func copy(from within: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
            var start = 0, copied = 0
            for piece in pieces {
                let end = start + piece.count
                let position = within + copied
                if position < end && copied < buffer.count {
                    let n = min(end - position, buffer.count - copied)
                    let from = piece.startIndex + (position - start)
                    piece[from..<(from + n)].withUnsafeBytes { bytes in
                        guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                        (target + copied).copyMemory(from: source, byteCount: n)
                    }
                    copied += n
                }
                start = end
            }
            return copied
        }
    }

    private struct Request {
        var offset: Int64
        /// Where the request stops (exclusive); nil: at the end of the resource.
        var end: Int64?
        /// Where it was asked to stop: an answer that ends before is short. (`end` opens up when a feeder
        /// without ranges sends more than it was asked for.)
        let asked: Int64?
        /// The offset of the next byte it will bring.
        var next: Int64
        var order: Int
        /// Started ahead of any read (network mode): the first to go when too many are out.
        var isReadAhead: Bool
    }

    /// What a read found.
    package enum ReadOutcome: Equatable {
        /// `count` bytes were copied into the buffer.
        case copied(Int)
        /// The resource ends before the offset.
        case end
        /// The bytes have not arrived: wait for `FeedSink` events (and start `start`, cancel `cancel`).
        case wait
        case failed(MediaEngineError)
    }

    package let configuration: Configuration
    package private(set) var info: ContentInfo?
    /// The known end of the resource: its content length, or where a request came up short.
    package private(set) var end: Int64?
    package private(set) var failure: MediaEngineError?
    package private(set) var statistics = Statistics()
    private var blocks: [Int64: Block] = [:]
    private var requests: [Int: Request] = [:]
    private var nextID = 0
    private var clock: UInt64 = 0
    /// Requests to start and cancel, collected by every event and taken with `takeActions()`.
    private var toStart: [FeedRequest] = []
    private var toCancel: [Int] = []

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    private var onDemand: Bool { info?.isEntireLengthAvailableOnDemand ?? false }
    private var rangesSupported: Bool { info?.isByteRangeAccessSupported ?? true }
    private var blockSize: Int64 { Int64(configuration.blockSize) }

    /// Whether the content information has arrived (or the source failed first).
    package var isPrepared: Bool { info != nil || failure != nil }

    /// Ids of the requests in flight, oldest first.
    package var requestsInFlight: [Int] { requests.sorted { $0.value.order < $1.value.order }.map(\.key) }

    /// The requests to start and to cancel since the last call. The owner sends them to the feeder
    /// outside its lock.
    package mutating func takeActions() -> (start: [FeedRequest], cancel: [Int]) {
        defer {
            toStart = []
            toCancel = []
        }
        return (toStart, toCancel)
    }

    // MARK: - Reads

    /// Starts the first request (which asks for the content information) if none has been made.
    package mutating func prepare() {
        guard failure == nil, info == nil, requests.isEmpty else { return }
        startRequest(at: 0, wantsInfo: true)
    }

    /// Copies up to `buffer.count` bytes at `offset` from the cache, or says why it cannot.
    package mutating func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        if let failure { return .failed(failure) }
        guard info != nil else {
            prepare()
            return .wait
        }
        if let end, offset >= end { return .end }
        if buffer.isEmpty { return .copied(0) }
        clock &+= 1
        if let (index, within, block) = cached(at: offset) {
            let count = block.copy(from: within, into: buffer)
            blocks[index]?.lastUse = clock
            readAhead(after: offset.addingSaturating(Int64(count)))
            return .copied(count)
        }
        if !isComing(offset) {
            startRequest(at: offset, wantsInfo: false)
        }
        return .wait
    }

    /// Starts the request that brings the byte at `offset`, unless it is here or coming (or, before the
    /// content information, the first request).
    package mutating func want(_ offset: Int64) {
        guard failure == nil else { return }
        guard info != nil else { return prepare() }
        if isReadable(at: offset) || isComing(offset) { return }
        startRequest(at: offset, wantsInfo: false)
    }

    /// Whether the byte at `offset` is cached (or past the end), so a read there would not wait.
    package func isReadable(at offset: Int64) -> Bool {
        if failure != nil || info == nil { return failure != nil }
        if let end, offset >= end { return true }
        return cached(at: offset) != nil
    }

    /// The block holding the byte at `offset`, if that byte has arrived.
    private func cached(at offset: Int64) -> (index: Int64, within: Int, block: Block)? {
        let index = offset / blockSize
        let within = Int(offset - index * blockSize)
        guard let block = blocks[index], within < block.count else { return nil }
        return (index, within, block)
    }

    /// Whether a request in flight will bring `offset` soon: it is within the request's range and not
    /// too far beyond what the request has brought so far.
    private func isComing(_ offset: Int64) -> Bool {
        let slack = onDemand ? Int64(configuration.onDemandRequest) : configuration.readAhead
        return requests.values.contains { r in
            guard offset >= r.next, r.end.map({ offset < $0 }) ?? true else { return false }
            // Without ranges a stream from the start is the only way to any byte after it, however far.
            return offset - r.next < slack || (!rangesSupported && r.end == nil)
        }
    }

    /// Starts the next request when what is cached or coming from `offset` on runs out within half of
    /// `readAhead` (network mode), or within half an on-demand request (one request ahead of a sequential
    /// reader, so that the feeder's answer overlaps the reading instead of following it).
    private mutating func readAhead(after offset: Int64) {
        guard rangesSupported else { return }
        let horizon = offset.addingSaturating(onDemand ? Int64(configuration.onDemandRequest) / 2 : configuration.readAhead / 2)
        var p = offset
        while p < horizon {
            if let end, p >= end { return }
            if let (index, _, block) = cached(at: p) {
                p = index * blockSize + Int64(block.count)
                // A partly filled block counts as far as it goes; what follows is coming or missing.
                if block.count < configuration.blockSize { break }
                continue
            }
            break
        }
        guard p < horizon, !isComing(p) else { return }
        if let end, p >= end { return }
        startRequest(at: p, wantsInfo: false, readAhead: true)
    }

    private mutating func startRequest(at offset: Int64, wantsInfo: Bool, readAhead: Bool = false) {
        // Without byte ranges, everything comes from the start in one request: a new one replaces any
        // other (a read behind every stream's position, its bytes evicted, must start over).
        let start = rangesSupported ? (offset / blockSize) * blockSize : 0
        // The first request, before the feeder has said which kind it is, asks for as little as on demand.
        var length: Int64? = onDemand || info == nil ? Int64(configuration.onDemandRequest) : configuration.readAhead
        if info != nil && !rangesSupported {
            length = nil
            cancelAll()
        }
        if let end, let l = length { length = min(l, end - start) }
        if requests.count >= configuration.maxRequests {
            // Read-ahead goes first: a request some read waits for is cancelled only when all are such.
            let victim = requests.min { ($0.value.isReadAhead ? 0 : 1, $0.value.order) < ($1.value.isReadAhead ? 0 : 1, $1.value.order) }?.key
            if let victim {
                requests.removeValue(forKey: victim)
                toCancel.append(victim)
            }
        }
        nextID += 1
        let stop = length.map { start.addingSaturating($0) }
        requests[nextID] = Request(offset: start, end: stop, asked: stop, next: start, order: nextID, isReadAhead: readAhead)
        toStart.append(FeedRequest(id: nextID, offset: start, length: length, wantsContentInfo: wantsInfo))
        statistics.requestsStarted += 1
        if let length { statistics.bytesRequested = statistics.bytesRequested.addingSaturating(length) } else {
            statistics.openEndedRequests += 1
        }
    }

    // MARK: - Feeder events

    /// Content information for a request. The first report counts; later ones are ignored.
    package mutating func received(info newInfo: ContentInfo, for id: Int) {
        guard info == nil, failure == nil, requests[id] != nil else { return }
        var newInfo = newInfo
        if let length = newInfo.length, length < 0 { newInfo.length = nil }
        info = newInfo
        if let length = newInfo.length { end = min(end ?? length, length) }
    }

    /// Bytes for a request, in order, kept as given (no copy). Bytes past what it asked for are
    /// dropped, unless the feeder cannot do ranges (then it sends everything).
    package mutating func received(_ data: Data, for id: Int) {
        guard failure == nil, var r = requests[id], !data.isEmpty else { return }
        if info == nil {
            // Bytes before any content information: a feeder that has none to give (length unknown).
            info = ContentInfo(length: nil)
        }
        var taken = 0
        // A feeder without ranges may send more than was asked (an HTTP 200 sends everything): keep it.
        if !rangesSupported { r.end = nil }
        while taken < data.count {
            if let stop = r.end, r.next >= stop { break }
            if let end, r.next >= end { break }
            let index = r.next / blockSize
            let within = Int(r.next - index * blockSize)
            var room = configuration.blockSize - within
            if let stop = r.end { room = Int(min(Int64(room), stop - r.next)) }
            let count = min(room, data.count - taken)
            clock &+= 1
            if blocks[index] == nil && within == 0 { blocks[index] = Block(lastUse: clock) }
            // Changed in place in the table, so the block's piece list is never copied.
            if let filled = blocks[index]?.count {
                let skip = filled - within
                if skip >= 0 && skip < count {
                    let from = data.startIndex + taken + skip
                    blocks[index]?.pieces.append(data[from..<(data.startIndex + taken + count)])
                    blocks[index]?.count += count - skip
                    statistics.cachedBytes += count - skip
                }
                // skip < 0: the block's start was evicted meanwhile, and these bytes cannot be placed;
                // skip >= count: another request brought them already.
                blocks[index]?.lastUse = clock
            }
            r.next = r.next.addingSaturating(Int64(count))
            taken += count
        }
        statistics.bytesReceived = statistics.bytesReceived.addingSaturating(Int64(taken))
        requests[id] = r
        evict()
        statistics.peakCachedBytes = max(statistics.peakCachedBytes, statistics.cachedBytes)
    }

    /// A request ended. Short of what it asked for (or open-ended): the resource ends where it stopped.
    package mutating func finished(_ id: Int, error: MediaEngineError?) {
        guard let r = requests.removeValue(forKey: id) else { return }
        if let error {
            fail(error)
            return
        }
        if info == nil { info = ContentInfo(length: nil) }
        let short = r.asked.map { r.next < $0 } ?? true
        guard short else { return }
        // A short answer ends the resource (a resource loader's rule), unless the feeder says its short
        // answers are only partial (HTTP servers may cap a range) and the known length says there is
        // more: the next read asks again. One that brought nothing at all ends it regardless.
        if info?.shortAnswerEndsResource == false, let length = info?.length, r.next < length, r.next > r.offset {
            return
        }
        end = min(end ?? r.next, r.next)
    }

    /// Forgets a failure so that the next read starts afresh (a new load after a timeout or a server error).
    package mutating func recover() {
        failure = nil
    }

    /// Fails the source: every read from now on throws `error`; requests in flight are cancelled.
    package mutating func fail(_ error: MediaEngineError) {
        guard failure == nil else { return }
        failure = error
        cancelAll()
    }

    /// Cancels every request in flight (nobody waits for them any more). Later reads start new ones.
    package mutating func cancelAll() {
        toCancel.append(contentsOf: requestsInFlight)
        requests.removeAll()
    }

    private mutating func evict() {
        let capacity = onDemand ? configuration.onDemandCapacity : configuration.capacity
        guard statistics.cachedBytes > capacity else { return }
        let filling = Set(requests.values.map { $0.next / blockSize })
        // Least recently used first (the lowest index among equals); usually one block goes per call.
        while statistics.cachedBytes > capacity {
            let victim = blocks.lazy.filter { !filling.contains($0.key) }
                .min { ($0.value.lastUse, $0.key) < ($1.value.lastUse, $1.key) }
            guard let (index, block) = victim else { break }
            blocks.removeValue(forKey: index)
            statistics.cachedBytes -= block.count
        }
    }
}
