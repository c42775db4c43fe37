internal import CFFmpeg
import Foundation

/// One audio stream decoded on several cores at once, giving the very frames one decoder of the whole
/// stream gives, in the same order.
///
/// The packets are cut into segments of ten or twenty seconds, and each segment is decoded by a decoder of
/// its own on the engine's compute threads (`IOExecutor.compute`, one a core), while the caller reads
/// on. A decoder that starts in the
/// middle of a stream lacks what the packets before left in it (MP3's bit reservoir and overlap, Opus's
/// filters), so each segment's decoder first decodes a pre-roll, packets from before the segment, and
/// drops what they give. For MP3 and Opus that is enough for the decoder to give the same samples, bit
/// for bit, as one that decoded everything before (checked on many files; MP3's state reaches back a
/// few packets only). It is also checked at every seam: each segment's decoder decodes the next
/// segment's first four packets too, and those must agree bit for bit with what the next segment's own
/// decoder gave for them. Where they do not, the next segment is decoded again by the earlier decoder,
/// which goes on from where it stands, as one decoder would: a seam that fails costs a segment's
/// decoding twice, never a wrong sample.
///
/// Costs: 5% (MP3) to 12% (Opus) more CPU than one decoder (the pre-roll: a second of Opus a 20 s
/// segment, 5%; 2 KB of MP3, 1 to 2%; the rest handing packets and frames between threads), and
/// memory for the segments' decoded sound (one more than the cores, up to five) and the decoders'
/// frame pools (on
/// two cores an hour's transcode peaked 27 MiB higher for 48 kHz stereo Opus, 12 MiB for 44.1 kHz
/// MP3, than for AAC decoded by one decoder). A segment nobody has taken to a thread yet when its
/// sound is wanted is decoded on the caller's thread, so a caller that is itself an engine thread
/// never waits for a thread that cannot come.
///
/// Blocking: call on an engine thread, one caller at a time.
final class SegmentedAudioDecoder: AudioFrameDecoding {
    /// How a codec is cut: segments of `segmentSeconds`, each decoded from at least `seconds` and
    /// `bytes` of packets before it.
    struct Preroll {
        var seconds: Double
        var bytes: Int
        var segmentSeconds: Double
    }

    /// How a codec is cut; nil for codecs not decoded this way. MP3's state reaches back at most 511
    /// bytes (its bit reservoir) and one frame (its overlap): FFmpeg's decoder agreed with a decoder
    /// of the whole stream after 3 packets at 128 kb/s, and 5 at 32 kb/s; 2 KB is asked, and segments
    /// of 10 s. Opus's filters settle more slowly: it agreed after 0.64 s of 10 ms packets, and after
    /// 0.4 s every seam of an hour of 64 kb/s speech still failed; a second is asked, and segments of
    /// 20 s keep that pre-roll to 5% (for 8 MiB of 48 kHz stereo a segment). AAC is not decoded this
    /// way: FFmpeg's AAC decoder still differed after 54 packets.
    static func preroll(for codec: AVCodecID) -> Preroll? {
        switch codec {
        case AV_CODEC_ID_MP3: Preroll(seconds: 0.05, bytes: 2_048, segmentSeconds: 10)
        case AV_CODEC_ID_OPUS: Preroll(seconds: 1.0, bytes: 0, segmentSeconds: 20)
        default: nil
        }
    }

    /// The stream's codec parameters, copied so that a decoder can open on any thread.
    private final class Parameters: @unchecked Sendable {
        // @unchecked Sendable: read only after it is made.
        let pointer: UnsafeMutablePointer<AVCodecParameters>
        let timeBase: AVRational
        init?(copying source: UnsafePointer<AVCodecParameters>, timeBase: AVRational) {
            guard let copy = avcodec_parameters_alloc() else { return nil }
            guard avcodec_parameters_copy(copy, source) >= 0 else {
                var p: UnsafeMutablePointer<AVCodecParameters>? = copy
                avcodec_parameters_free(&p)
                return nil
            }
            (pointer, self.timeBase) = (copy, timeBase)
        }
        deinit {
            var p: UnsafeMutablePointer<AVCodecParameters>? = pointer
            avcodec_parameters_free(&p)
        }
    }

