internal import CFFmpeg
import Foundation

/// Decodes one audio stream into interleaved 32-bit float samples at a chosen rate and channel count
/// (libswresample), from any time on, optionally played faster or slower (the pitch follows, as
/// varispeed). Owns its decoder and resampler, and either its own container or its stream's share of a
/// player item's `ItemDemuxer`. Blocking: call on an engine thread, one caller at a time.
package final class AudioSampleReader {
    private let packets: any PacketSource
    /// Its decoder (visible to tests, which look at a segmented decoder's seams).
    let decoder: any AudioFrameDecoding

    /// Whether the stream is decoded in segments on the engine's compute threads (`.segmented` asked,
    /// and a codec decoded that way): its decoding runs ahead of the reads already.
    package var decodesInSegments: Bool { decoder is SegmentedAudioDecoder }
    private var resampler: OpaquePointer?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    let outputRate: Int32
    let channels: Int32
    /// Output frames still to drop (decoded before the start time).
    private var skip = 0
    /// The start time in frames of the output rate.
    private var startFrame: Int64 = 0
    private var speed = 1.0
    private var fillsGap = true
    private var needsStartTime = true
    private var ended = false
    /// Whether packets have been read since the container was opened (else it stands at its start).
    private var hasRead = false
    /// Where the stream's sound ends (item time, stream ticks) when the container says so exactly: an
    /// MP4 or QuickTime track's duration, which its edit list sets to leave out the encoder's padding
    /// after the last sound (an AAC track's last packet is padded to 1024 frames), as Apple's reader
    /// does (`read` checks that only padding lies past it). Nil elsewhere: the sound ends with the
    /// last packet's.
    private let streamEnd: Int64?
    /// `streamEnd` in frames of the output rate from item time zero, and the frames `read` has
    /// returned since the start.
    private var endFrame: Int64?
    private var delivered: Int64 = 0
    /// Whether what lies past `endFrame` was looked at (only padding: it holds; more: it was dropped).
    private var endChecked = false
    /// Where the next decoded sample belongs: the item time (frames of the output rate) of the last
    /// decoded frame whose time was taken, and the samples (at its rate) decoded from it on.
    private var anchor: (frame: Int64, rate: Int32, samples: Int64)?
    /// Frames decoded after a start without a time (a demuxer may give the first packets after a seek
    /// none: FFmpeg's HLS, with the rest of an MPEG-TS packet it cut into), converted and held until a
    /// frame with a time places them: their samples, their input samples and rate.
    private var held: [Float] = []
    private var heldInput: Int64 = 0
    private var heldRate: Int32?
    /// Samples converted but not yet read.
    private var pending: [Float] = []
    /// Where the resampler writes, kept from frame to frame (grown when a frame needs more): a new
    /// array for each decoded frame cost an allocation and a pass of zeroes per frame.
    private var scratch: [Float] = []
    /// The input shape the resampler was set up for (rate, sample format, channels): a stream that
    /// changes it mid-way (5.1 to stereo at a broadcast's ad break) gets a new resampler.
    private var inputShape: (rate: Int32, format: Int32, channels: Int32)?

    /// Opens `source` and reads its stream `streamIndex`; `decoding` says how it is decoded.
    package convenience init(source: any ByteSource, options: DemuxerOptions, streamIndex: Int, outputRate: Int32, channels: Int32,
                             cancellation: CancellationToken, decoding: AudioDecoding = .oneDecoder) throws {
        try self.init(packets: PacketReader(source: source, options: options, streamIndex: streamIndex, cancellation: cancellation),
                      streamIndex: streamIndex, outputRate: outputRate, channels: channels, decoding: decoding)
    }

    /// Opens `source` once: describes the container (as `Demuxer` does: `info`), and reads the audio
    /// stream `choose` picks from that description, at the output rate and channel count it gives,
    /// over the same open container (see `Demuxer.describedReader`); `choice` is whatever else `choose`
    /// decided from the description; `decoding` says how the stream is decoded. Blocking: call on an
    /// engine thread or a caller's own.
    package static func opening<Choice>(source: any ByteSource, options: DemuxerOptions, cancellation: CancellationToken,
                                        decoding: AudioDecoding = .oneDecoder,
                                        choose: (ContainerInfo) throws -> (streamIndex: Int, outputRate: Int32, channels: Int32, choice: Choice))
        throws -> (info: ContainerInfo, reader: AudioSampleReader, choice: Choice) {
        let opened = try Demuxer.describedReader(source: source, options: options, cancellation: cancellation) { info in
            let chosen = try choose(info)
            return (chosen.streamIndex, chosen)
        }
        let chosen = opened.choice
        let reader = try AudioSampleReader(packets: opened.reader, streamIndex: chosen.streamIndex, outputRate: chosen.outputRate,
                                           channels: chosen.channels, decoding: decoding)
        return (opened.info, reader, chosen.choice)
    }

    /// Reads the stream at `streamIndex` from `demuxer`, the container a player item reads ahead (a
    /// start inside what it keeps costs no seek); nil when the stream is not one the demuxer reads.
    /// Blocking: opens the container when the demuxer has not yet.
    package convenience init?(demuxer: ItemDemuxer, streamIndex: Int, outputRate: Int32, channels: Int32,
                              cancellation: CancellationToken) throws {
        guard let consumer = try demuxer.consumer(of: streamIndex, cancellation) else { return nil }
        try self.init(packets: consumer, streamIndex: streamIndex, outputRate: outputRate, channels: channels)
    }

    private init(packets: any PacketSource, streamIndex: Int, outputRate: Int32, channels: Int32, decoding: AudioDecoding = .oneDecoder) throws {
        self.packets = packets
        let name = packets.name
        guard packets.withStream({ $0.pointee.codecpar.pointee.codec_type }) == AVMEDIA_TYPE_AUDIO else {
            throw MediaEngineError(.failed, source: name, operation: "open the audio stream",
                                   reason: "the file changed after its header was read: stream \(streamIndex) is not audio")
        }
        decoder = try packets.withStream { stream -> any AudioFrameDecoding in
            if case .segmented(let seconds, let preroll) = decoding, let parameters = stream.pointee.codecpar,
               let segmented = SegmentedAudioDecoder(parameters: parameters, timeBase: stream.pointee.time_base, name: name,
                                                     segmentSeconds: seconds, prerollSeconds: preroll) {
                return segmented
            }
            return try StreamDecoder(stream: stream, source: name)
        }
        guard let p = av_packet_alloc(), let f = av_frame_alloc() else {
            throw MediaEngineError(.outOfMemory, source: name, operation: "open the audio stream", reason: "out of memory")
        }
        (packet, frame) = (p, f)
        self.outputRate = outputRate
        self.channels = channels
        let st = packets.withStream { $0.pointee }
        if packets.format == .quickTime, st.duration > 0, st.start_time != avocet_nopts_value() {
            streamEnd = st.start_time.addingSaturating(st.duration).subtractingSaturating(packets.origin(in: st.time_base))
        } else {
            streamEnd = nil
        }
    }

    deinit {
        swr_free(&resampler)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// Starts reading at `seconds` of the stream's timeline, `speed` source seconds a second.
    package func start(at seconds: Double, speed: Double, _ token: CancellationToken) throws {
        let micros = (seconds * 1_000_000).rounded(.down)
        try start(at: MediaTimestamp(value: micros.isFinite ? Int64(saturating: micros) : 0, timeBase: Rational(1, 1_000_000)),
                  speed: speed, token)
    }

    /// Starts reading at `time` of the stream's timeline (item time), `speed` source seconds a second.
    /// At speed 1 the cut is exact to the output sample: no time passes through `Double` seconds.
    /// With `fillsGap`, audio that begins after `time` is preceded by silence so that the first frame
    /// read is at `time` (the player keeps sound and pictures in step); without it, reading starts at
    /// the audio's first sample and `firstFrame` says where that is.
    package func start(at time: MediaTimestamp, speed: Double, fillsGap: Bool = true, _ token: CancellationToken) throws {
        let tb = packets.timeBase
        let ticks = Self.rescale(time, to: tb)
        // An HLS stream's timestamps count from its start time; the item's from zero. The decoder
        // starts a little before the time (its output there is dropped): a decoder needs the packets
        // before the first it outputs right (MP3's bit reservoir, AAC's overlap, Opus's pre-roll).
        let before = ticks > 0 ? ticks.subtractingSaturating(prerollTicks) : ticks
        // A reader that has read nothing starts at the beginning without a seek: FFmpeg's HLS cannot
        // seek to the playlist's start exactly (`FFmpeg.seek` lands a little later, and the demuxer
        // drops the packets before).
        if hasRead || before > 0 || !packets.standsAtStart {
            try packets.seek(atOrBefore: max(0, before).addingSaturating(packets.origin(in: tb)), token)
        }
        decoder.flush()
        swr_free(&resampler)
        pending = []
        inputShape = nil
        startFrame = Self.rescale(time, to: AVRational(num: 1, den: outputRate))
        endFrame = streamEnd.map { av_rescale_q($0, tb, AVRational(num: 1, den: outputRate)) }
        (delivered, endChecked) = (0, false)
        (self.speed, self.fillsGap, needsStartTime, ended, skip, firstFrame) = (speed > 0 && speed.isFinite ? speed : 1, fillsGap, true, false, 0, nil)
        anchor = nil
        (held, heldInput, heldRate) = ([], 0, nil)
    }

    /// The decoder's sound has a shape libswresample refuses (a damaged or hostile file: 28 channels in
    /// no known order, a sample format out of range): the media cannot be decoded to what was asked.
    private func unmixable(_ f: AVFrame, _ rc: Int32) -> MediaEngineError {
        if rc == avocet_averror_enomem() { return FFmpeg.error(rc, "set up the resampler", source: packets.name) }
        let order = f.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC ? " in no known order" : ""
        return MediaEngineError(.decodeFailed, source: packets.name, operation: "convert the decoded sound",
                                reason: "\(f.ch_layout.nb_channels) channels\(order) at \(f.sample_rate) Hz cannot be converted to \(channels) "
                                    + "channels at \(outputRate) Hz (\(FFmpeg.describe(rc)))", ffmpegCode: rc)
    }

    /// How far before a start time decoding starts, in stream ticks: the codec's seek pre-roll (Opus
    /// asks 80 ms) or eight packets (MP3's bit reservoir reaches back several), whichever is longer.
    private var prerollTicks: Int64 {
        let par = packets.withStream { $0.pointee.codecpar.pointee }
        guard par.sample_rate > 0 else { return 0 }
        let samples = max(Int64(par.seek_preroll), 8 * Int64(par.frame_size > 0 ? par.frame_size : 1152))
        return av_rescale_q(samples, AVRational(num: 1, den: par.sample_rate), packets.timeBase)
    }

    /// Where the first frame `read` returns lies, in frames of the output rate from item time zero;
    /// nil until the first decoded frame is known.
    package private(set) var firstFrame: Int64?

    private static func rescale(_ time: MediaTimestamp, to base: AVRational) -> Int64 {
        guard time.timeBase.numerator > 0, time.timeBase.denominator > 0, base.num > 0, base.den > 0 else { return 0 }
        let rounding = AVRounding(rawValue: AV_ROUND_DOWN.rawValue | AV_ROUND_PASS_MINMAX.rawValue)
        return av_rescale_q_rnd(time.value, AVRational(num: time.timeBase.numerator, den: time.timeBase.denominator), base, rounding)
    }

    /// Up to `count` frames (`channels` samples each); fewer only at the end of the stream.
    package func read(_ count: Int, _ token: CancellationToken) throws -> [Float] {
        try read(count, token) { Array($0) }
    }

    /// Up to `count` frames, as `read(_:_:)` gives them, lent to `body` for the length of the call
    /// rather than copied into an array of their own (a reader output packs them straight into its
    /// buffer); they count as read once `body` returns.
    package func read<T>(_ count: Int, _ token: CancellationToken, _ body: (UnsafeBufferPointer<Float>) throws -> T) throws -> T {
        var frames = count
        if endChecked, let left = framesLeft { frames = Int(max(0, min(Int64(frames), left))) }
        while pending.count < frames * Int(channels) && !ended {
            try FFmpegLog.capturing { try decodeMore(token) }
        }
        // The first frame's time is known once one is decoded. Sound past the stream's stated end is
        // left out only when it is the last packet's padding: a stated end well before the sound's
        // (a fragmented movie's estimate) is not believed.
        if !endChecked, let left = framesLeft, Int64(pending.count / Int(channels)) >= left {
            while !ended && Int64(pending.count / Int(channels)) - left <= paddingLimit {
                try FFmpegLog.capturing { try decodeMore(token) }
            }
            endChecked = true
            if Int64(pending.count / Int(channels)) - left > paddingLimit { endFrame = nil }
        }
        if let left = framesLeft { frames = Int(max(0, min(Int64(frames), left))) }
        let taken = min(frames * Int(channels), pending.count)
        let result = try pending.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<taken])) }
        pending.removeFirst(taken)
        delivered += Int64(taken / Int(channels))
        return result
    }

    /// The most sound past the stream's stated end that counts as padding, in output frames: two
    /// packets (an AAC packet holds 1024 frames, 2048 with SBR).
    private var paddingLimit: Int64 {
        let par = packets.withStream { $0.pointee.codecpar.pointee }
        guard par.sample_rate > 0 else { return 0 }
        let packet = Int64(par.frame_size > 0 ? par.frame_size : 2048)
        return Int64((Double(av_rescale(2 * packet, Int64(outputRate), Int64(par.sample_rate))) / speed).rounded(.up))
    }

    /// Output frames still to read before the stream's end (`streamEnd`); nil when unknown.
    private var framesLeft: Int64? {
        guard let endFrame, let firstFrame else { return nil }
        let span = endFrame.subtractingSaturating(firstFrame)
        let frames = speed == 1 ? span : Int64(saturating: (Double(span) / speed).rounded())
        return frames.subtractingSaturating(delivered)
    }

    private func decodeMore(_ token: CancellationToken) throws {
        switch try decoder.receive(into: frame, token) {
        case .frame:
            try convert(frame)
            av_frame_unref(frame)
        case .damaged:
            break
        case .end:
            if needsStartTime {
                // No frame had a time: the held ones are taken to start at the start.
                placeStart(nil)
                try releaseHeld()
            }
            try flushResampler()
            ended = true
        case .needsInput:
            hasRead = true
            if try packets.next(packet, token) {
                _ = try decoder.send(packet, token)
            } else {
                _ = try decoder.send(nil, token)
            }
        }
    }

    private func convert(_ decoded: UnsafeMutablePointer<AVFrame>) throws {
        let f = decoded.pointee
        guard f.nb_samples > 0, f.sample_rate > 0 else { return }
        let shape = (rate: f.sample_rate, format: f.format, channels: f.ch_layout.nb_channels)
        if let known = inputShape, known != shape {
            try flushResampler()
            swr_free(&resampler)
        }
        inputShape = shape
        if resampler == nil {
            var outLayout = AVChannelLayout()
            av_channel_layout_default(&outLayout, channels)
            defer { av_channel_layout_uninit(&outLayout) }
            var inLayout = f.ch_layout
            let scaled = (Double(f.sample_rate) * speed).rounded()
            guard scaled >= 1, scaled <= Double(Int32.max) else {
                throw MediaEngineError(.invalidArgument, source: packets.name, operation: "resample the audio",
                                       reason: "a speed of \(speed) at \(f.sample_rate) Hz is out of range")
            }
            let inRate = Int64(scaled)
            let rc = swr_alloc_set_opts2(&resampler, &outLayout, AV_SAMPLE_FMT_FLT, outputRate, &inLayout,
                                         AVSampleFormat(rawValue: f.format), Int32(inRate), 0, nil)
            guard rc >= 0, let swr = resampler else { throw unmixable(f, rc < 0 ? rc : avocet_averror_enomem()) }
            let initialized = swr_init(swr)
            guard initialized >= 0 else { throw unmixable(f, initialized) }
        }
        let position = itemFrame(of: f)
        if needsStartTime, position == nil, heldRate ?? f.sample_rate == f.sample_rate,
           heldInput.addingSaturating(Int64(f.nb_samples)) <= 2 * Int64(f.sample_rate) {
            // No time yet: held (two seconds at most) until a frame with one says where they lie.
            held.append(contentsOf: try resample(f))
            (heldInput, heldRate) = (heldInput + Int64(f.nb_samples), f.sample_rate)
            return
        }
        if needsStartTime {
            // The held frames end where this one starts.
            let first = position.map { p in heldRate.map { p.subtractingSaturating(av_rescale(heldInput, Int64(outputRate), Int64($0))) } ?? p }
            placeStart(first)
            if let first { anchor = (first, heldRate ?? f.sample_rate, heldInput) }
            try releaseHeld()
        } else if let position, let anchor, anchor.rate == f.sample_rate {
            let expected = anchor.frame.addingSaturating(av_rescale(anchor.samples, Int64(outputRate), Int64(anchor.rate)))
            let drift = position.subtractingSaturating(expected)
            if drift.magnitude > driftTolerance {
                realign(by: drift)
                self.anchor = nil
            }
        }
        if anchor == nil || anchor?.rate != f.sample_rate {
            // From the frame's own time, or (none, or a new rate) where the samples so far end.
            let expected = anchor.map { $0.frame.addingSaturating(av_rescale($0.samples, Int64(outputRate), Int64($0.rate))) }
            if let start = position ?? expected { anchor = (start, f.sample_rate, 0) }
        }
        anchor?.samples += Int64(f.nb_samples)
        take(try resample(f))
    }

    /// Where the first decoded frame lies (item time, output frames; nil: unknown, taken as the start):
    /// sets `firstFrame`, and the frames to drop before the start or the silence up to it.
    private func placeStart(_ first: Int64?) {
        needsStartTime = false
        firstFrame = startFrame
        guard let first else { return }
        // Output frames between the start and the first decoded one (negative: before the start).
        let gap = first.subtractingSaturating(startFrame)
        let early = speed == 1 ? Double(-gap) : Double(-gap) / speed
        if early > 0 {
            skip = Int(min(early.rounded(), Double(Int32.max)))
        } else if early < -0.5 {
            let missing = Int(min(-early.rounded(), Double(Int32.max)))
            if fillsGap {
                // The audio starts after the time asked: silence until it does, so it stays in step.
                pending.append(contentsOf: repeatElement(Float(0), count: missing * Int(channels)))
            } else {
                firstFrame = startFrame.addingSaturating(Int64(missing))
            }
        }
    }

    /// Hands on the samples held for want of a time, once their place is known.
    private func releaseHeld() throws {
        let samples = held
        (held, heldInput, heldRate) = ([], 0, nil)
        take(samples[...])
    }

    /// `f` converted to the output's rate, channels and samples.
    private func resample(_ f: AVFrame) throws -> ArraySlice<Float> {
        let capacity = Int(swr_get_out_samples(resampler, f.nb_samples))
        guard capacity > 0 else { return [] }
        growScratch(to: capacity)
        let swr = resampler
        let made: Int32 = scratch.withUnsafeMutableBytes { raw in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard let planes = f.extended_data else { return avocet_averror_invaliddata() }
            let input = UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            return swr_convert(swr, &out, Int32(capacity), input, f.nb_samples)
        }
        try FFmpeg.check(made, "resample the audio", source: packets.name)
        return scratch.prefix(Int(made) * Int(channels))
    }

    /// Makes `scratch` hold at least `frames` frames.
    private func growScratch(to frames: Int) {
        let count = frames * Int(channels)
        if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
    }

    /// A decoded frame's item time in frames of the output rate; nil when it has none.
    private func itemFrame(of f: AVFrame) -> Int64? {
        let tb = packets.timeBase
        let pts = f.best_effort_timestamp != avocet_nopts_value() ? f.best_effort_timestamp : f.pts
        guard pts != avocet_nopts_value(), tb.den > 0 else { return nil }
        return av_rescale_q(pts.subtractingSaturating(packets.origin(in: tb)), tb, AVRational(num: 1, den: outputRate))
    }

    /// How far a frame's time may stray from where the samples before it end before the stream counts
    /// as broken there (output frames): 20 ms, or two ticks of a coarse time base (Matroska's
    /// millisecond times are rounded; AVI's may count whole packets).
    private var driftTolerance: UInt64 {
        let tb = packets.timeBase
        let ticks = tb.den > 0 ? av_rescale_q_rnd(2, tb, AVRational(num: 1, den: outputRate), AV_ROUND_UP) : 0
        return UInt64(max(Int64(outputRate / 50), ticks))
    }

    /// Puts the sound back in step with its times where the stream breaks (a fragmented MP4 whose
    /// first packet stands apart from the rest, a recording with a dropout): `drift` output frames of
    /// silence for a gap (fewer while frames before the start are still being dropped), or the
    /// overlap dropped.
    private func realign(by drift: Int64) {
        let frames = speed == 1 ? drift : Int64(saturating: (Double(drift) / speed).rounded())
        if frames > 0 {
            let absorbed = min(Int64(skip), frames)
            skip -= Int(absorbed)
            let silence = Int(min(frames - absorbed, Int64(Int32.max)))
            pending.append(contentsOf: repeatElement(Float(0), count: silence * Int(channels)))
        } else {
            skip = Int(min(Int64(skip).addingSaturating(-frames), Int64(Int32.max)))
        }
    }

    /// Keeps `samples`, less the frames still to skip.
    private func take(_ samples: ArraySlice<Float>) {
        var samples = samples
        if skip > 0 {
            let dropped = min(skip, samples.count / Int(channels))
            skip -= dropped
            samples = samples.dropFirst(dropped * Int(channels))
        }
        pending.append(contentsOf: samples)
    }

    /// Takes the samples the resampler still holds (its filter's delay) into `pending`.
    private func flushResampler() throws {
        guard let swr = resampler else { return }
        let capacity = Int(swr_get_out_samples(swr, 0))
        guard capacity > 0 else { return }
        growScratch(to: capacity)
        let made: Int32 = scratch.withUnsafeMutableBytes { raw in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return swr_convert(swr, &out, Int32(capacity), nil, 0)
        }
        try FFmpeg.check(made, "resample the audio", source: packets.name)
        take(scratch.prefix(Int(made) * Int(channels)))
    }
}
