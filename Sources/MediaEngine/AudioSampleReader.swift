internal import CFFmpeg
import Foundation

/// Decodes one audio stream into interleaved 32-bit float samples at a chosen rate and channel count
/// (libswresample), from any time on, optionally played faster or slower (the pitch follows, as
/// varispeed). Owns its own container, decoder and resampler. Blocking: call on an engine thread, one
/// caller at a time.
package final class AudioSampleReader {
    private let packets: PacketReader
    private let decoder: StreamDecoder
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
    /// Samples converted but not yet read.
    private var pending: [Float] = []
    /// The input shape the resampler was set up for (rate, sample format, channels): a stream that
    /// changes it mid-way (5.1 to stereo at a broadcast's ad break) gets a new resampler.
    private var inputShape: (rate: Int32, format: Int32, channels: Int32)?

    package init(source: any ByteSource, options: DemuxerOptions, streamIndex: Int, outputRate: Int32, channels: Int32,
         cancellation: CancellationToken) throws {
        packets = try PacketReader(source: source, options: options, streamIndex: streamIndex, cancellation: cancellation)
        guard packets.stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO else {
            throw MediaEngineError(.failed, source: source.name, operation: "open the audio stream",
                                   reason: "the file changed after its header was read: stream \(streamIndex) is not audio")
        }
        decoder = try StreamDecoder(stream: packets.stream, source: source.name)
        guard let p = av_packet_alloc(), let f = av_frame_alloc() else {
            throw MediaEngineError(.outOfMemory, source: source.name, operation: "open the audio stream", reason: "out of memory")
        }
        (packet, frame) = (p, f)
        self.outputRate = outputRate
        self.channels = channels
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
        // An HLS stream's timestamps count from its start time; the item's from zero.
        try packets.seek(atOrBefore: max(0, ticks).addingSaturating(packets.origin(in: tb)), token)
        decoder.flush()
        swr_free(&resampler)
        pending = []
        inputShape = nil
        startFrame = Self.rescale(time, to: AVRational(num: 1, den: outputRate))
        (self.speed, self.fillsGap, needsStartTime, ended, skip, firstFrame) = (speed > 0 && speed.isFinite ? speed : 1, fillsGap, true, false, 0, nil)
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
        let wanted = count * Int(channels)
        while pending.count < wanted && !ended {
            try FFmpegLog.capturing { try decodeMore(token) }
        }
        let taken = Array(pending.prefix(wanted))
        pending.removeFirst(taken.count)
        return taken
    }

    private func decodeMore(_ token: CancellationToken) throws {
        switch decoder.receive(into: frame) {
        case .frame:
            try convert(frame)
            av_frame_unref(frame)
        case .damaged:
            break
        case .end:
            try flushResampler()
            ended = true
        case .needsInput:
            if try packets.next(packet, token) {
                _ = try decoder.send(packet)
            } else {
                _ = try decoder.send(nil)
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
            guard rc >= 0, let swr = resampler else { throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the resampler", source: packets.name) }
            try FFmpeg.check(swr_init(swr), "set up the resampler", source: packets.name)
        }
        if needsStartTime {
            needsStartTime = false
            let tb = packets.timeBase
            let pts = f.best_effort_timestamp != avocet_nopts_value() ? f.best_effort_timestamp : f.pts
            firstFrame = startFrame
            if pts != avocet_nopts_value(), tb.den > 0 {
                let first = av_rescale_q(pts.subtractingSaturating(packets.origin(in: tb)), tb, AVRational(num: 1, den: outputRate))
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
        }
        let capacity = Int(swr_get_out_samples(resampler, f.nb_samples))
        guard capacity > 0 else { return }
        var output = [Float](repeating: 0, count: capacity * Int(channels))
        let made: Int32 = output.withUnsafeMutableBytes { raw in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard let planes = f.extended_data else { return avocet_averror_invaliddata() }
            let input = UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            return swr_convert(resampler, &out, Int32(capacity), input, f.nb_samples)
        }
        try take(output, made: made)
    }

    /// Keeps the first `made` frames of `output`, less those still to skip.
    private func take(_ output: [Float], made: Int32) throws {
        try FFmpeg.check(made, "resample the audio", source: packets.name)
        var samples = output.prefix(Int(made) * Int(channels))
        if skip > 0 {
            let dropped = min(skip, Int(made))
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
        var output = [Float](repeating: 0, count: capacity * Int(channels))
        let made: Int32 = output.withUnsafeMutableBytes { raw in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return swr_convert(swr, &out, Int32(capacity), nil, 0)
        }
        try take(output, made: made)
    }
}