    /// Decoders done with a segment, flushed, for the next: a decoder's frame memory (FFmpeg's pool)
    /// is then reused rather than allocated again for every segment and freed by another thread.
    private final class Stock: @unchecked Sendable {
        // @unchecked Sendable: the decoders are in the lock's keeping while stocked; one thread uses a
        // decoder at a time.
        private let lock = NSLock()
        private var decoders: [StreamDecoder] = []

        func take() -> StreamDecoder? {
            lock.lock()
            defer { lock.unlock() }
            return decoders.popLast()
        }

        func put(_ decoder: StreamDecoder) {
            decoder.flush()
            lock.lock()
            if decoders.count < 4 { decoders.append(decoder) }
            lock.unlock()
        }
    }

    /// The segments waiting for a thread, and the jobs on the engine's threads that take them in
    /// turn: at most `limit` at once, so that the decoders do not outnumber the cores.
    private final class Runners: @unchecked Sendable {
        // @unchecked Sendable: `waiting` and `running` are touched under `lock` only.
        private let lock = NSLock()
        private var waiting: [Segment] = []
        private var running = 0
        private let limit: Int
        private let executor: IOExecutor

        init(limit: Int, executor: IOExecutor) { (self.limit, self.executor) = (limit, executor) }

        /// Queues a segment (`first`: before the others), and starts a job if fewer than `limit` run.
        func add(_ segment: Segment, first: Bool = false) {
            lock.lock()
            if first { waiting.insert(segment, at: 0) } else { waiting.append(segment) }
            let starts = running < limit
            if starts { running += 1 }
            lock.unlock()
            if starts { executor.submit { [self] in drain() } }
        }

        /// Takes the first waiting segment, for a caller that would otherwise wait.
        func takeWaiting() -> Segment? {
            lock.lock()
            defer { lock.unlock() }
            return waiting.isEmpty ? nil : waiting.removeFirst()
        }

        /// Forgets the segments waiting (they were cancelled).
        func clear() {
            lock.lock()
            waiting.removeAll()
            lock.unlock()
        }

        /// A job: decodes waiting segments until none waits (one the caller took first is skipped).
        private func drain() {
            while true {
                lock.lock()
                guard !waiting.isEmpty else {
                    running -= 1
                    return lock.unlock()
                }
                let next = waiting.removeFirst()
                lock.unlock()
                next.run()
            }
        }
    }

    /// One segment: its pre-roll, its own packets and the next segment's first packets, decoded by a
    /// decoder of its own on whichever thread claims it first.
    private final class Segment: @unchecked Sendable {
        // @unchecked Sendable: the fields under "guarded" are touched under `condition` only; the
        // rest are set at init.
        let condition = NSCondition()
        let packets: [OwnedPacket]
        let prerollCount: Int
        let ownCount: Int
        let isLast: Bool
        let parameters: Parameters
        let name: String
        let token: CancellationToken
        let stock: Stock

        // guarded
        var claimed = false
        var done = false
        var cancelled = false
        /// Frames of its own packets, in order; those before `taken` were moved out (blank).
        var frames = DecodedFrames()
        var taken = 0
        /// Frames of the next segment's first packets, for the check at the seam.
        var overlap: [OwnedFrame] = []
        /// The decoder: the one it goes on with (a segment decoded again after a failed seam) until it
        /// starts; kept after its last packet (but for the last segment) in case the next seam fails.
        var decoder: StreamDecoder?
        var failure: (any Error)?

        /// A segment for a decoder of its own, or (`continuing`) for a decoder that has decoded the
        /// packets before it (the frames it gave for the first of them are then `adopt`ed).
        init(packets: [OwnedPacket], prerollCount: Int, ownCount: Int, isLast: Bool, parameters: Parameters, name: String,
             token: CancellationToken, stock: Stock, continuing: StreamDecoder? = nil) {
            (self.packets, self.prerollCount, self.ownCount, self.isLast) = (packets, prerollCount, ownCount, isLast)
            (self.parameters, self.name, self.token, self.stock) = (parameters, name, token, stock)
            decoder = continuing
        }

