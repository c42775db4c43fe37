internal import CFFmpeg
import Foundation
internal import Locking

/// Finds and decodes the pictures of one video stream, on a container opened for it alone: its seeks
/// never disturb, and never wait behind, another job on the same asset (a header parse, a packet scan,
/// another reader).
///
/// How a picture is found, for a time `t` and the window `[t - before, t + after]` the tolerances allow:
/// 1. A picture already in hand is used again: the one whose presentation interval holds `t` (the
///    reader keeps the last two it decoded going forward), or the keyframe step 2 would decode.
/// 2. Where the container's keyframe index has no gaps (MP4, MOV, Matroska, AVI) and knows keyframes
///    on both sides of `t`, the keyframe in the window nearest `t` is decoded alone: one seek, one
///    picture. With Apple's default (unbounded) tolerances this is the usual case.
/// 3. Otherwise the reader seeks to the keyframe at or before `t` (seeking again further back when a
///    demuxer lands past it, as MPEG-TS does) and takes that keyframe when it lies in the window; else
///    it decodes forward to the picture whose interval holds `t`, skipping the pictures no other one
///    needs. When the next time lies ahead in the group of pictures being decoded, it goes on from
///    where it stands, without a seek. If no picture's interval holds `t` (past the end of the video,
///    before its start), the nearest picture inside the window is taken, or the request fails with
///    `.noFrameAtTime`. A seek that leads to no picture at all (FFmpeg's AVI demuxer without an index)
///    is replaced by reading from the start of a container opened again.
///
/// Blocking: every method runs on an engine thread. One operation at a time (a lock serialises
/// callers); the reader holds its byte source (a file descriptor for files) open until it is dropped.
package final class VideoFrameReader: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is touched only under `lock`.
    private let lock = Locked()
    private var context: FormatContext
    private var ctx: UnsafeMutablePointer<AVFormatContext>
    private var stream: UnsafeMutablePointer<AVStream>
    private let streamIndex: Int32
    /// The stream the reader decodes (FFmpeg's index, as `StreamInfo.index`).
    package var decodedStreamIndex: Int { Int(streamIndex) }
    private var decoder: StreamDecoder
    private let source: any ByteSource
    private let options: DemuxerOptions
    /// A seek led to no picture where reading from the start found the one asked for (FFmpeg's AVI
    /// demuxer without an index seeks nowhere): going back then means opening the container again and
    /// decoding from the start.
    private var seekingFails = false
    /// While decoding forward: pictures ending at or before this stream time cannot be the answer, so
    /// those no other picture needs are not decoded at all.
    private var skipsPicturesEndingBy: Int64?
    /// The latest start of a packet read since this forward decode began, at or before that time.
    private var latestStartByLimit: Int64?
    private let scaler = FrameScaler()
    private let name: String
    private let timeBase: AVRational
    /// The stream timestamp of the asset's time zero (a playlist's first timestamp; else 0).
    private let origin: Int64
    /// One frame's duration in stream ticks, for pictures that state none (at least 1).
    private let nominalDuration: Int64
    private var packet: UnsafeMutablePointer<AVPacket>?

    /// A decoded picture kept for rendering: its frame, when it shows and for how long (stream ticks:
    /// until the next picture once that one is decoded, else its packet's duration).
    private struct Picture {
        let frame: OwnedFrame
        let pts: Int64
        var duration: Int64
        /// The keyframe estimate (step 2) this picture answered, if any.
        var keyEstimate: Int64?
        /// Whether `duration` is known to be right: the next picture has been decoded, or the stream
        /// ended after this one. Until then it is the packet's, which in a variable-rate movie can
        /// reach past pictures not yet decoded (a B-frame's decode duration).
        var endIsKnown = false
        var end: Int64 { pts.addingSaturating(duration) }
    }

    /// The time window of one request, in stream ticks.
    private struct Window {
        let target: Int64, low: Int64, high: Int64
        /// Whether a picture's presentation interval meets the window.
        func accepts(_ p: Picture) -> Bool { p.pts <= high && p.end > low }
        func contains(_ p: Picture) -> Bool { p.pts <= target && p.end > target }
    }

    // Decoding state.
    /// The decoder is positioned mid-stream and not drained: decoding can go on forward from here.
    private var live = false
    /// Packets are skipped until a keyframe, after a seek.
    private var needsKeyframe = true
    private var draining = false
    /// The timestamp of the keyframe packet the current run of decoding started from.
    private var startPacketTimestamp: Int64?
    /// The last two pictures decoded going forward: the one at or before the last time asked, and the next.
    private var previous: Picture?
    private var lookahead: Picture?
    /// The last keyframe decoded alone (step 2).
    private var heldKeyframe: Picture?
    /// The keyframes the container's index knows.
    private var index: KeyframeIndex
    private var keyframes: [Int64] { index.keyframes }
    private var indexHasNoGaps: Bool { index.hasNoGaps }

    /// How much work the reader has done: seeks made and pictures decoded (for tests and benchmarks).
    package struct Work: Sendable, Equatable {
        package var seeks = 0
        package var decodedPictures = 0
    }

    private var work = Work()

    package var workDone: Work {
        lock.withLock { work }
    }

    /// Opens `source` and a decoder for the stream at `streamIndex` (FFmpeg's index, as `StreamInfo`
    /// gives it). Blocking: parses the header again, on the calling engine thread. Throws
    /// `.unsupported` when FFmpeg cannot decode the stream, `.failed` when the stream is not video
    /// (the source changed since it was described).
    package init(source: any ByteSource, options: DemuxerOptions, streamIndex: Int, cancellation: CancellationToken) throws {
        name = source.name
        self.source = source
        self.options = options
        self.streamIndex = Int32(streamIndex)
        let opened = try VideoFrameReader.open(source, options: options, streamIndex: streamIndex, cancellation: cancellation)
        (context, ctx, stream, decoder) = opened
        let st = opened.stream
        let format = ContainerFormat(demuxer: context.demuxerName)
        index = KeyframeIndex(format: format)
        timeBase = st.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw MediaEngineError(.notMedia, source: name, operation: "open the video stream", reason: "the stream has no time base")
        }
        origin = av_rescale_q(FFmpeg.itemOrigin(ctx, format: format), AVRational(num: 1, den: AV_TIME_BASE), timeBase)
        let rate = st.pointee.avg_frame_rate.num > 0 && st.pointee.avg_frame_rate.den > 0 ? st.pointee.avg_frame_rate : st.pointee.r_frame_rate
        if rate.num > 0, rate.den > 0 {
            nominalDuration = max(1, av_rescale_q(1, AVRational(num: rate.den, den: rate.num), timeBase))
        } else {
            nominalDuration = 1
        }
        packet = av_packet_alloc()
        guard packet != nil else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "open the video stream", reason: "out of memory")
        }
    }

    deinit { av_packet_free(&packet) }

    /// Opens the container, checks the stream is still video, keeps only it, and opens its decoder.
    private static func open(_ source: any ByteSource, options: DemuxerOptions, streamIndex: Int, cancellation: CancellationToken)
        throws -> (FormatContext, UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>, StreamDecoder) {
        try FFmpegLog.capturing {
            let (context, ctx) = try Demuxer.openContext(source, options: options, cancellation: cancellation)
            _ = try Demuxer.analyzeIfNeeded(context, options: options, cancellation: cancellation)
            let count = Int(ctx.pointee.nb_streams)
            guard streamIndex >= 0, streamIndex < count, let st = ctx.pointee.streams[streamIndex],
                  st.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO else {
                throw MediaEngineError(.failed, source: source.name, operation: "open the video stream",
                                       reason: "the file changed after its header was read: stream \(streamIndex) is not video")
            }
            // Only this stream is read: the demuxer skips the others (a playlist fetches no other variant).
            for i in 0..<count where i != streamIndex {
                ctx.pointee.streams[i]?.pointee.discard = AVDISCARD_ALL
            }
            return (context, ctx, st, try StreamDecoder(stream: st, source: source.name))
        }
    }

    /// Opens the container again, at its start, for a demuxer whose seeks fail.
    private func reopen(_ token: CancellationToken) throws {
        (context, ctx, stream, decoder) = try VideoFrameReader.open(source, options: options, streamIndex: Int(streamIndex),
                                                                    cancellation: token)
        index.reset()
        resetPosition()
    }

    private func resetPosition() {
        previous = nil
        lookahead = nil
        live = true
        draining = false
        needsKeyframe = true
        startPacketTimestamp = nil
    }

    /// The picture for `request`, as `format` says. Blocking: seeks, reads and decodes on the calling
    /// engine thread; `cancellation` stops it at the next packet or read.
    package func picture(_ request: PictureRequest, format: PictureFormat, cancellation: CancellationToken) throws -> DecodedPicture {
        try withChosen(request, cancellation) { try render($0, format) }
    }

    /// When the keyframe nearest `request.time` inside its window shows, from the container's index
    /// alone (nothing is read or decoded): where a player's tolerant seek lands. Nil when the index
    /// cannot say (a container whose index has gaps, or no keyframe in the window).
    package func keyframeTime(for request: PictureRequest) -> MediaTimestamp? {
        lock.withLock { index.keyframeTime(for: request, in: stream, origin: origin, trusted: !seekingFails) }
    }

    /// The decoded frame for `request`, lent to `body` as FFmpeg gives it (any pixel format, the coded
    /// size), for the engine's own consumers (an encoder scaling straight to its format), with when it
    /// shows on the asset's timeline: from its start until, as in MP4's presentation, the next picture
    /// starts (or its packet's end, for the stream's last). Where the reader has not decoded the next
    /// picture yet, `until` is the picture's own start: nothing is known past it. Blocking, as
    /// `picture(_:format:cancellation:)`.
    func withDecodedFrame<T>(_ request: PictureRequest, cancellation: CancellationToken,
                             _ body: (UnsafeMutablePointer<AVFrame>, _ shows: (start: MediaTimestamp, until: MediaTimestamp)) throws -> T) throws -> T {
        try withChosen(request, cancellation) { picture in
            try body(picture.frame.pointer, (timestamp(picture.pts), timestamp(picture.endIsKnown ? picture.end : picture.pts)))
        }
    }

    /// Where the first picture after the last time asked starts, on the asset's timeline, when the
    /// reader has decoded it (after a request that found no picture: where one shows again); nil when
    /// it has not, which after such a request means the stream has no picture after that time.
    func nextPictureStart() -> MediaTimestamp? {
        lock.withLock { lookahead.map { timestamp($0.pts) } }
    }

    /// Stream ticks as a time on the asset's timeline.
    private func timestamp(_ ticks: Int64) -> MediaTimestamp {
        MediaTimestamp(value: ticks.subtractingSaturating(origin), timeBase: Rational(timeBase.num, timeBase.den))
    }

    /// Finds the picture for `request` and hands it to `body`, holding the reader for both.
    private func withChosen<T>(_ request: PictureRequest, _ cancellation: CancellationToken, _ body: (Picture) throws -> T) throws -> T {
        try lock.withLock { () throws -> T in
            context.use(cancellation)
            decoder.resetDamageCount()
            return try FFmpegLog.capturing {
                try body(try find(window(for: request), cancellation))
            }
        }
    }

    // MARK: - Choosing a picture

    /// `t` in stream ticks, rounded down (see `PictureRequest`).
    private func ticks(_ t: MediaTimestamp) -> Int64 {
        guard t.timeBase.numerator > 0, t.timeBase.denominator > 0 else { return 0 }
        return av_rescale_q_rnd(t.value, AVRational(num: t.timeBase.numerator, den: t.timeBase.denominator), timeBase,
                                AVRounding(rawValue: AV_ROUND_DOWN.rawValue | AV_ROUND_PASS_MINMAX.rawValue))
    }

    private func window(for request: PictureRequest) -> Window {
        let target = origin.addingSaturating(ticks(request.time))
        let low = request.earliest.map { min(target, origin.addingSaturating(ticks($0))) } ?? .min
        let high = request.latest.map { max(target, origin.addingSaturating(ticks($0))) } ?? .max
        return Window(target: target, low: low, high: high)
    }

    private func find(_ w: Window, _ token: CancellationToken) throws -> Picture {
        // A picture kept from before answers when it starts at the time, or when its end is known and
        // the time lies before it (a packet's duration can reach past pictures not yet decoded).
        for held in [previous, lookahead].compactMap({ $0 }) where w.contains(held) && (held.endIsKnown || held.pts == w.target) {
            return held
        }
        refreshKeyframes()
        if let key = nearestKeyframe(in: w) {
            if let held = heldKeyframe, held.keyEstimate == key, w.accepts(held) { return held }
            if let picture = try decodeAlone(key, token), w.accepts(picture) {
                heldKeyframe = picture
                return picture
            }
        }
        return try decodeForward(to: w, token)
    }

    /// Re-reads the index's keyframes when it has grown.
    private func refreshKeyframes() { index.refresh(stream) }

    /// The keyframe in the window nearest the target, when the index knows keyframes on both sides of
    /// it and has no gaps; else nil (the target's own group is then found by seeking).
    private func nearestKeyframe(in w: Window) -> Int64? {
        index.nearest(to: w.target, low: w.low, high: w.high, trusted: !seekingFails)
    }

    /// Decodes the keyframe estimated to show at `key` alone: seek, one packet, drain. Nil when it gave
    /// no picture.
    private func decodeAlone(_ key: Int64, _ token: CancellationToken) throws -> Picture? {
        try seek(atOrBefore: key, token)
        live = false
        var sent = false
        while !sent {
            guard try readPacket(token) else { break }
            sent = try send()
        }
        if !sent { return nil }
        _ = try decoder.send(nil)
        var first: Picture?
        var damaged = 0
        while true {
            let frame = try newFrame()
            let result = decoder.receive(into: frame.pointer)
            if result == .end || result == .needsInput { break }
            if result == .damaged {
                damaged += 1
                if damaged > 16 { break }
                continue
            }
            if first == nil, var picture = makePicture(frame) {
                picture.keyEstimate = key
                first = picture
            }
        }
        decoder.flush()
        return first
    }

    /// Decodes forward to the picture whose interval holds the target (see the type's description).
    private func decodeForward(to w: Window, _ token: CancellationToken) throws -> Picture {
        var fresh = false
        // With no bound before the time, the keyframe a seek lands on is always an answer and costs
        // one picture: decoding on from an earlier picture is worth it only a little way (a strip of
        // close times gets its own pictures rather than the same keyframe again and again).
        if !canContinue(to: w.target, within: w.low == .min ? 1 : indexHasNoGaps && !keyframes.isEmpty ? nil : 2) {
            try seek(atOrBefore: w.target, token)
            fresh = true
        } else if let next = lookahead {
            // Going on from where the last request stopped: its look-ahead picture comes first.
            previous = nil
            lookahead = nil
            if next.pts <= w.target { previous = next } else { lookahead = next }
        }
        var retries = 0
        var seekTarget = w.target
        var reopened = false
        let streamStart = stream.pointee.start_time != avocet_nopts_value() ? stream.pointee.start_time : Int64.min
        skipsPicturesEndingBy = w.low > .min ? w.low : nil
        latestStartByLimit = nil
        defer { skipsPicturesEndingBy = nil }
        while lookahead == nil {
            guard let picture = try nextPicture(token) else {
                if fresh && !reopened {
                    // The seek led to no picture at all (FFmpeg's AVI demuxer without an index lands
                    // nowhere): from the start, on a container opened again.
                    reopened = true
                    fresh = false
                    try reopen(token)
                    continue
                }
                // The stream ended: the last picture shows for its packet's duration.
                if var p = previous, lookahead == nil {
                    p.endIsKnown = true
                    previous = p
                }
                break
            }
            if fresh {
                fresh = false
                // The seek landed past the target (an index of decode times; MPEG-TS's search by
                // timestamp, which lands mid-group and goes on to the next keyframe): seek again,
                // one, two, four, eight, then sixteen seconds earlier, until the landing is before
                // the target or the stream's start is reached.
                if picture.pts > w.target, retries < 5, seekTarget > streamStart, let started = startPacketTimestamp {
                    let back = av_rescale_q(Int64(1) << retries, AVRational(num: 1, den: 1), timeBase)
                    retries += 1
                    seekTarget = min(started, w.target).subtractingSaturating(max(1, back))
                    try seek(atOrBefore: seekTarget, token)
                    fresh = true
                    continue
                }
                if picture.pts >= w.low && picture.pts <= w.high {
                    previous = picture
                    return picture
                }
            }
            if picture.pts <= w.target {
                previous = picture
            } else {
                if var p = previous, picture.pts > p.pts {
                    // A picture shows until the next one starts, as in MP4's presentation: a packet's
                    // duration is its decode duration, which in a variable-rate movie with B-frames
                    // can end before the next picture starts (and leave a gap nothing shows in).
                    p.duration = picture.pts.subtractingSaturating(p.pts)
                    p.endIsKnown = true
                    previous = p
                }
                lookahead = picture
            }
        }
        if let p = previous, w.contains(p) {
            // Reading from the start found a picture the seek should have: seeking is broken here.
            if reopened { seekingFails = true }
            return p
        }
        let candidates = [previous, lookahead].compactMap { $0 }.filter { w.accepts($0) }
        // Outside its interval: how far the target lies from the picture's start (after it) or end (before it).
        func gap(_ p: Picture) -> Int64 {
            p.pts > w.target ? p.pts.subtractingSaturating(w.target) : w.target.subtractingSaturating(p.end)
        }
        guard let best = candidates.min(by: { gap($0) < gap($1) }) else {
            throw MediaEngineError(.noFrameAtTime, source: name, operation: "find a picture",
                                   reason: "the video has no picture at \(seconds(w.target.subtractingSaturating(origin))) s within the tolerances")
        }
        return best
    }

    /// Whether decoding on from the current position reaches `target` sooner than a seek would: the
    /// decoder is live, stands at or before it, no keyframe the index knows lies between, and it is at
    /// most `seconds` ahead (nil: any distance, for an index without gaps, where a seek would only land
    /// on the keyframe the decoder started from).
    private func canContinue(to target: Int64, within seconds: Int64?) -> Bool {
        guard live, let here = (lookahead ?? previous)?.pts, here <= target else { return false }
        if keyframes.contains(where: { $0 > here && $0 <= target }) { return false }
        guard let seconds else { return true }
        return target.subtractingSaturating(here) <= av_rescale_q(seconds, AVRational(num: 1, den: 1), timeBase)
    }

    // MARK: - Reading and decoding

    private func seek(atOrBefore timestamp: Int64, _ token: CancellationToken) throws {
        if seekingFails {
            try reopen(token)
            work.seeks += 1
            return
        }
        let rc = FFmpeg.seek(ctx, stream: streamIndex, atOrBefore: timestamp, token)
        if rc < 0 { throw context.seekFailure(rc, token) }
        work.seeks += 1
        decoder.flush()
        resetPosition()
    }

    /// Reads the next packet of the stream into `packet`; false at the end of the file.
    private func readPacket(_ token: CancellationToken) throws -> Bool {
        guard let p = packet else { return false }
        var skipped = 0
        while true {
            if token.isCancelled { throw context.failure(avocet_averror_exit(), "read", token) }
            av_packet_unref(p)
            let rc = FFmpeg.readFrame(ctx, p)
            if rc == avocet_averror_eof() { return false }
            if rc < 0 { throw context.failure(rc, "read", token) }
            guard p.pointee.stream_index == streamIndex else { continue }
            if needsKeyframe && p.pointee.flags & AV_PKT_FLAG_KEY == 0 {
                // A stream whose demuxer never marks keyframes is decoded from wherever it is.
                skipped += 1
                if skipped < 1000 { continue }
            }
            if needsKeyframe {
                needsKeyframe = false
                let ts = p.pointee.dts != avocet_nopts_value() ? p.pointee.dts : p.pointee.pts
                startPacketTimestamp = ts != avocet_nopts_value() ? ts : nil
            }
            return true
        }
    }

    /// Sends `packet` to the decoder; false when the decoder dropped it as damaged.
    private func send() throws -> Bool {
        guard let p = packet else { return false }
        let pts = p.pointee.pts
        var skips = false
        if let limit = skipsPicturesEndingBy, pts != avocet_nopts_value() {
            // A picture shows until the next one starts, whatever its packet's duration says: it
            // cannot be the answer only when a packet read already starts after it and by the limit
            // (a B-frame's later reference comes before it in decode order).
            skips = p.pointee.duration > 0 && p.pointee.flags & AV_PKT_FLAG_KEY == 0 && (latestStartByLimit ?? .min) > pts
                && pts.addingSaturating(p.pointee.duration) <= limit
            if pts <= limit { latestStartByLimit = max(latestStartByLimit ?? .min, pts) }
        }
        decoder.skipsNonReferencePictures = skips
        return try decoder.send(p) == .accepted
    }

    /// The next picture going forward, reading and sending packets as the decoder asks; nil at the end.
    private func nextPicture(_ token: CancellationToken) throws -> Picture? {
        while true {
            if token.isCancelled { throw context.failure(avocet_averror_exit(), "decode", token) }
            let frame = try newFrame()
            switch decoder.receive(into: frame.pointer) {
            case .frame:
                if let picture = makePicture(frame) { return picture }
            case .damaged:
                try decoder.noteDamagedPicture()
            case .end:
                live = false
                return nil
            case .needsInput:
                if draining {
                    live = false
                    return nil
                }
                if try readPacket(token) {
                    _ = try send()
                } else {
                    draining = true
                    _ = try decoder.send(nil)
                }
            }
        }
    }

    private func newFrame() throws -> OwnedFrame {
        guard let frame = av_frame_alloc() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "decode", reason: "out of memory")
        }
        return OwnedFrame(frame)
    }

    /// The decoded frame with its time; nil for a frame without a usable time.
    private func makePicture(_ frame: OwnedFrame) -> Picture? {
        let f = frame.pointer.pointee
        let nopts = avocet_nopts_value()
        var pts = f.best_effort_timestamp
        if pts == nopts { pts = f.pts }
        if pts == nopts {
            guard let last = lookahead ?? previous else { return nil }
            pts = last.end
        }
        let duration = f.pkt_duration > 0 ? f.pkt_duration : nominalDuration
        work.decodedPictures += 1
        return Picture(frame: frame, pts: pts, duration: duration, keyEstimate: nil)
    }

    private func render(_ picture: Picture, _ requested: PictureFormat) throws -> DecodedPicture {
        var format = requested
        (format.width, format.height) = requested.size(decodedWidth: Int(picture.frame.pointer.pointee.width),
                                                       decodedHeight: Int(picture.frame.pointer.pointee.height))
        var pixels = try scaler.rgba(from: picture.frame.pointer, width: format.width, height: format.height, source: name)
        pixels = FrameScaler.reorient(pixels, width: format.width, height: format.height, format.orientation)
        let (width, height) = format.orientedSize
        return DecodedPicture(width: width, height: height, pixels: pixels,
                              presentationTime: timestamp(picture.pts))
    }


    private func seconds(_ ticks: Int64) -> String {
        String(format: "%.3f", Double(ticks) * Double(timeBase.num) / Double(timeBase.den))
    }
}
