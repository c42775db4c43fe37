internal import CFFmpeg
import Foundation

/// Reads one stream of a container in order from a time on: as the packets it stores, or (video) as
/// decoded pictures converted once, straight into memory the caller gives. The sequential reader
/// behind `AVAssetReaderTrackOutput`; `VideoFrameReader` is the random-access one behind thumbnails,
/// `AudioSampleReader` the one for decoded sound.
///
/// Times are item times in the stream's time base (`timeBase`): the container's timestamps less the
/// item's origin (the start of an HLS or MPEG stream: `ContainerFormat.countsFromItsStart`), so a
/// file's first picture is usually at 0.
///
/// Blocking: every method runs on an engine thread; one caller at a time. Owns its decoders and scaler,
/// and either its own container (opened for this stream alone), holding the byte source open until
/// dropped, or its stream's share of a player item's `ItemDemuxer`.
package final class StreamReader {
    private let packets: any PacketSource
    /// `packets` when it reads a sample table (its samples can be had without a packet).
    private let table: SampleTableReader?
    /// The frame-threaded decoder, and the one on the calling thread alone for a reader at pace
    /// (`decodesAtPace`); `onOneThread` says which is in use. The frame-threaded one is let go when the
    /// one on one thread takes over, and that one when frame threads take over (a start that decodes on
    /// to its picture, or for good): an idle decoder keeps its pictures' memory (about 25 MiB at 1080p
    /// with two frame threads), and a player that falls behind restarts its output often.
    private var decoder: StreamDecoder?
    private var oneThreadDecoder: StreamDecoder?
    private var onOneThread = false
    /// Whether the decoder in use is being drained before the other takes over at the clean keyframe
    /// held in `packet`.
    private var changingDecoder = false
    /// Whether one core decodes the stream's pictures in real time with room to spare (1080p60 or
    /// fewer pixels a second).
    private let oneCoreKeepsUp: Bool
    /// Whether decoding on one thread took more than its share of the pictures' time: frame threads
    /// from then on.
    private var oneThreadFellBehind = false
    /// CPU time spent decoding the last pictures handed out on one thread (their conversion left out),
    /// and how long they show (seconds).
    private var oneThreadCost = (cpu: 0.0, shown: 0.0, pictures: 0)
    /// Whether the next picture's cost is left out: the first after a start, which pays for the
    /// keyframe decoded alone and for filling the decoder's reordering delay.
    private var skipsNextCost = true
    /// CPU time the last picture's conversion took, when its cost is counted.
    private var conversionCost = 0.0
    private let cleanKeyframes: CleanKeyframe
    private let scaler = FrameScaler()
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let origin: Int64
    /// One frame's duration in stream ticks, for pictures that state none (at least 1).
    private let nominalDuration: Int64
    private let name: String
    /// The stream's time base: every time this reader gives or takes is in its ticks.
    package let timeBase: Rational
    /// Pictures that end at or before this item time are decoded but not handed out.
    private var skipsBefore: Int64 = .min
    private var draining = false
    private var ended = false
    private var hasRead = false
    /// Whether `packet` holds the keyframe a seek found, to be read next.
    private var holdsPacket = false
    /// Whether the keyframe held is itself the first picture to hand out (it shows at the time
    /// started at): it is then decoded alone first (see `keyframeAlone`).
    private var keyframeFirst = false
    /// How many starts handed out their keyframe's picture decoded alone (`keyframeAlone`).
    package private(set) var keyframesDecodedAlone = 0
    private var lastPictureEnd: Int64?

    /// Opens `source` for the stream at `streamIndex` (FFmpeg's index, as `StreamInfo` gives it).
    /// `forPackets`: the caller reads stored packets (`nextPacket`), which need decode times where the
    /// container stores none (Matroska's reordered video: the open then analyses the first packets), and
    /// an MP4/MOV track's packets are read through its sample table where it agrees with FFmpeg's first
    /// packets (`SampleTableReader`), unless `bySampleTable` is false (FFmpeg's packet loop, to compare).
    /// Blocking: parses the header again, on the calling engine thread.
    package convenience init(source: any ByteSource, options: DemuxerOptions, streamIndex: Int, forPackets: Bool = false,
                             bySampleTable: Bool = true, cancellation: CancellationToken) throws {
        let packets: any PacketSource = forPackets && bySampleTable
            ? try SampleTableReader.packets(source: source, options: options, streamIndex: streamIndex, cancellation: cancellation)
            : try PacketReader(source: source, options: options, streamIndex: streamIndex, decodeTimes: forPackets, cancellation: cancellation)
        try self.init(packets: packets, name: source.name)
    }

    /// Whether the stored packets are read through an MP4/MOV track's sample table rather than FFmpeg's
    /// packet loop.
    package var readsSampleTable: Bool { table != nil }

    /// Whether the stored packets are small ones read through a sample table from a local file:
    /// reading one is a copy out of a block of the file, read now and then with `pread`, and no
    /// FFmpeg call that demuxes (a seek still is one); see `SampleTableReader.readsSmallSamplesLocally`.
    package var readsWithoutWaiting: Bool { table?.readsSmallSamplesLocally == true }

    /// Reads the stream at `streamIndex` from `demuxer`, the container a player item reads ahead (its
    /// packets come from what the read-ahead read, and a start inside what it keeps costs no seek); nil
    /// when the stream is not one the demuxer reads. Blocking: opens the container when the demuxer has
    /// not yet.
    package convenience init?(demuxer: ItemDemuxer, streamIndex: Int, cancellation: CancellationToken) throws {
        guard let consumer = try demuxer.consumer(of: streamIndex, cancellation) else { return nil }
        try self.init(packets: consumer, name: consumer.name)
    }

    private init(packets: any PacketSource, name: String) throws {
        self.name = name
        self.packets = packets
        table = packets as? SampleTableReader
        let tb = packets.timeBase
        guard tb.num > 0, tb.den > 0 else {
            throw MediaEngineError(.notMedia, source: name, operation: "open the stream", reason: "the stream has no time base")
        }
        timeBase = Rational(tb.num, tb.den)
        origin = packets.origin(in: tb)
        let st = packets.withStream { $0.pointee }
        let rate = st.avg_frame_rate.num > 0 && st.avg_frame_rate.den > 0 ? st.avg_frame_rate : st.r_frame_rate
        nominalDuration = rate.num > 0 && rate.den > 0 ? max(1, av_rescale_q(1, AVRational(num: rate.den, den: rate.num), tb)) : 1
        let parameters = st.codecpar.pointee
        let perSecond = rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : 30
        oneCoreKeepsUp = Double(max(0, parameters.width)) * Double(max(0, parameters.height)) * min(perSecond, 1000) <= 1920 * 1088 * 60
        cleanKeyframes = CleanKeyframe(codec: parameters.codec_id, extradata: UnsafeRawBufferPointer(
            start: parameters.extradata, count: parameters.extradata == nil ? 0 : Int(max(0, parameters.extradata_size))))
        guard let p = av_packet_alloc(), let f = av_frame_alloc() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "open the stream", reason: "out of memory")
        }
        (packet, frame) = (p, f)
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// Whether pictures scaled to another size trade some sharpness for speed (fast bilinear, as
    /// real-time players scale: a player's video output); bicubic otherwise.
    package var scalesForSpeed: Bool {
        get { scaler.prefersSpeed }
        set { scaler.prefersSpeed = newValue }
    }

    /// Whether pictures are taken at the pace they show (a player's video output) rather than as fast as
    /// they decode. Such a reader decodes on its caller's thread alone, where frame threads would cost
    /// about 7% more CPU a picture, when one core keeps up with the stream (1080p60 or fewer pixels a
    /// second): from a start whose first picture is its keyframe (the stream's start, a tolerant seek)
    /// at once; after a start that decodes on from its keyframe to a later picture (an exact seek, as
    /// fast as frame threads go) from the next clean keyframe (`CleanKeyframe`: an H.264 IDR picture,
    /// an HEVC IDR or BLA picture, a VP8, VP9 or AV1 keyframe; not an open group's first picture, nor
    /// any keyframe of another codec, whose streams then stay on frame threads until the next start),
    /// where the decoder in use is drained and the one on one thread takes over. Once decoding on one
    /// thread takes more than `oneThreadBudget` of the pictures' showing time in CPU time (a stream too
    /// heavy for one core, or a slow machine), the reader starts again on frame threads just after the
    /// last picture it handed out, as an exact seek there would, and stays on them. The pictures handed
    /// out are the same either way, but for an HEVC picture that says earlier pictures not yet shown are
    /// not shown at all (`no_output_of_prior_pics_flag`), where the drain shows them.
    package var decodesAtPace = false

    /// The share of the pictures' showing time that decoding on one thread may take in CPU time before a
    /// reader at pace goes back to frame threads (a half: room for twice the rate).
    package var oneThreadBudget = 0.5

    /// Whether pictures now come from the decoder on the calling thread alone (see `decodesAtPace`).
    package var decodesOnOneThread: Bool { onOneThread }

    /// How many decoders are open (at most one once a change of decoder is made).
    package var decodersOpen: Int { (decoder == nil ? 0 : 1) + (oneThreadDecoder == nil ? 0 : 1) }

    /// How many threads the decoder in use may use (0 before it opens).
    package var decodingThreads: Int { (onOneThread ? oneThreadDecoder : decoder)?.threadCount ?? 0 }

    /// Whether a reader at pace wants its decoder on one thread.
    private var wantsOneThread: Bool { decodesAtPace && oneCoreKeepsUp && !oneThreadFellBehind }

    /// Whether the stream is video (pictures can be decoded from it).
    package var isVideo: Bool { packets.withStream { $0.pointee.codecpar.pointee.codec_type } == AVMEDIA_TYPE_VIDEO }

    /// The size of the stream's pictures as the header states it (a stream may change it mid-way; each
    /// picture's own size is what `nextPicture` passes on).
    package var pictureSize: (width: Int, height: Int) {
        packets.withStream { st in (Int(st.pointee.codecpar.pointee.width), Int(st.pointee.codecpar.pointee.height)) }
    }

    /// `time` in ticks of the stream's time base, rounded down, or up with `roundingUp` (exact when
    /// `time` is in that base). A tick t is before `time` exactly when t is before `time` rounded up:
    /// the end of a range that falls between two ticks keeps the tick before it.
    package func ticks(_ time: MediaTimestamp, roundingUp: Bool = false) -> Int64 {
        guard time.timeBase.numerator > 0, time.timeBase.denominator > 0 else { return 0 }
        let from = AVRational(num: time.timeBase.numerator, den: time.timeBase.denominator)
        let rounding = AVRounding(rawValue: (roundingUp ? AV_ROUND_UP : AV_ROUND_DOWN).rawValue | AV_ROUND_PASS_MINMAX.rawValue)
        return av_rescale_q_rnd(time.value, from, AVRational(num: timeBase.numerator, den: timeBase.denominator), rounding)
    }

    /// Starts reading at the keyframe at or before `time` (item time). Pictures ending at or before
    /// `time` are then decoded (later ones may need them) but not handed out; packets are all handed
    /// out from the keyframe on. A reader that has read nothing yet starts at 0 without a seek.
    package func start(at time: MediaTimestamp, _ token: CancellationToken) throws {
        let target = ticks(time)
        decoder?.flush()
        oneThreadDecoder?.flush()
        (skipsBefore, draining, ended, lastPictureEnd, holdsPacket, changingDecoder) = (target > 0 ? target : .min, false, false, nil, false, false)
        (oneThreadCost, skipsNextCost) = ((0, 0, 0), true)
        if hasRead || target > 0 || !packets.standsAtStart {
            try FFmpegLog.capturing { try seekToKeyframe(atOrBefore: max(0, target).addingSaturating(origin), token) }
        }
        hasRead = true
        keyframeFirst = holdsPacket && showsFirst(packet.pointee, target: max(0, target))
        // Nothing to decode on to: one thread from here. Otherwise frame threads reach the picture
        // asked for, and one thread takes over at a clean keyframe after it, opened again then: the two
        // decoders are never open together for long.
        onOneThread = wantsOneThread && (keyframeFirst || skipsBefore == .min)
        if !onOneThread { oneThreadDecoder = nil }
    }

    /// Whether `key`, the keyframe a seek landed on, shows at `target` (item ticks): then no picture
    /// before it in presentation order is handed out (one that shows before the keyframe ends before
    /// the target), so it is the first. Not for interlaced streams, whose keyframe packet may hold one
    /// field of the picture (MPEG-TS often splits them), nor for a packet shorter than half a frame.
    private func showsFirst(_ key: AVPacket, target: Int64) -> Bool {
        let nopts = avocet_nopts_value()
        let fields = packets.withStream { $0.pointee.codecpar.pointee.field_order }
        guard key.pts != nopts, fields == AV_FIELD_PROGRESSIVE || fields == AV_FIELD_UNKNOWN,
              key.duration <= 0 || key.duration >= (nominalDuration / 2) else { return false }
        let start = key.pts.subtractingSaturating(origin)
        return start <= target && target < start.addingSaturating(key.duration > 0 ? key.duration : nominalDuration)
    }

    /// Seeks so that reading starts at a keyframe at or before `target` (container ticks), which is
    /// left in `packet` for the next read. A demuxer without an index (MPEG-TS) lands by timestamp,
    /// mid-group: the packets before the next keyframe cannot be decoded, and that keyframe may show
    /// after the target; then the seek goes one, two, four, eight, sixteen seconds further back, and
    /// last to before the stream's start.
    private func seekToKeyframe(atOrBefore target: Int64, _ token: CancellationToken) throws {
        let nopts = avocet_nopts_value()
        let st = packets.withStream { $0.pointee }
        // A second before the stream's first presentation time: its first keyframe is decoded earlier.
        let floor = (st.start_time != nopts ? st.start_time : 0).subtractingSaturating(av_rescale_q(1, AVRational(num: 1, den: 1), packets.timeBase))
        var seekTarget = target
        var retries = 0
        while true {
            try packets.seek(atOrBefore: seekTarget, token)
            var skipped = 0
            var found = false
            while try packets.next(packet, token) {
                if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 { found = true; break }
                skipped += 1
                if skipped >= 1000 {
                    // A stream whose demuxer marks no keyframes: read from wherever the seek lands.
                    try packets.seek(atOrBefore: seekTarget, token)
                    return
                }
            }
            let p = packet.pointee
            let landed = p.pts != nopts ? p.pts : p.dts
            let past = !found || (landed != nopts && landed > target)
            if past && seekTarget > floor {
                let back = retries < 5 ? av_rescale_q(Int64(1) << retries, AVRational(num: 1, den: 1), packets.timeBase) : .max
                retries += 1
                let from = found && p.dts != nopts ? min(p.dts, seekTarget) : seekTarget
                seekTarget = max(floor, from.subtractingSaturating(max(1, back)))
                continue
            }
            holdsPacket = found
            return
        }
    }

    /// One stored packet's times (item time, stream ticks; nil where the container states none) and
    /// whether it is a keyframe.
    package struct PacketTiming {
        package var presentationTime: Int64?
        package var decodeTime: Int64?
        package var duration: Int64
        package var isKeyframe: Bool
    }

    /// The next packet in decode order, as the container holds it, lent from `shelf` (its bytes are
    /// not copied); nil at the end of the stream. The caller keeps `shelf` alive until the packet is
    /// given back: the packet refers to it without a reference count.
    package func nextPacket(_ token: CancellationToken, lendingFrom shelf: PacketShelf) throws -> PacketShelf.Lent? {
        hasRead = true
        if holdsPacket {
            holdsPacket = false
            return try shelf.lend(movingFrom: packet, timing: timing(of: packet.pointee))
        }
        // Read straight into the shelf's packet, whose memory a sample table reader reuses (and, making
        // no FFmpeg call that logs, needs no capture of FFmpeg's messages).
        if let table {
            return try shelf.lend(reading: { shell in try table.next(shell, token) }, timing: timing(of:))
        }
        return try shelf.lend(reading: { shell in try FFmpegLog.capturing { try packets.next(shell, token) } }, timing: timing(of:))
    }

    /// The next stored sample's bytes and timing, passed to `body` without a packet where the stream is
    /// read through its sample table (the bytes are valid only inside `body`); nil at the end. Any other
    /// source reads a packet as `nextPacket` does. Blocking: on the calling thread.
    package func nextStoredSample<T>(_ token: CancellationToken, _ body: (UnsafeRawBufferPointer, PacketTiming) throws -> T) throws -> T? {
        hasRead = true
        let read: Bool
        if holdsPacket {
            holdsPacket = false
            read = true
        } else if let table {
            guard let sample = try table.nextSample(token) else { return nil }
            return try body(sample.bytes, PacketTiming(presentationTime: sample.presentationTime.subtractingSaturating(origin),
                                                       decodeTime: sample.decodeTime.subtractingSaturating(origin),
                                                       duration: max(0, sample.duration), isKeyframe: sample.isKeyframe))
        } else {
            read = try FFmpegLog.capturing { try packets.next(packet, token) }
        }
        guard read else { return nil }
        let p = packet.pointee
        return try body(UnsafeRawBufferPointer(start: p.data, count: p.data == nil ? 0 : Int(max(0, p.size))), timing(of: p))
    }

    private func timing(of p: AVPacket) -> PacketTiming {
        let nopts = avocet_nopts_value()
        return PacketTiming(presentationTime: p.pts == nopts ? nil : p.pts.subtractingSaturating(origin),
                            decodeTime: p.dts == nopts ? nil : p.dts.subtractingSaturating(origin),
                            duration: max(0, p.duration), isKeyframe: p.flags & AV_PKT_FLAG_KEY != 0)
    }

    /// When a decoded picture shows and for how long (item time, stream ticks).
    package struct PictureTiming: Equatable {
        package var presentationTime: Int64
        package var duration: Int64
    }

    /// Decodes the next picture in presentation order and converts it into the target `target` gives for
    /// the picture's decoded size (width, height); nil at the end of the stream. A target of nil skips the
    /// picture. Damaged pictures are skipped, as players do; a stream of nothing but damage fails with
    /// `.decodeFailed`.
    package func nextPicture(_ token: CancellationToken, into target: (Int, Int) throws -> PixelMemory?) throws -> PictureTiming? {
        hasRead = true
        if onOneThread && oneThreadFellBehind && !draining && !ended {
            try startAgainOnFrameThreads(token)
        }
        guard onOneThread else { return try decodeNextPicture(token, into: target) }
        if skipsNextCost {
            skipsNextCost = false
            return try decodeNextPicture(token, into: target)
        }
        let before = StreamReader.threadCPUSeconds()
        conversionCost = 0
        let picture = try decodeNextPicture(token, into: target)
        if let picture { countOneThreadCost(StreamReader.threadCPUSeconds() - before - conversionCost, showing: picture.duration) }
        return picture
    }

    /// Adds a picture decoded on one thread to what the last 32 cost; when they took more than
    /// `oneThreadBudget` of their showing time, the reader goes back to frame threads.
    private func countOneThreadCost(_ cpu: Double, showing duration: Int64) {
        oneThreadCost.cpu += max(0, cpu)
        oneThreadCost.shown += Double(max(0, duration)) * Double(timeBase.numerator) / Double(timeBase.denominator)
        oneThreadCost.pictures += 1
        guard oneThreadCost.pictures >= 32 else { return }
        if oneThreadCost.cpu > oneThreadBudget * oneThreadCost.shown { oneThreadFellBehind = true }
        oneThreadCost = (0, 0, 0)
    }

    /// After one thread fell behind: a start at the end of the last picture handed out, which (one
    /// thread being no longer wanted) decodes on frame threads from the keyframe before it, the pictures
    /// up to that end not handed out again: an exact seek there, which works for every codec, where
    /// waiting for a clean keyframe might wait for ever. Before any picture was handed out, frame
    /// threads take over at once.
    private func startAgainOnFrameThreads(_ token: CancellationToken) throws {
        guard let end = lastPictureEnd else {
            (oneThreadDecoder, onOneThread) = (nil, false)
            return
        }
        try start(at: MediaTimestamp(value: end, timeBase: timeBase), token)
    }

    /// The calling thread's CPU time so far, in seconds.
    private static func threadCPUSeconds() -> Double {
        var now = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0 else { return 0 }
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Whether the frame-threaded decoder gives way to the one on one thread at `p`, about to be sent: a
    /// reader at pace that wants one thread, at a clean keyframe past every picture it decodes on to.
    private func changesDecoder(at p: AVPacket) -> Bool {
        guard !changingDecoder, !onOneThread, wantsOneThread, p.flags & AV_PKT_FLAG_KEY != 0, cleanKeyframes.knowsCodec else { return false }
        if skipsBefore > .min {
            let nopts = avocet_nopts_value()
            guard p.pts != nopts, p.pts.subtractingSaturating(origin) >= skipsBefore else { return false }
        }
        return cleanKeyframes.isClean(UnsafeRawBufferPointer(start: p.data, count: p.data == nil ? 0 : Int(max(0, p.size))))
    }

    private func decodeNextPicture(_ token: CancellationToken, into target: (Int, Int) throws -> PixelMemory?) throws -> PictureTiming? {
        var decoder = try openDecoder()
        return try FFmpegLog.capturing {
            if keyframeFirst {
                keyframeFirst = false
                if let timing = try keyframeAlone(decoder, token, into: target) { return timing }
            }
            while true {
                if ended { return nil }
                if token.isCancelled { throw cancelled }
                switch decoder.receive(into: frame) {
                case .frame:
                    defer { av_frame_unref(frame) }
                    if let timing = try handOut(into: target) { return timing }
                case .damaged:
                    try decoder.noteDamagedPicture()
                case .end:
                    guard changingDecoder else { ended = true; continue }
                    // Drained: the decoder on one thread starts at the keyframe held, and the
                    // frame-threaded one goes (the next exact seek opens it again).
                    changingDecoder = false
                    (onOneThread, skipsNextCost) = (true, true)
                    self.decoder = nil
                    decoder = try openDecoder()
                case .needsInput:
                    if draining { ended = true; continue }
                    // The packet to send: one held (by a seek, a change of decoder or a cancelled read),
                    // else the next one, held until it is sent.
                    if !holdsPacket {
                        guard try packets.next(packet, token) else {
                            draining = true
                            _ = try decoder.send(nil)
                            continue
                        }
                        holdsPacket = true
                        // A send may wait for a frame thread (a picture's decode): not for a reader that
                        // was cancelled while the packet was read, which keeps it for the next call.
                        if token.isCancelled { throw cancelled }
                    }
                    if changesDecoder(at: packet.pointee) {
                        // The pictures the decoder holds come out first; the keyframe waits for the one
                        // on one thread.
                        changingDecoder = true
                        _ = try decoder.send(nil)
                        continue
                    }
                    holdsPacket = false
                    _ = try send(packet, to: decoder)
                }
            }
        }
    }

    /// The keyframe held after a seek, decoded alone: sent, then the decoder drained, so that its picture
    /// comes out at once instead of after the pictures a reordering decoder waits for (two more with
    /// B-frames, each a decode) and after the other frame threads' pictures. The decoder is then flushed
    /// and the keyframe kept to be sent again, and decoding goes on from it as usual, past the picture
    /// handed out here. Costs the keyframe's decode twice, the second after its picture is out: a seek
    /// to a keyframe (a tolerant one) shows its picture in about the time of one decode. Nil when the
    /// keyframe gives no picture alone; decoding then goes on as usual.
    private func keyframeAlone(_ decoder: StreamDecoder, _ token: CancellationToken,
                               into target: (Int, Int) throws -> PixelMemory?) throws -> PictureTiming? {
        guard holdsPacket else { return nil }
        defer { decoder.flush() }
        guard case .accepted = try send(packet, to: decoder), case .accepted = try decoder.send(nil) else { return nil }
        while true {
            if token.isCancelled { throw cancelled }
            switch decoder.receive(into: frame) {
            case .frame:
                defer { av_frame_unref(frame) }
                guard let timing = try handOut(into: target) else { continue }
                // Decoded again from the keyframe; its picture, handed out here, is not handed out twice.
                skipsBefore = max(skipsBefore, timing.presentationTime.addingSaturating(timing.duration))
                keyframesDecodedAlone += 1
                return timing
            case .damaged:
                try decoder.noteDamagedPicture()
            case .needsInput, .end:
                return nil
            }
        }
    }

    /// The picture in `frame`, just decoded: its timing, converted into the target `target` gives for its
    /// size (none: skipped), unless it ends before the pictures handed out begin or has no time (nil).
    private func handOut(into target: (Int, Int) throws -> PixelMemory?) throws -> PictureTiming? {
        guard let timing = timing(of: frame.pointee) else { return nil }
        let end = timing.presentationTime.addingSaturating(timing.duration)
        lastPictureEnd = end
        guard end > skipsBefore else { return nil }
        if let destination = try target(Int(frame.pointee.width), Int(frame.pointee.height)) {
            let before = onOneThread ? StreamReader.threadCPUSeconds() : 0
            try scaler.convert(frame, into: destination, source: name)
            if onOneThread { conversionCost += StreamReader.threadCPUSeconds() - before }
        }
        return timing
    }

    private var cancelled: MediaEngineError { MediaEngineError(.cancelled, source: name, operation: "decode", reason: "cancelled") }

    /// Sends `packet` to `decoder`, letting it skip the picture when no other refers to it and it ends
    /// before the pictures handed out begin (decoding on to a start time then costs only the pictures
    /// it needs).
    private func send(_ packet: UnsafeMutablePointer<AVPacket>, to decoder: StreamDecoder) throws -> StreamDecoder.Sent {
        let p = packet.pointee
        let nopts = avocet_nopts_value()
        decoder.skipsNonReferencePictures = skipsBefore > .min && p.pts != nopts && p.duration > 0 && p.flags & AV_PKT_FLAG_KEY == 0
            && p.pts.subtractingSaturating(origin).addingSaturating(p.duration) <= skipsBefore
        return try decoder.send(packet)
    }

    /// The decoder in use (`onOneThread`), opened when first needed.
    private func openDecoder() throws -> StreamDecoder {
        if let made = onOneThread ? oneThreadDecoder : decoder { return made }
        guard isVideo else {
            throw MediaEngineError(.invalidArgument, source: name, operation: "decode", reason: "the stream is not video")
        }
        let made = try packets.withStream { [onOneThread] in try StreamDecoder(stream: $0, source: name, onOneThread: onOneThread) }
        if onOneThread { oneThreadDecoder = made } else { decoder = made }
        return made
    }

    /// A decoded picture's time: its best-effort timestamp, or the end of the one before; nil for a
    /// first picture without any.
    private func timing(of f: AVFrame) -> PictureTiming? {
        let nopts = avocet_nopts_value()
        var pts = f.best_effort_timestamp
        if pts == nopts { pts = f.pts }
        let start: Int64
        if pts != nopts {
            start = pts.subtractingSaturating(origin)
        } else if let last = lastPictureEnd {
            start = last
        } else {
            return nil
        }
        return PictureTiming(presentationTime: start, duration: f.pkt_duration > 0 ? f.pkt_duration : nominalDuration)
    }
}