        /// Takes `given`, the frames a continuing decoder gave for the segment's first packets, as its
        /// first frames; before the segment is queued. Where memory runs out the segment fails, as if
        /// it had been decoded and failed, so that it is never decoded without them.
        func adopt(_ given: [OwnedFrame]) {
            condition.lock()
            defer { condition.unlock() }
            for frame in given {
                if !frames.append(movingFrom: frame.pointer) {
                    (claimed, done, failure) = (true, true, SegmentedAudioDecoder.outOfMemory(name))
                    return
                }
            }
        }

        /// Decodes the segment unless another thread has claimed it.
        func run() {
            condition.lock()
            guard !claimed else { return condition.unlock() }
            claimed = true
            condition.unlock()
            let result = Result { try FFmpegLog.capturing { try decode() } }
            condition.lock()
            if case .failure(let error) = result { failure = error }
            done = true
            condition.broadcast()
            condition.unlock()
        }

        func cancel() {
            condition.lock()
            cancelled = true
            condition.unlock()
        }

        private var isCancelled: Bool {
            condition.lock()
            defer { condition.unlock() }
            return cancelled
        }

        private func decode() throws {
            condition.lock()
            let continuing = self.decoder
            self.decoder = nil
            let dropped = cancelled
            condition.unlock()
            // A segment dropped before it started (a seek, a failed seam) takes no decoder.
            if token.isCancelled || dropped {
                throw MediaEngineError(.cancelled, source: name, operation: "decode", reason: "the operation was cancelled")
            }
            let decoder = try continuing ?? stock.take()
                ?? StreamDecoder(parameters: parameters.pointer, timeBase: parameters.timeBase, source: name)
            guard let local = av_packet_alloc() else { throw SegmentedAudioDecoder.outOfMemory(name) }
            var localPacket: UnsafeMutablePointer<AVPacket>? = local
            defer { av_packet_free(&localPacket) }
            guard let frame = av_frame_alloc() else { throw SegmentedAudioDecoder.outOfMemory(name) }
            var framePointer: UnsafeMutablePointer<AVFrame>? = frame
            defer { av_frame_free(&framePointer) }
            for (index, packet) in packets.enumerated() {
                if token.isCancelled || isCancelled {
                    throw MediaEngineError(.cancelled, source: name, operation: "decode", reason: "the operation was cancelled")
                }
                try FFmpeg.check(av_packet_ref(local, packet.pointer), "decode", source: name)
                // The decoder copies the packet's position into the frames it gives: it says which
                // packet a frame came from (the original position is put back in `keep`).
                local.pointee.pos = Int64(index)
                while true {
                    let sent = try decoder.send(UnsafePointer(local))
                    try takeFrames(from: decoder, into: frame, draining: false)
                    if sent != .full { break }
                }
                av_packet_unref(local)
            }
            if isLast {
                _ = try decoder.send(nil)
                try takeFrames(from: decoder, into: frame, draining: true)
                stock.put(decoder)
            } else {
                condition.lock()
                self.decoder = decoder
                condition.unlock()
            }
        }

        private func takeFrames(from decoder: StreamDecoder, into frame: UnsafeMutablePointer<AVFrame>, draining: Bool) throws {
            while true {
                switch decoder.receive(into: frame) {
                case .frame:
                    try keep(frame, draining: draining)
                case .damaged:
                    // As a single decoder's reader does: the packet is dropped and decoding goes on.
                    continue
                case .needsInput, .end:
                    return
                }
            }
        }

