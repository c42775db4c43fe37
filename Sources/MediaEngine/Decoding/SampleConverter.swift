internal import CFFmpeg
import Foundation

/// Converts linear PCM from one shape to another in one libswresample pass: any sample type
/// (unsigned and signed 8-bit, 16, 24 and 32-bit integers, 32 and 64-bit floats), either byte order,
/// interleaved or one buffer a channel, any channel count up to 64 with a mixing matrix or FFmpeg's
/// standard mix between layouts, and any sample rate (libswresample's polyphase filter, kept across
/// calls so a stream converted in pieces gives the same samples as converted at once).
///
/// The sample types libswresample lacks (signed 8-bit, 24-bit, big-endian) are repacked into its own
/// on the way in and out, in scratch memory kept from call to call; the others go straight from the
/// caller's memory to the caller's memory. Input the output has no room for stays inside the
/// converter and comes out on the next call (``convertBuffered(to:capacity:)`` takes it without new
/// input); ``flush(to:capacity:)`` ends the stream, giving the filter's delay.
///
/// CPU work on the calling thread, no waits; one caller at a time. Owns its `SwrContext` and scratch
/// memory, freed in `deinit`.
package final class SampleConverter {
    /// A sample's type, as Core Audio's linear PCM describes it.
    package enum SampleType: Sendable, Equatable {
        /// Unsigned 8-bit (silence is 128), signed 8-bit, signed 16, 24 (three bytes) and 32-bit
        /// integers, 32 and 64-bit floats.
        case unsigned8, signed8, int16, int24, int32, float32, float64

        /// Bytes a sample takes.
        package var bytes: Int {
            switch self {
            case .unsigned8, .signed8: return 1
            case .int16: return 2
            case .int24: return 3
            case .int32, .float32: return 4
            case .float64: return 8
            }
        }
    }

    /// The shape of linear PCM in memory.
    package struct Shape: Sendable, Equatable {
        /// The type of each sample.
        package var sample: SampleType
        /// Big-endian samples (meaningless for 8-bit ones).
        package var isBigEndian: Bool
        /// One buffer for all channels (frames one after the other), else one buffer a channel.
        package var isInterleaved: Bool
        /// Frames a second.
        package var rate: Int
        /// Channels a frame.
        package var channels: Int
        /// Each channel's speaker as a bit index of FFmpeg's (and WAVE's, and Core Audio's bitmap)
        /// channel mask: 0 front left, 1 front right, 2 front centre, 3 LFE, 4 back (surround) left,
        /// 5 back right, 6 front left of centre, 7 front right of centre, 8 back centre, 9 side left,
        /// 10 side right, 11 top centre, ...; nil when unknown (FFmpeg's default layout for the
        /// channel count is taken, as `ffmpeg -ac` does).
        package var speakers: [Int]?

        /// A shape of the fields' values (checked by ``SampleConverter/supports(_:)``, not here).
        package init(sample: SampleType, isBigEndian: Bool = false, isInterleaved: Bool, rate: Int, channels: Int, speakers: [Int]? = nil) {
            self.sample = sample
            self.isBigEndian = isBigEndian
            self.isInterleaved = isInterleaved
            self.rate = rate
            self.channels = channels
            self.speakers = speakers
        }

        /// Buffers the audio takes: 1 interleaved, one a channel otherwise.
        package var planes: Int { isInterleaved ? 1 : channels }
        /// Bytes one frame takes in each buffer.
        package var bytesPerPlaneFrame: Int { sample.bytes * (isInterleaved ? channels : 1) }
    }

    /// How output channels are made from input channels.
    package enum Mixing: Sendable, Equatable {
        /// `outputChannels` rows of `inputChannels` weights: output channel o is the sum of input
        /// channel i times `matrix[o * inputChannels + i]`.
        case matrix([Double])
        /// FFmpeg's standard mix between the two shapes' layouts (`ffmpeg -ac`'s): a centre at -3 dB
        /// into both sides, surrounds at -3 dB into their side, the LFE left out; stereo to mono is
        /// (L + R) × 0.707. Normalised so no sum can clip when the output or the internal format is
        /// an integer type, as libswresample does.
        case standard
    }

    /// The resampling filter. Nil fields keep libswresample's defaults (those of `ffmpeg -ar` and
    /// `aresample`: 32 taps a phase, 2^10 phases, cutoff 0.97 of the lower Nyquist frequency).
    package struct Resampling: Sendable, Equatable {
        /// Taps a phase of the polyphase filter (libswresample's `filter_size`).
        package var filterSize: Int?
        /// 2 to this power is the most phases (libswresample's `phase_shift`).
        package var phaseShift: Int?
        /// The passband's edge as a fraction of the lower rate's Nyquist frequency (`cutoff`).
        package var cutoff: Double?

        /// A filter of these values; nil fields keep libswresample's.
        package init(filterSize: Int? = nil, phaseShift: Int? = nil, cutoff: Double? = nil) {
            self.filterSize = filterSize
            self.phaseShift = phaseShift
            self.cutoff = cutoff
        }

        /// libswresample's defaults.
        package static let standard = Resampling()
    }

    /// A repacking step between the caller's sample type and libswresample's.
    private enum Repack { case flipSign8, swap16, int24Little, int24Big, swap32, swap64 }

    /// The shape of the samples taken.
    package let input: Shape
    /// The shape of the samples made.
    package let output: Shape
    private let mixing: Mixing
    private let resampling: Resampling
    private let dither: Bool
    private var context: OpaquePointer?
    private let inputRepack: Repack?
    private let outputRepack: Repack?
    /// libswresample's sample formats on each side (after / before the repacking).
    private let inputFormat: AVSampleFormat
    private let outputFormat: AVSampleFormat
    /// The plane pointers handed to swr_convert, one a channel at most (libswresample's limit is 64).
    private let inPointers: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    private let outPointers: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    /// Repacked samples, kept and grown from call to call.
    private var inScratch = Scratch()
    private var outScratch = Scratch()
    /// Output frames still to be dropped from the start of the stream (priming).
    private var framesToDrop = 0
    private var flushed = false

    /// The most channels a side may have (libswresample's `SWR_CH_MAX`).
    package static let maximumChannels = 64

    /// Whether `shape` is one this converter handles: a rate of 1 Hz to 2^31, 1 to 64 channels, and a
    /// speaker list (when given) of one speaker a channel.
    package static func supports(_ shape: Shape) -> Bool {
        guard shape.rate >= 1, shape.rate <= Int(Int32.max), shape.channels >= 1, shape.channels <= maximumChannels else { return false }
        if let speakers = shape.speakers { return speakers.count == shape.channels }
        return true
    }

    /// A converter from `input` to `output`. Setting up a resampler computes its filter bank (tens
    /// of microseconds to a millisecond); on the calling thread.
    ///
    /// - Parameters:
    ///   - input: The shape of the samples given.
    ///   - output: The shape of the samples made.
    ///   - mixing: How output channels are made; a matrix of the wrong size throws.
    ///   - resampling: The filter, where the rates differ.
    ///   - dither: Triangular dither where the output has fewer bits than libswresample's internal
    ///     format (float to 16-bit, 32-bit to 16-bit, ...).
    /// - Throws: `.invalidArgument` for shapes out of range; `.unsupported` when libswresample
    ///   refuses the conversion.
    package init(from input: Shape, to output: Shape, mixing: Mixing, resampling: Resampling = .standard, dither: Bool = false) throws {
        guard Self.supports(input), Self.supports(output) else {
            throw MediaEngineError(.invalidArgument, source: "audio converter", operation: "set up the sample converter",
                                   reason: "\(input.channels) channels at \(input.rate) Hz to \(output.channels) at \(output.rate) Hz is out of range")
        }
        if case .matrix(let weights) = mixing, weights.count != input.channels * output.channels || weights.contains(where: { !$0.isFinite }) {
            throw MediaEngineError(.invalidArgument, source: "audio converter", operation: "set up the sample converter",
                                   reason: "the mixing matrix needs \(output.channels) × \(input.channels) finite weights")
        }
        self.input = input
        self.output = output
        self.mixing = mixing
        self.resampling = resampling
        self.dither = dither
        (inputFormat, inputRepack) = Self.native(input)
        (outputFormat, outputRepack) = Self.native(output)
        inPointers = .allocate(capacity: Self.maximumChannels)
        inPointers.initialize(repeating: nil, count: Self.maximumChannels)
        outPointers = .allocate(capacity: Self.maximumChannels)
        outPointers.initialize(repeating: nil, count: Self.maximumChannels)
        try open()
    }

    deinit {
        swr_free(&context)
        inPointers.deallocate()
        outPointers.deallocate()
        inScratch.free()
        outScratch.free()
    }

    /// Whether the rates differ (the filter then delays and buffers).
    package var resamples: Bool { input.rate != output.rate }

    /// Half the resampling filter's length in input frames: the frames of look-ahead (and of history)
    /// each output sample needs. 0 without resampling. Computed as libswresample sizes its filter
    /// (`filter_size` divided by the cutoff's fraction of the input rate, for downsampling).
    package var filterHalfLength: Int { Self.filterHalfLength(inputRate: input.rate, outputRate: output.rate, resampling: resampling) }

    /// ``filterHalfLength`` of a converter between the rates with the filter `resampling`.
    package static func filterHalfLength(inputRate: Int, outputRate: Int, resampling: Resampling) -> Int {
        guard inputRate != outputRate, inputRate > 0, outputRate > 0 else { return 0 }
        let size = Double(resampling.filterSize ?? 32)
        let cutoff = resampling.cutoff ?? 0.97
        let factor = min(Double(outputRate) * cutoff / Double(inputRate), 1)
        let length = min(max((size / max(factor, 1e-9)).rounded(.up), 1), 1e6)
        return Int(length) / 2
    }

    /// Input frames held inside (buffered for want of output room, or the filter's look-ahead), in
    /// input frames. Cheap; on the calling thread.
    package var bufferedInputFrames: Int {
        guard let context else { return 0 }
        return Int(clamping: max(0, swr_get_delay(context, Int64(input.rate))))
    }

    /// An upper bound of the output frames the next call can make from `frames` more input frames.
    package func outputBound(forInput frames: Int) -> Int {
        guard let context else { return 0 }
        return max(0, Int(swr_get_out_samples(context, Int32(clamping: frames))))
    }

    /// Drops the first `frames` output frames the stream makes from now on (leading frames fed
    /// only to prime the filter).
    package func dropLeadingOutput(_ frames: Int) {
        framesToDrop = max(0, frames)
    }

    /// Starts a new stream: the filter's history, buffered input and frames to drop are forgotten.
    package func reset() throws {
        swr_free(&context)
        framesToDrop = 0
        flushed = false
        try open()
    }

    /// Converts `frames` frames whose buffers `planes` points to (``Shape/planes`` of them) into the
    /// output buffers `output` points to (room for `capacity` frames each), with what was held first.
    /// Input beyond the room is kept for the next call.
    ///
    /// CPU work on the calling thread (libswresample's converters and filter); no allocation unless
    /// the sample types need repacking into scratch memory that must grow.
    ///
    /// - Returns: The frames written at the start of each output buffer.
    package func convert(from planes: UnsafePointer<UnsafeRawPointer?>, frames: Int, to output: UnsafePointer<UnsafeMutableRawPointer?>,
                         capacity: Int) throws -> Int {
        guard frames > 0 else { return try convertBuffered(to: output, capacity: capacity) }
        guard frames <= Int(Int32.max) / max(1, input.channels) else {
            throw MediaEngineError(.invalidArgument, source: "audio converter", operation: "convert audio", reason: "\(frames) frames at once is too many")
        }
        if let inputRepack {
            let bytes = frames * input.sample.bytes * (input.isInterleaved ? input.channels : 1)
            let native = Self.nativeBytes(inputFormat)
            let planeBytes = frames * native * (input.isInterleaved ? input.channels : 1)
            let base = try inScratch.reserve(planes: input.planes, bytesPerPlane: planeBytes)
            for p in 0..<input.planes {
                guard let from = planes[p] else { throw missingBuffer() }
                let to = base + p * inScratch.planeStride
                Self.repackIn(inputRepack, from: from, to: to, samples: bytes / input.sample.bytes)
                inPointers[p] = UnsafePointer(to.assumingMemoryBound(to: UInt8.self))
            }
        } else {
            for p in 0..<input.planes {
                guard let from = planes[p] else { throw missingBuffer() }
                inPointers[p] = from.assumingMemoryBound(to: UInt8.self)
            }
        }
        return try run(inputFrames: frames, end: false, output: output, capacity: capacity)
    }

    /// Converts what is held inside (no new input) into `output`, up to `capacity` frames. CPU work
    /// on the calling thread.
    package func convertBuffered(to output: UnsafePointer<UnsafeMutableRawPointer?>, capacity: Int) throws -> Int {
        try run(inputFrames: 0, end: false, output: output, capacity: capacity)
    }

    /// Ends the stream: gives what is held, the resampling filter's delay included (the input's end
    /// is taken as libswresample takes it), up to `capacity` frames a call; 0 once nothing is left.
    package func flush(to output: UnsafePointer<UnsafeMutableRawPointer?>, capacity: Int) throws -> Int {
        try run(inputFrames: 0, end: true, output: output, capacity: capacity)
    }

    // MARK: - Decoded frames

    /// Converts every sample of the decoded frame `frame` (whose shape must be `input`'s, as
    /// ``shape(of:)`` gives it) into `output`; what does not fit is kept.
    func convert(frame: UnsafePointer<AVFrame>, to output: UnsafePointer<UnsafeMutableRawPointer?>, capacity: Int) throws -> Int {
        let f = frame.pointee
        guard f.nb_samples > 0, let data = f.extended_data else { return try convertBuffered(to: output, capacity: capacity) }
        for p in 0..<input.planes { inPointers[p] = UnsafePointer(data[p]) }
        return try run(inputFrames: Int(f.nb_samples), end: false, output: output, capacity: capacity)
    }

    /// The shape of a decoded frame's samples; nil for sample formats Core Audio has no name for
    /// (64-bit integers) or more channels than libswresample takes.
    static func shape(of frame: UnsafePointer<AVFrame>) -> Shape? {
        let f = frame.pointee
        let format = AVSampleFormat(rawValue: f.format)
        let sample: SampleType
        switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_U8: sample = .unsigned8
        case AV_SAMPLE_FMT_S16: sample = .int16
        case AV_SAMPLE_FMT_S32: sample = .int32
        case AV_SAMPLE_FMT_FLT: sample = .float32
        case AV_SAMPLE_FMT_DBL: sample = .float64
        default: return nil
        }
        let channels = Int(f.ch_layout.nb_channels)
        guard channels >= 1, channels <= maximumChannels, f.sample_rate > 0 else { return nil }
        var speakers: [Int]?
        if f.ch_layout.order == AV_CHANNEL_ORDER_NATIVE {
            let mask = f.ch_layout.u.mask
            var bits: [Int] = []
            for bit in 0..<64 where mask & (1 << UInt64(bit)) != 0 { bits.append(bit) }
            speakers = bits.count == channels ? bits : nil
        }
        return Shape(sample: sample, isInterleaved: av_sample_fmt_is_planar(format) == 0, rate: Int(f.sample_rate), channels: channels,
                     speakers: speakers)
    }

    // MARK: - Inside

    private func missingBuffer() -> MediaEngineError {
        MediaEngineError(.invalidArgument, source: "audio converter", operation: "convert audio", reason: "a buffer of the audio has no memory")
    }

    /// One swr_convert call (input already in `inPointers` when `inputFrames` > 0), with the output
    /// repacked and the frames still to drop taken off the front.
    private func run(inputFrames: Int, end: Bool, output: UnsafePointer<UnsafeMutableRawPointer?>, capacity: Int) throws -> Int {
        guard let context else { return 0 }
        guard capacity > 0 || inputFrames > 0 else { return 0 }
        let room = Int32(clamping: max(0, capacity))
        if let outputRepack {
            let planeBytes = Int(room) * Self.nativeBytes(outputFormat) * (self.output.isInterleaved ? self.output.channels : 1)
            let base = try outScratch.reserve(planes: self.output.planes, bytesPerPlane: planeBytes)
            for p in 0..<self.output.planes { outPointers[p] = (base + p * outScratch.planeStride).assumingMemoryBound(to: UInt8.self) }
            var made = try call(context, room: room, inputFrames: inputFrames, end: end)
            // Frames all dropped at the end of the stream are not its end: take more.
            while end, made > 0, made <= framesToDrop {
                framesToDrop -= made
                made = try call(context, room: room, inputFrames: 0, end: true)
            }
            let samples = made * (self.output.isInterleaved ? self.output.channels : 1)
            for p in 0..<self.output.planes {
                guard let to = output[p] else { throw missingBuffer() }
                Self.repackOut(outputRepack, from: base + p * outScratch.planeStride, to: to, samples: samples)
            }
            return dropLeading(made, output)
        }
        for p in 0..<self.output.planes {
            guard let to = output[p] else { throw missingBuffer() }
            outPointers[p] = to.assumingMemoryBound(to: UInt8.self)
        }
        var made = try call(context, room: room, inputFrames: inputFrames, end: end)
        while end, made > 0, made <= framesToDrop {
            framesToDrop -= made
            made = try call(context, room: room, inputFrames: 0, end: true)
        }
        return dropLeading(made, output)
    }

    private func call(_ context: OpaquePointer, room: Int32, inputFrames: Int, end: Bool) throws -> Int {
        let made: Int32
        if end {
            flushed = true
            made = swr_convert(context, outPointers, room, nil, 0)
        } else {
            guard !flushed || inputFrames == 0 else {
                throw MediaEngineError(.invalidArgument, source: "audio converter", operation: "convert audio",
                                       reason: "input after the end of the stream (reset the converter first)")
            }
            // A non-nil input with no frames: what is held, without ending the stream.
            made = swr_convert(context, outPointers, room, inPointers, Int32(inputFrames))
        }
        try FFmpeg.check(made, "convert audio", source: "audio converter")
        return Int(made)
    }

    /// Takes the frames still to drop off the front of the `made` frames written to `output`.
    private func dropLeading(_ made: Int, _ output: UnsafePointer<UnsafeMutableRawPointer?>) -> Int {
        guard framesToDrop > 0, made > 0 else { return made }
        let dropped = min(framesToDrop, made)
        framesToDrop -= dropped
        let frameBytes = self.output.bytesPerPlaneFrame
        for p in 0..<self.output.planes {
            guard let base = output[p] else { continue }
            memmove(base, base + dropped * frameBytes, (made - dropped) * frameBytes)
        }
        return made - dropped
    }

    private func open() throws {
        var inLayout = AVChannelLayout()
        var outLayout = AVChannelLayout()
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        let inOrder = Self.layout(input, into: &inLayout)
        let outOrder = Self.layout(output, into: &outLayout)
        var weights: [Double]?
        switch mixing {
        case .matrix(let m):
            // The identity between equal layouts needs no rematrixing (a plain copy is faster).
            let identity = input.channels == output.channels
                && (0..<output.channels).allSatisfy { o in (0..<input.channels).allSatisfy { i in m[o * input.channels + i] == (o == i ? 1 : 0) } }
            if !identity { weights = m }
        case .standard:
            if inOrder != nil || outOrder != nil {
                weights = try standardMatrix(&inLayout, inOrder, &outLayout, outOrder)
            }
        }
        let rc = swr_alloc_set_opts2(&context, &outLayout, sampleFormat(outputFormat, planar: !output.isInterleaved), Int32(output.rate),
                                     &inLayout, sampleFormat(inputFormat, planar: !input.isInterleaved), Int32(input.rate), 0, nil)
        guard rc >= 0, let swr = context else {
            throw FFmpeg.error(rc < 0 ? rc : avocet_averror_enomem(), "set up the sample converter", source: "audio converter")
        }
        let operation = "set up the sample converter"
        if var weights {
            try FFmpeg.check(swr_set_matrix(swr, &weights, Int32(input.channels)), operation, source: "audio converter")
        }
        if dither {
            try FFmpeg.check(av_opt_set_int(UnsafeMutableRawPointer(swr), "dither_method", Int64(SWR_DITHER_TRIANGULAR.rawValue), 0),
                             operation, source: "audio converter")
        }
        if resamples {
            if let size = resampling.filterSize {
                try FFmpeg.check(av_opt_set_int(UnsafeMutableRawPointer(swr), "filter_size", Int64(size), 0), operation, source: "audio converter")
            }
            if let shift = resampling.phaseShift {
                try FFmpeg.check(av_opt_set_int(UnsafeMutableRawPointer(swr), "phase_shift", Int64(shift), 0), operation, source: "audio converter")
            }
            if let cutoff = resampling.cutoff {
                try FFmpeg.check(av_opt_set_double(UnsafeMutableRawPointer(swr), "cutoff", cutoff, 0), operation, source: "audio converter")
            }
        }
        try FFmpegLog.capturing {
            let initialized = swr_init(swr)
            if initialized < 0 {
                let words = FFmpegLog.lastError.map { "\($0) (\(FFmpeg.describe(initialized)))" } ?? FFmpeg.describe(initialized)
                throw MediaEngineError(.unsupported, source: "audio converter", operation: operation, reason: words, ffmpegCode: initialized)
            }
        }
    }

    /// The planar or packed form of `format`.
    private func sampleFormat(_ format: AVSampleFormat, planar: Bool) -> AVSampleFormat {
        planar ? av_get_planar_sample_fmt(format) : av_get_packed_sample_fmt(format)
    }

    /// Fills `layout` for `shape`: its speakers in FFmpeg's native order when they are known, else
    /// FFmpeg's default layout for the count. Returns, for speakers in another order than FFmpeg's,
    /// each channel's index in the native layout.
    private static func layout(_ shape: Shape, into layout: inout AVChannelLayout) -> [Int]? {
        if let speakers = shape.speakers, Set(speakers).count == speakers.count, speakers.allSatisfy({ (0..<64).contains($0) }) {
            let mask = speakers.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
            if av_channel_layout_from_mask(&layout, mask) >= 0 {
                let sorted = speakers.sorted()
                return sorted == speakers ? nil : speakers.map { s in sorted.firstIndex(of: s) ?? 0 }
            }
        }
        av_channel_layout_default(&layout, Int32(shape.channels))
        return nil
    }

    /// FFmpeg's standard mix between two native layouts, reordered for channels in other orders.
    private func standardMatrix(_ inLayout: inout AVChannelLayout, _ inOrder: [Int]?, _ outLayout: inout AVChannelLayout,
                                _ outOrder: [Int]?) throws -> [Double] {
        let ins = input.channels, outs = output.channels
        var native = [Double](repeating: 0, count: ins * outs)
        let integer = av_get_packed_sample_fmt(outputFormat).rawValue < AV_SAMPLE_FMT_FLT.rawValue
            || (av_get_bytes_per_sample(inputFormat) <= 2 && av_get_bytes_per_sample(outputFormat) <= 2)
        let rc = swr_build_matrix2(&inLayout, &outLayout, 0.7071067811865476, 0.7071067811865476, 0, integer ? 1 : Double(Int32.max), 1,
                                   &native, ins, AV_MATRIX_ENCODING_NONE, nil)
        try FFmpeg.check(rc, "build the mixing matrix", source: "audio converter")
        var result = [Double](repeating: 0, count: ins * outs)
        for o in 0..<outs {
            for i in 0..<ins {
                result[o * ins + i] = native[(outOrder?[o] ?? o) * ins + (inOrder?[i] ?? i)]
            }
        }
        return result
    }

    /// libswresample's (packed) sample format for `shape`'s samples, and the repacking they need.
    private static func native(_ shape: Shape) -> (AVSampleFormat, Repack?) {
        // Swapped where the samples' byte order is not the machine's.
        let big = shape.sample.bytes > 1 && shape.isBigEndian != (Int(bigEndian: 1) == 1)
        switch shape.sample {
        case .unsigned8: return (AV_SAMPLE_FMT_U8, nil)
        case .signed8: return (AV_SAMPLE_FMT_U8, .flipSign8)
        case .int16: return (AV_SAMPLE_FMT_S16, big ? .swap16 : nil)
        case .int24: return (AV_SAMPLE_FMT_S32, shape.isBigEndian ? .int24Big : .int24Little)
        case .int32: return (AV_SAMPLE_FMT_S32, big ? .swap32 : nil)
        case .float32: return (AV_SAMPLE_FMT_FLT, big ? .swap32 : nil)
        case .float64: return (AV_SAMPLE_FMT_DBL, big ? .swap64 : nil)
        }
    }

    private static func nativeBytes(_ format: AVSampleFormat) -> Int { Int(av_get_bytes_per_sample(format)) }

    /// The caller's samples into libswresample's type.
    private static func repackIn(_ repack: Repack, from: UnsafeRawPointer, to: UnsafeMutableRawPointer, samples: Int) {
        switch repack {
        case .flipSign8:
            let s = from.assumingMemoryBound(to: UInt8.self), d = to.assumingMemoryBound(to: UInt8.self)
            for i in 0..<samples { d[i] = s[i] ^ 0x80 }
        case .swap16:
            let d = to.assumingMemoryBound(to: UInt16.self)
            for i in 0..<samples { d[i] = from.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self).byteSwapped }
        case .swap32:
            let d = to.assumingMemoryBound(to: UInt32.self)
            for i in 0..<samples { d[i] = from.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self).byteSwapped }
        case .swap64:
            let d = to.assumingMemoryBound(to: UInt64.self)
            for i in 0..<samples { d[i] = from.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self).byteSwapped }
        case .int24Little, .int24Big:
            let s = from.assumingMemoryBound(to: UInt8.self), d = to.assumingMemoryBound(to: UInt32.self)
            let little = repack == .int24Little
            for i in 0..<samples {
                let b0 = UInt32(s[3 * i]), b1 = UInt32(s[3 * i + 1]), b2 = UInt32(s[3 * i + 2])
                d[i] = little ? (b0 << 8 | b1 << 16 | b2 << 24) : (b2 << 8 | b1 << 16 | b0 << 24)
            }
        }
    }

    /// libswresample's samples into the caller's type (24-bit rounded to nearest).
    private static func repackOut(_ repack: Repack, from: UnsafeRawPointer, to: UnsafeMutableRawPointer, samples: Int) {
        switch repack {
        case .flipSign8:
            let s = from.assumingMemoryBound(to: UInt8.self), d = to.assumingMemoryBound(to: UInt8.self)
            for i in 0..<samples { d[i] = s[i] ^ 0x80 }
        case .swap16:
            let s = from.assumingMemoryBound(to: UInt16.self)
            for i in 0..<samples { to.storeBytes(of: s[i].byteSwapped, toByteOffset: i * 2, as: UInt16.self) }
        case .swap32:
            let s = from.assumingMemoryBound(to: UInt32.self)
            for i in 0..<samples { to.storeBytes(of: s[i].byteSwapped, toByteOffset: i * 4, as: UInt32.self) }
        case .swap64:
            let s = from.assumingMemoryBound(to: UInt64.self)
            for i in 0..<samples { to.storeBytes(of: s[i].byteSwapped, toByteOffset: i * 8, as: UInt64.self) }
        case .int24Little, .int24Big:
            let s = from.assumingMemoryBound(to: Int32.self), d = to.assumingMemoryBound(to: UInt8.self)
            let little = repack == .int24Little
            for i in 0..<samples {
                let value = UInt32(bitPattern: Int32(min(Int64(8_388_607), (Int64(s[i]) + 128) >> 8)))
                let (b0, b1, b2) = (UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16))
                d[3 * i] = little ? b0 : b2
                d[3 * i + 1] = b1
                d[3 * i + 2] = little ? b2 : b0
            }
        }
    }
}

/// Memory for repacked samples: planes of equal size, 64-byte aligned, grown (never shrunk) as
/// calls need.
private struct Scratch {
    private var memory: UnsafeMutableRawPointer?
    private var bytes = 0
    private(set) var planeStride = 0

    /// Room for `planes` planes of `bytesPerPlane` bytes; the base address.
    mutating func reserve(planes: Int, bytesPerPlane: Int) throws -> UnsafeMutableRawPointer {
        let stride = (max(1, bytesPerPlane) + 63) / 64 * 64
        let (total, overflow) = stride.multipliedReportingOverflow(by: max(1, planes))
        guard !overflow, total <= Int(Int32.max) else {
            throw MediaEngineError(.outOfMemory, source: "audio converter", operation: "convert audio", reason: "\(bytesPerPlane) bytes a buffer is too many")
        }
        planeStride = stride
        if let memory, bytes >= total { return memory }
        memory?.deallocate()
        let made = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 64)
        (memory, bytes) = (made, total)
        return made
    }

    mutating func free() {
        memory?.deallocate()
        (memory, bytes) = (nil, 0)
    }
}