        /// Drops a frame of the pre-roll; files one of its own packets or of the overlap.
        private func keep(_ frame: UnsafeMutablePointer<AVFrame>, draining: Bool) throws {
            let index = frame.pointee.pkt_pos
            if index >= 0, index < Int64(prerollCount) { return av_frame_unref(frame) }
            if index >= 0, index < Int64(packets.count) { frame.pointee.pkt_pos = packets[Int(index)].pointer.pointee.pos }
            if !draining, index >= Int64(prerollCount + ownCount) {
                // The overlap: four frames a segment, each of its own.
                guard let owned = av_frame_alloc() else { throw SegmentedAudioDecoder.outOfMemory(name) }
                av_frame_move_ref(owned, frame)
                let kept = OwnedFrame(owned)
                condition.lock()
                overlap.append(kept)
                return condition.unlock()
            }
            condition.lock()
            defer { condition.unlock() }
            guard frames.append(movingFrom: frame) else {
                av_frame_unref(frame)
                throw SegmentedAudioDecoder.outOfMemory(name)
            }
            // The caller is woken for frames sixteen at a time (and at the end, in `run`): one wake a
            // frame cost more in switching threads than the frame's handling.
            if frames.count % 16 == 0 { condition.broadcast() }
        }
    }

    private let parameters: Parameters
    private let stock = Stock()
    private let name: String
    private let runners: Runners
    /// Ticks of the stream's time base: a segment's length, its pre-roll, and a packet that states no
    /// duration.
    private let segmentTicks: Int64
    private let prerollTicks: Int64
    private let prerollBytes: Int
    private let nominalTicks: Int64
    /// The most packets in a segment and in a pre-roll: twice and four times their lengths in packets
    /// of the nominal duration (64 at least), whatever durations the packets state.
    private let maxSegmentPackets: Int
    private let maxPrerollPackets: Int
    /// Packets of the next segment that a segment's decoder decodes too, for the check at the seam.
    private let overlapCount = 4
    /// Segments handed out ahead (the one frames are taken from included): two decode while the
    /// caller takes from a third.
    private let segmentsAhead: Int

    /// Packets read for the segment being gathered (and, past `ownEnd`, the next one's first).
    private var batch: [OwnedPacket] = []
    private var batchTicks: Int64 = 0
    /// Where the gathered segment's own packets end, once it is long enough.
    private var ownEnd: Int?
    /// The last packets of the segment handed out last: the next one's pre-roll.
    private var preroll: [OwnedPacket] = []
    /// Segments handed out, oldest first; the first is the one frames are taken from.
    private var segments: [Segment] = []
    private var draining = false
    /// Seams checked so far, and those that failed (the segment after was decoded again). For tests.
    private(set) var seamsChecked = 0
    private(set) var seamsFailed = 0

    /// A decoder for the stream `parameters` describe, whose packets count time in `timeBase`; nil
    /// when the codec is not one decoded this way (see `preroll(for:)`). Tests set shorter segments,
    /// and another pre-roll than the codec's (in seconds only).
    init?(parameters source: UnsafePointer<AVCodecParameters>, timeBase: AVRational, name: String,
          executor: IOExecutor = .compute, segmentSeconds: Double? = nil, prerollSeconds: Double? = nil) {
        guard let codecPreroll = Self.preroll(for: source.pointee.codec_id), timeBase.num > 0, timeBase.den > 0,
              let parameters = Parameters(copying: source, timeBase: timeBase) else { return nil }
        (self.parameters, self.name) = (parameters, name)
        // As many decoders at once as cores (two to four), and one segment more handed out.
        let threads = max(2, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        runners = Runners(limit: threads, executor: executor)
        segmentsAhead = threads + 1
        func ticks(_ seconds: Double) -> Int64 {
            max(1, Int64(saturating: (seconds * Double(timeBase.den) / Double(timeBase.num)).rounded(.up)))
        }
        segmentTicks = ticks(segmentSeconds ?? codecPreroll.segmentSeconds)
        let preroll = prerollSeconds.map { Preroll(seconds: $0, bytes: 0, segmentSeconds: 0) } ?? codecPreroll
        prerollTicks = preroll.seconds > 0 ? ticks(preroll.seconds) : 0
        prerollBytes = preroll.bytes
        let rate = source.pointee.sample_rate
        let frameSize = source.pointee.frame_size
        nominalTicks = rate > 0 && frameSize > 0 ? ticks(Double(frameSize) / Double(rate)) : ticks(0.02)
        let nominal = max(1, nominalTicks)
        maxSegmentPackets = Int(max(64, min(65_536, segmentTicks.multipliedSaturating(by: 2) / nominal)))
        maxPrerollPackets = Int(max(64, min(65_536, prerollTicks.multipliedSaturating(by: 4) / nominal)))
    }

    deinit { flush() }

    fileprivate static func outOfMemory(_ name: String) -> MediaEngineError {
        MediaEngineError(.outOfMemory, source: name, operation: "decode", reason: "out of memory")
    }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?, _ token: CancellationToken) throws -> StreamDecoder.Sent {
        guard let packet else {
            if !draining {
                draining = true
                handOut(ownCount: batch.count, isLast: true, token)
            }
            return .accepted
        }
        guard let moved = av_packet_alloc() else { throw Self.outOfMemory(name) }
        av_packet_move_ref(moved, packet)
        let owned = OwnedPacket(moved)
        batch.append(owned)
        if let end = ownEnd {
            if batch.count >= end + overlapCount { handOut(ownCount: end, isLast: false, token) }
        } else {
            batchTicks = batchTicks.addingSaturating(ticks(of: owned))
            // Durations come from the file: a segment also ends at a count of packets, so that packets
            // stating too short a duration cannot make one segment of the whole stream.
            if batchTicks >= segmentTicks || batch.count >= maxSegmentPackets { ownEnd = batch.count }
        }
        return .accepted
    }

    func receive(into frame: UnsafeMutablePointer<AVFrame>, _ token: CancellationToken) throws -> StreamDecoder.Received {
        while true {
            // Packets are cheap to read: segments are handed out ahead of the frames taken, so that
            // the engine's threads decode while the caller converts.
            if !draining && segments.count < segmentsAhead { return .needsInput }
            guard let first = segments.first else { return .end }
            first.condition.lock()
            if first.taken < first.frames.count {
                av_frame_unref(frame)
                av_frame_move_ref(frame, first.frames.frame(at: first.taken))
                first.taken += 1
                first.condition.unlock()
                return .frame
            }
            if first.done {
                let failure = first.failure
                first.condition.unlock()
                if let failure { throw failure }
                if first.isLast {
                    segments.removeFirst()
                    continue
                }
                // The next segment is not handed out yet: read on.
                guard segments.count > 1 else { return .needsInput }
                try crossSeam(from: first, to: segments[1])
                continue
            }
            wait(for: first) { $0.taken < $0.frames.count }
        }
    }

    func flush() {
        for segment in segments { segment.cancel() }
        runners.clear()
        (segments, batch, preroll, batchTicks, ownEnd, draining) = ([], [], [], 0, nil, false)
    }

    /// A packet's duration in stream ticks (a nominal one where it states none).
    private func ticks(of packet: OwnedPacket) -> Int64 {
        packet.pointer.pointee.duration > 0 ? packet.pointer.pointee.duration : nominalTicks
    }

    /// Hands the batch's first `ownCount` packets out as a segment, with the pre-roll before them and
    /// (but for the last) the next `overlapCount` after.
    private func handOut(ownCount: Int, isLast: Bool, _ token: CancellationToken) {
        let own = Array(batch[..<ownCount])
        let overlap = isLast ? [] : Array(batch[ownCount..<min(batch.count, ownCount + overlapCount)])
        let before = own.isEmpty ? [] : preroll
        let segment = Segment(packets: before + own + overlap, prerollCount: before.count, ownCount: own.count, isLast: isLast,
                              parameters: parameters, name: name, token: token, stock: stock)
        var kept: [OwnedPacket] = []
        var (keptTicks, keptBytes): (Int64, Int) = (0, 0)
        for packet in (preroll + own).reversed() {
            guard keptTicks < prerollTicks || keptBytes < prerollBytes, kept.count < maxPrerollPackets else { break }
            kept.append(packet)
            keptTicks = keptTicks.addingSaturating(ticks(of: packet))
            keptBytes += Int(max(0, packet.pointer.pointee.size))
        }
        preroll = kept.reversed()
        batch.removeFirst(ownCount)
        batchTicks = batch.reduce(0) { $0.addingSaturating(ticks(of: $1)) }
        ownEnd = nil
        segments.append(segment)
        runners.add(segment)
    }

    /// Waits until `ready` holds for the segment or it is done; called with the segment's lock held,
    /// returns with it given up. Rather than idle, the waiting thread decodes: the segment itself if
    /// no thread has taken it yet (so a caller on an engine thread never waits for a thread that
    /// cannot come), else the next segment waiting for a thread.
    private func wait(for segment: Segment, until ready: (Segment) -> Bool) {
        while !segment.done && !ready(segment) {
            let claimed = segment.claimed
            segment.condition.unlock()
            if let other = claimed ? runners.takeWaiting() : segment {
                other.run()
            }
            segment.condition.lock()
            if !segment.done && !ready(segment) && segment.claimed { segment.condition.wait() }
        }
        segment.condition.unlock()
    }

    /// Moves from a segment whose frames were all taken to the next: the next one's first frames must
    /// be the very frames the earlier decoder gave for the same packets. Else the earlier decoder
    /// decodes the next segment again in its place.
    private func crossSeam(from earlier: Segment, to later: Segment) throws {
        earlier.condition.lock()
        let overlap = earlier.overlap
        let decoder = earlier.decoder
        (earlier.overlap, earlier.decoder) = ([], nil)
        earlier.condition.unlock()
        later.condition.lock()
        wait(for: later) { $0.frames.count >= overlap.count }
        later.condition.lock()
        let agrees = !overlap.isEmpty && later.failure == nil && later.taken == 0 && later.frames.count >= overlap.count
            && overlap.indices.allSatisfy { Self.sameSound(overlap[$0].pointer, later.frames.frame(at: $0)) }
        later.condition.unlock()
        segments.removeFirst()
        seamsChecked += 1
        if agrees {
            if let decoder { stock.put(decoder) }
            return
        }
        guard let decoder else {
            throw MediaEngineError(.decodeFailed, source: name, operation: "decode", reason: "a segment's decoder was lost")
        }
        // The earlier decoder has decoded the later segment's first packets (the overlap, whose frames
        // it gave): it decodes the rest of that segment in its place, and the next seam is checked as
        // any other.
        seamsFailed += 1
        later.cancel()
        let skipped = min(overlapCount, later.ownCount)
        let again = Segment(packets: Array(later.packets[(later.prerollCount + skipped)...]), prerollCount: 0, ownCount: later.ownCount - skipped,
                            isLast: later.isLast, parameters: parameters, name: name, token: later.token, stock: stock,
                            continuing: decoder)
        again.adopt(overlap)
        segments[0] = again
        runners.add(again, first: true)
    }

    /// Whether two decoded frames hold the same sound: shape, time and every sample's bits.
    private static func sameSound(_ a: UnsafeMutablePointer<AVFrame>, _ b: UnsafeMutablePointer<AVFrame>) -> Bool {
        let (x, y) = (a.pointee, b.pointee)
        guard x.nb_samples == y.nb_samples, x.format == y.format, x.sample_rate == y.sample_rate, x.pts == y.pts,
              x.pkt_pos == y.pkt_pos, x.ch_layout.nb_channels == y.ch_layout.nb_channels,
              let xs = x.extended_data, let ys = y.extended_data else { return false }
        let format = AVSampleFormat(rawValue: x.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let channels = Int(x.ch_layout.nb_channels)
        let planes = planar ? channels : 1
        let bytes = Int(av_get_bytes_per_sample(format)) * Int(x.nb_samples) * (planar ? 1 : channels)
        for plane in 0..<planes {
            guard let p = xs[plane], let q = ys[plane] else { return false }
            if memcmp(p, q, bytes) != 0 { return false }
        }
        return true
    }
}
