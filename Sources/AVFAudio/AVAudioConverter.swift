import Foundation
internal import MediaEngine

/// Converts audio from one format to another, as Apple's converter does: linear PCM to linear PCM
/// (sample type, byte order, interleaving, channel count and layout, sample rate), compressed packets
/// to linear PCM (decoding: AAC, MP3, MP2, MP1, FLAC, ALAC, Opus, Vorbis, AC-3, E-AC-3, AMR, µ-law,
/// A-law, with FFmpeg's decoders), and linear PCM to compressed packets (encoding: AAC, FLAC, ALAC,
/// Opus, with FFmpeg's encoders). Sample types, channels and rates are converted in one libswresample
/// pass straight between the buffers' memory.
///
/// Threads: as Apple's, a converter is used from one thread at a time; it is `Sendable`, as in
/// Apple's newest SDK, so it may be handed to another thread, but calls must not overlap. The
/// work runs on the calling thread, CPU only, and the input block is called on that thread, within
/// the call. Changing a property (``channelMap``, ``downmix``, ``dither``, the sample-rate converter's
/// quality and algorithm, ``primeMethod``, ``primeInfo``, ``bitRate``, ``magicCookie``) starts a new
/// stream, as ``reset()`` does: set them before converting.
///
/// Errors are `NSError`s in Apple's AVFAudio domain (`com.apple.coreaudio.avfaudio`): -50
/// (`kAudio_ParamError`) for buffers of another format, too little room or a misbehaving input
/// block, 'fmt?' for conversions the engine cannot make, and the engine's failures mapped as audio
/// files map them. Where Apple's raises an Objective-C exception (a buffer of the wrong class or
/// format), Avocet's throws or returns ``AVAudioConverterOutputStatus/error``.
open class AVAudioConverter: NSObject, @unchecked Sendable {
    /// The format of the input.
    public let inputFormat: AVAudioFormat
    /// The format of the output.
    public let outputFormat: AVAudioFormat

    /// What the converter does.
    private enum Route {
        case pcm(input: SampleConverter.Shape, output: SampleConverter.Shape)
        case decode(codec: Codec, output: SampleConverter.Shape)
        case encode(input: SampleConverter.Shape, codec: WriterTrackSettings.AudioEncoding.Codec)
    }

    /// What the decoding route's source step did.
    private enum Step { case produced, needInput, exhausted }

    private let route: Route
    /// Plane pointers for the engine, one a channel at most.
    private let inPlanes: UnsafeMutablePointer<UnsafeRawPointer?>
    private let outPlanes: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    // Settings.
    private var explicitChannelMap: [Int]?
    private var downmixes = false
    private var dithers = false
    private var cookie: Data?
    private var quality = AVAudioQuality.high.rawValue
    private var algorithm: String? = AVSampleRateConverterAlgorithm_Normal
    private var method = AVAudioConverterPrimeMethod.normal
    private var explicitPrimeInfo: AVAudioConverterPrimeInfo?
    private var requestedBitRate: Int?
    private var strategy: String?

    // The stream.
    private var converter: SampleConverter?
    /// The decoder's shape version the converter was made for (decoding).
    private var converterShapeVersion = -1
    private var decoder: AudioPacketDecoder?
    private var encoder: AudioPacketEncoder?
    /// Settings changed, or reset() was called: the engine is rebuilt before the next conversion.
    private var stale = true
    /// The leading frames of `.pre` are still to be dropped from the next converter made.
    private var primePending = true
    /// The input block said end of stream; the decoder was told so; the output has ended.
    private var inputEnded = false
    private var decoderDrained = false
    private var finished = false
    /// A compressed input buffer whose packets are being decoded, and the next packet's index.
    private var pendingPackets: (buffer: AVAudioCompressedBuffer, next: Int)?

    /// A converter from `fromFormat` to `toFormat`. Sets up the engine (a resampler's filter, an
    /// encoder: well under a millisecond; libopus's a few) on the calling thread.
    ///
    /// - Parameters:
    ///   - fromFormat: The input: linear PCM, or packets of a codec FFmpeg decodes.
    ///   - toFormat: The output: linear PCM, or (from linear PCM) AAC, FLAC, Apple Lossless or Opus.
    /// - Returns: nil for conversions that are impossible: compressed to compressed, a codec this
    ///   FFmpeg lacks, linear PCM the engine cannot describe (unsigned 16-bit or wider, unpacked
    ///   samples, floats other than 32 and 64 bits), zero channels or more than 64, rates that are not
    ///   positive, an encoder that refuses the rate or channels (Opus at 44.1 kHz), or a decoder that
    ///   refuses the format's magic cookie.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        let maximum = SampleConverter.maximumChannels
        if let input = fromFormat.sampleShape, let output = toFormat.sampleShape {
            route = .pcm(input: input, output: output)
        } else if let codec = fromFormat.decodedCodec, let output = toFormat.sampleShape, AudioPacketDecoder.canDecode(codec),
                  (1...maximum).contains(Int(fromFormat.channelCount)), fromFormat.sampleRate.isFinite, fromFormat.sampleRate >= 1,
                  fromFormat.sampleRate <= Double(Int32.max) {
            route = .decode(codec: codec, output: output)
        } else if let input = fromFormat.sampleShape, let codec = toFormat.encodedCodec, AudioPacketEncoder.canEncode(codec),
                  (1...maximum).contains(Int(toFormat.channelCount)), toFormat.sampleRate.isFinite, toFormat.sampleRate >= 1,
                  toFormat.sampleRate <= Double(Int32.max) {
            route = .encode(input: input, codec: codec)
        } else {
            return nil
        }
        inputFormat = fromFormat
        outputFormat = toFormat
        inPlanes = .allocate(capacity: maximum)
        inPlanes.initialize(repeating: nil, count: maximum)
        outPlanes = .allocate(capacity: maximum)
        outPlanes.initialize(repeating: nil, count: maximum)
        super.init()
        do {
            try rebuild()
        } catch {
            // A decoder that needs its cookie may get it later (``magicCookie``); anything else is impossible.
            guard case .decode = route, fromFormat.magicCookie == nil else { return nil }
            stale = true
        }
    }

    deinit {
        inPlanes.deallocate()
        outPlanes.deallocate()
    }

    // MARK: - Converting

    /// Ends the stream: what the converter holds (the resampler's delay, the decoder's and encoder's
    /// frames) is dropped and the next conversion starts a new stream. Required after
    /// ``AVAudioConverterOutputStatus/endOfStream``. Cheap: the engine is rebuilt on the next call.
    open func reset() {
        stale = true
    }

    /// Converts a buffer of linear PCM into another of the same sample rate, in one call: sample type,
    /// byte order, interleaving, channels (``channelMap``, ``downmix``) and ``dither``. On the calling
    /// thread; no memory is allocated for the common sample types (24-bit and big-endian samples are
    /// repacked through scratch memory kept from call to call).
    ///
    /// - Parameters:
    ///   - outputBuffer: A buffer of ``outputFormat`` with room for the input's frames; its
    ///     `frameLength` is set to the frames written.
    ///   - inputBuffer: A buffer of ``inputFormat``; its `frameLength` frames are converted.
    /// - Throws: -50 (`kAudio_ParamError`) for buffers of another format, an output buffer whose
    ///   `frameCapacity` is below the input's `frameLength`, or formats of different sample rates
    ///   (sample-rate conversion needs ``convert(to:error:withInputFrom:)``, as on Apple's); 'fmt?'
    ///   when the converter decodes or encodes.
    open func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        let call = "AudioConverterConvertComplexBuffer"
        guard case .pcm(let input, let output) = route else {
            throw AudioError.make(AudioError.formatNotSupported, "convert(to:from:) converts linear PCM only; use convert(to:error:withInputFrom:)",
                                  failedCall: call)
        }
        guard inputFormat.sampleRate == outputFormat.sampleRate else {
            throw Self.parameterError("convert(to:from:) does not convert sample rates; use convert(to:error:withInputFrom:)")
        }
        guard inputBuffer.format.isEqual(inputFormat) else { throw Self.parameterError("the input buffer's format is not the converter's input format") }
        guard outputBuffer.format.isEqual(outputFormat) else { throw Self.parameterError("the output buffer's format is not the converter's output format") }
        guard outputBuffer.frameCapacity >= inputBuffer.frameLength else {
            throw Self.parameterError("outputBuffer.frameCapacity < inputBuffer.frameLength")
        }
        do {
            if stale || inputEnded || finished { try rebuild() }
            guard let converter else { throw Self.parameterError("the converter has no engine") }
            try point(inputBuffer, planes: input.planes)
            try point(outputBuffer, planes: output.planes, offsetBytes: 0)
            let made = try converter.convert(from: inPlanes, frames: Int(inputBuffer.frameLength), to: outPlanes,
                                             capacity: Int(outputBuffer.frameCapacity))
            outputBuffer.frameLength = AVAudioFrameCount(clamping: made)
        } catch {
            outputBuffer.frameLength = 0
            throw AudioError.make(error, failedCall: call)
        }
    }

    /// Converts as much as `outputBuffer` has room for, calling `inputBlock` as often as needed for
    /// input: any conversion the converter makes (sample-rate conversion, decoding, encoding). On the
    /// calling thread, as is the block. No memory is allocated per call for linear PCM to linear PCM;
    /// decoding copies each packet once into the decoder; encoding allocates a packet's bytes.
    ///
    /// Converting a stream in pieces of any size gives exactly the samples converting it at once gives.
    /// An input buffer of no frames (or packets) with ``AVAudioConverterInputStatus/haveData`` counts as
    /// the end of the stream, as Core Audio's converter takes zero packets. Compressed input buffers
    /// are read packet by packet as the output needs them: keep a buffer unchanged until the block is
    /// called again.
    ///
    /// - Parameters:
    ///   - outputBuffer: An ``AVAudioPCMBuffer`` (decoding, PCM) whose `frameLength` is set to the frames
    ///     written, or an ``AVAudioCompressedBuffer`` (encoding) whose `packetCount`, `byteLength` and
    ///     packet descriptions are set; of ``outputFormat``.
    ///   - outError: Set to the error when ``AVAudioConverterOutputStatus/error`` is returned.
    ///   - inputBlock: Gives input (see ``AVAudioConverterInputBlock``); buffers of ``inputFormat``.
    /// - Returns: ``AVAudioConverterOutputStatus/haveData`` when the output is full (or holds the
    ///   stream's last data), ``AVAudioConverterOutputStatus/inputRanDry`` when the block had no data
    ///   now, ``AVAudioConverterOutputStatus/endOfStream`` once nothing is left after the end (until
    ///   ``reset()``), ``AVAudioConverterOutputStatus/error`` with `outError` set otherwise (-50 for an
    ///   output buffer of another format or class, a block that says it has data but returns none or
    ///   a buffer of another format, packet descriptions outside the buffer, an output buffer too
    ///   small for one packet).
    @discardableResult
    open func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                      withInputFrom inputBlock: @escaping AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        do {
            guard outputBuffer.format.isEqual(outputFormat) else {
                throw Self.parameterError("the output buffer's format is not the converter's output format")
            }
            if stale { try rebuild() }
            switch route {
            case .pcm(_, let output), .decode(_, let output):
                guard let pcm = outputBuffer as? AVAudioPCMBuffer else { throw Self.parameterError("the output buffer is not an AVAudioPCMBuffer") }
                return try fill(pcm, shape: output, inputBlock)
            case .encode:
                guard let packets = outputBuffer as? AVAudioCompressedBuffer else {
                    throw Self.parameterError("the output buffer is not an AVAudioCompressedBuffer")
                }
                return try fill(packets, inputBlock)
            }
        } catch {
            outError?.pointee = AudioError.make(error, failedCall: "AudioConverterFillComplexBuffer")
            return .error
        }
    }

    // MARK: - Properties

    /// For each output channel, the input channel it takes (-1: silence). By default each output
    /// channel takes the input channel of the same speaker where both formats' layouts name them,
    /// else of the same index; a mono input goes to both channels of a stereo (or the first two of a
    /// wider) output. Setting an array of another length than the output's channels, or with indices
    /// outside the input's, is ignored (Apple's raises an exception). Used unless ``downmix`` mixes.
    open var channelMap: [NSNumber] {
        get { effectiveMap(inputChannels: Int(inputFormat.channelCount), outputChannels: Int(outputFormat.channelCount)).map { NSNumber(value: $0) } }
        set {
            let map = newValue.map(\.intValue)
            guard map.count == Int(outputFormat.channelCount), map.allSatisfy({ $0 >= -1 && $0 < Int(inputFormat.channelCount) }) else { return }
            explicitChannelMap = map
            stale = true
        }
    }

    /// Whether fewer output channels than input channels are made by mixing (FFmpeg's standard mix,
    /// that of `ffmpeg -ac`: stereo to mono is (L + R) × 0.707, a centre and surrounds at -3 dB into
    /// the front pair, the LFE left out; Apple's own coefficients are not documented) rather than by
    /// ``channelMap``. More output channels than input are always made by the channel map. Default
    /// false.
    open var downmix: Bool {
        get { downmixes }
        set { downmixes = newValue; stale = true }
    }

    /// Whether triangular dither is added where the output has fewer bits than the conversion's
    /// internal precision (float or 32-bit to 16-bit or 8-bit). Default false.
    open var dither: Bool {
        get { dithers }
        set { dithers = newValue; stale = true }
    }

    /// The codec's magic cookie: when decoding, the cookie the decoder uses (by default the input
    /// format's; FFmpeg's extradata, or Apple's esds / ALAC / FLAC cookies, which are unwrapped);
    /// when encoding, the encoder's (FFmpeg's extradata: the AudioSpecificConfig for AAC, STREAMINFO
    /// for FLAC, the `alac` atom, the OpusHead), read only; nil for linear PCM.
    open var magicCookie: Data? {
        get {
            switch route {
            case .pcm: return nil
            case .decode: return cookie ?? inputFormat.magicCookie
            case .encode:
                if stale { try? rebuild() }
                return encoder?.extradata
            }
        }
        set {
            guard case .decode = route else { return }
            cookie = newValue
            stale = true
        }
    }

    /// The sample-rate converter's quality, an ``AVAudioQuality`` raw value (0 to 127; values
    /// between take the band below). Each band is a libswresample filter: ``AVAudioQuality/min`` 8
    /// taps a phase, cutoff 0.90 of the lower Nyquist frequency, 2^8 phases; ``AVAudioQuality/low``
    /// 16 taps, 0.93; ``AVAudioQuality/medium`` 24 taps, 0.95; ``AVAudioQuality/high`` (the
    /// default) libswresample's defaults, 32 taps, 0.97, 2^10 phases, so the output is FFmpeg's
    /// (`ffmpeg -ar`, `aresample`) sample for sample; ``AVAudioQuality/max`` 64 taps, 0.98, 2^12
    /// phases. Longer filters cost more CPU in proportion.
    open var sampleRateConverterQuality: Int {
        get { quality }
        set { quality = max(0, min(AVAudioQuality.max.rawValue, newValue)); stale = true }
    }

    /// The sample-rate converter's algorithm: ``AVSampleRateConverterAlgorithm_Normal`` (the default),
    /// ``AVSampleRateConverterAlgorithm_Mastering`` (the filter of the quality band above: 128 taps
    /// and cutoff 0.99 at ``AVAudioQuality/max``), ``AVSampleRateConverterAlgorithm_MinimumPhase``
    /// (libswresample has no minimum-phase filter: Normal's linear-phase one is used). Other values
    /// are kept and work as Normal.
    open var sampleRateConverterAlgorithm: String? {
        get { algorithm }
        set { algorithm = newValue; stale = true }
    }

    /// How the sample-rate converter primes (see ``AVAudioConverterPrimeMethod`` for what each method
    /// does on Avocet). Default ``AVAudioConverterPrimeMethod/normal``.
    open var primeMethod: AVAudioConverterPrimeMethod {
        get { method }
        set { method = newValue; stale = true }
    }

    /// The priming frames: by default, where the rates differ, half the resampling filter's length in
    /// input frames both leading and trailing (45 for 44.1 to 16 kHz at the default quality), plus,
    /// when encoding, the encoder's priming as leading frames (AAC 1024); zero otherwise. A value set
    /// is kept and used by ``AVAudioConverterPrimeMethod/pre``.
    open var primeInfo: AVAudioConverterPrimeInfo {
        get {
            if let explicitPrimeInfo { return explicitPrimeInfo }
            let resampler = AVAudioFrameCount(clamping: SampleConverter.filterHalfLength(inputRate: rate(inputFormat), outputRate: rate(outputFormat),
                                                                                         resampling: resampling))
            var info = AVAudioConverterPrimeInfo(leadingFrames: resampler, trailingFrames: resampler)
            if case .encode = route {
                if stale { try? rebuild() }
                info.leadingFrames = info.leadingFrames.addingReportingOverflow(AVAudioFrameCount(clamping: encoder?.primingFrames ?? 0)).partialValue
            }
            return info
        }
        set { explicitPrimeInfo = newValue; stale = true }
    }

    /// The encoder's bit rate in bits a second: the one set, else FFmpeg's encoder's default (AAC
    /// 128 kb/s stereo, 69 kb/s mono; Opus 96 kb/s stereo, 64 kb/s mono); 0 when not encoding or for
    /// the lossless codecs, which take no rate. FFmpeg's encoders clamp a rate out of their range.
    open var bitRate: Int {
        get {
            guard case .encode(_, let codec) = route, codec == .aac || codec == .opus else { return 0 }
            if let requestedBitRate { return requestedBitRate }
            if stale { try? rebuild() }
            return encoder?.bitRate ?? 0
        }
        set {
            guard case .encode(_, let codec) = route, codec == .aac || codec == .opus else { return }
            requestedBitRate = newValue > 0 ? newValue : nil
            stale = true
        }
    }

    /// The bit-rate strategy (one of the `AVAudioBitRateStrategy_` values). Kept, but FFmpeg's
    /// encoders as Avocet sets them up run at the average rate ``bitRate`` asks whatever the strategy.
    open var bitRateStrategy: String? {
        get { strategy }
        set { strategy = newValue }
    }

    /// The largest packet the output can hold in bytes: when encoding, the encoder's bound (AAC 768
    /// bytes a channel, Opus 3832, the lossless codecs' uncompressed frame plus headers); for linear
    /// PCM the output's bytes a frame. Size ``AVAudioCompressedBuffer``s with it.
    open var maximumOutputPacketSize: Int {
        if case .encode(_, let codec) = route {
            if stale { try? rebuild() }
            if let encoder { return encoder.maximumPacketSize }
            return codec == .aac ? 768 * Int(outputFormat.channelCount) : 0
        }
        return Int(outputFormat.streamDescription.pointee.mBytesPerPacket)
    }

    /// The bit rates the encoder offers (nil when not encoding, or for lossless codecs).
    open var availableEncodeBitRates: [NSNumber]? {
        guard case .encode(_, let codec) = route else { return nil }
        switch codec {
        case .aac: return [16_000, 24_000, 32_000, 40_000, 48_000, 56_000, 64_000, 80_000, 96_000, 112_000, 128_000, 160_000, 192_000, 224_000,
                           256_000, 288_000, 320_000].map { NSNumber(value: $0) }
        case .opus: return [6_000, 8_000, 12_000, 16_000, 24_000, 32_000, 48_000, 64_000, 96_000, 128_000, 160_000, 192_000, 256_000, 320_000,
                            384_000, 448_000, 510_000].map { NSNumber(value: $0) }
        default: return nil
        }
    }

    /// The offered bit rates the encoder takes at the output's rate and channels (AAC: up to 6144
    /// bits a channel a 1024-frame packet, at least 8 kb/s a channel; Opus: 6 kb/s to 256 kb/s a
    /// channel, 510 kb/s at most).
    open var applicableEncodeBitRates: [NSNumber]? {
        guard case .encode(_, let codec) = route, let available = availableEncodeBitRates else { return nil }
        let channels = Int(outputFormat.channelCount)
        let range: ClosedRange<Int>
        switch codec {
        case .aac: range = 8_000 * channels...max(8_000 * channels, 6_144 * rate(outputFormat) / 1_024 * channels)
        default: range = 6_000...min(510_000, 256_000 * channels)
        }
        return available.filter { range.contains($0.intValue) }
    }

    /// The sample rates the encoder offers (FFmpeg's encoder's list: AAC 7.35 to 96 kHz, Opus 8 to
    /// 48 kHz; the common rates up to 192 kHz for the lossless codecs); nil when not encoding.
    open var availableEncodeSampleRates: [NSNumber]? {
        guard case .encode(_, let codec) = route else { return nil }
        let rates = AudioPacketEncoder.supportedSampleRates(codec)
            ?? [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 64_000, 88_200, 96_000, 176_400, 192_000]
        return rates.map { NSNumber(value: $0) }
    }

    /// The offered sample rates the encoder takes with the output's channels: all of them.
    open var applicableEncodeSampleRates: [NSNumber]? { availableEncodeSampleRates }

    /// The channel layouts the encoder takes: mono, stereo and the MPEG layouts of three to eight
    /// channels, as tags; nil when not encoding.
    open var availableEncodeChannelLayoutTags: [NSNumber]? {
        guard case .encode = route else { return nil }
        return [kAudioChannelLayoutTag_Mono, kAudioChannelLayoutTag_Stereo, kAudioChannelLayoutTag_MPEG_3_0_A, kAudioChannelLayoutTag_MPEG_4_0_A,
                kAudioChannelLayoutTag_MPEG_5_0_A, kAudioChannelLayoutTag_MPEG_5_1_A, kAudioChannelLayoutTag_MPEG_6_1_A,
                kAudioChannelLayoutTag_MPEG_7_1_A].map { NSNumber(value: $0) }
    }

    // MARK: - The engine

    /// Makes the engine afresh for the current settings: a new stream.
    private func rebuild() throws {
        (converter, decoder, encoder) = (nil, nil, nil)
        (inputEnded, decoderDrained, finished, pendingPackets, primePending) = (false, false, false, nil, true)
        switch route {
        case .pcm(let input, let output):
            converter = try makeConverter(input, output)
        case .decode(let codec, _):
            decoder = try AudioPacketDecoder(codec: codec, sampleRate: rate(inputFormat), channels: Int(inputFormat.channelCount),
                                             extradata: MagicCookie.extradata(cookie ?? inputFormat.magicCookie, for: codec))
        case .encode(let input, let codec):
            let output = SampleConverter.Shape(sample: .float32, isInterleaved: true, rate: rate(outputFormat), channels: Int(outputFormat.channelCount),
                                               speakers: outputFormat.speakers)
            converter = try makeConverter(input, output)
            encoder = try AudioPacketEncoder(codec: codec, sampleRate: output.rate, channels: output.channels, bitRate: requestedBitRate)
        }
        stale = false
    }

    /// A sample converter between the shapes with the current settings, primed as ``primeMethod``
    /// says when it starts the stream.
    private func makeConverter(_ input: SampleConverter.Shape, _ output: SampleConverter.Shape) throws -> SampleConverter {
        let made = try SampleConverter(from: input, to: output, mixing: mixing(input, output), resampling: resampling, dither: dithers)
        if primePending {
            primePending = false
            if method == .pre {
                let frames = explicitPrimeInfo?.leadingFrames
                    ?? AVAudioFrameCount(clamping: SampleConverter.filterHalfLength(inputRate: input.rate, outputRate: output.rate, resampling: resampling))
                let leading = Double(frames) * Double(output.rate) / Double(input.rate)
                made.dropLeadingOutput(Int(leading.rounded()))
            }
        }
        return made
    }

    private func mixing(_ input: SampleConverter.Shape, _ output: SampleConverter.Shape) -> SampleConverter.Mixing {
        if downmixes && output.channels < input.channels { return .standard }
        let map = effectiveMap(inputChannels: input.channels, outputChannels: output.channels, inputSpeakers: input.speakers,
                               outputSpeakers: output.speakers)
        var weights = [Double](repeating: 0, count: input.channels * output.channels)
        for (o, i) in map.enumerated() where i >= 0 && i < input.channels { weights[o * input.channels + i] = 1 }
        return .matrix(weights)
    }

    /// The channel map in use: the one set (when it fits the channel counts), else by speaker, else by
    /// index with mono duplicated into the first two channels.
    private func effectiveMap(inputChannels: Int, outputChannels: Int, inputSpeakers: [Int]? = nil, outputSpeakers: [Int]? = nil) -> [Int] {
        if let explicitChannelMap, explicitChannelMap.count == outputChannels, explicitChannelMap.allSatisfy({ $0 >= -1 && $0 < inputChannels }) {
            return explicitChannelMap
        }
        let ins = inputSpeakers ?? inputFormat.speakers, outs = outputSpeakers ?? outputFormat.speakers
        if let ins, let outs, ins.count == inputChannels, outs.count == outputChannels, inputChannels > 1, Set(ins).intersection(outs).count > 0 {
            return outs.map { s in ins.firstIndex(of: s) ?? -1 }
        }
        return (0..<outputChannels).map { o in o < inputChannels ? o : (inputChannels == 1 && o < 2 ? 0 : -1) }
    }

    /// The libswresample filter for ``sampleRateConverterQuality`` and the algorithm.
    private var resampling: SampleConverter.Resampling {
        var band = quality < 0x20 ? 0 : quality < 0x40 ? 1 : quality < 0x60 ? 2 : quality < 0x7F ? 3 : 4
        if algorithm == AVSampleRateConverterAlgorithm_Mastering { band += 1 }
        switch band {
        case 0: return .init(filterSize: 8, phaseShift: 8, cutoff: 0.90)
        case 1: return .init(filterSize: 16, phaseShift: 10, cutoff: 0.93)
        case 2: return .init(filterSize: 24, phaseShift: 10, cutoff: 0.95)
        case 3: return .standard
        case 4: return .init(filterSize: 64, phaseShift: 12, cutoff: 0.98)
        default: return .init(filterSize: 128, phaseShift: 12, cutoff: 0.99)
        }
    }

    private func rate(_ format: AVAudioFormat) -> Int {
        let r = format.sampleRate
        return r.isFinite && r >= 1 && r <= Double(Int32.max) ? Int(r.rounded()) : 1
    }

    /// Points `inPlanes` at the buffers of `buffer`.
    private func point(_ buffer: AVAudioBuffer, planes: Int) throws {
        guard buffer.bufferCount >= planes, planes <= SampleConverter.maximumChannels else {
            throw Self.parameterError("the input buffer has fewer buffers than its format")
        }
        for p in 0..<planes {
            guard let data = buffer.list[p].mData else { throw Self.parameterError("an input buffer has no memory") }
            inPlanes[p] = UnsafeRawPointer(data)
        }
    }

    /// Points `outPlanes` at the buffers of `buffer`, `offsetBytes` in.
    private func point(_ buffer: AVAudioBuffer, planes: Int, offsetBytes: Int) throws {
        guard buffer.bufferCount >= planes, planes <= SampleConverter.maximumChannels else {
            throw Self.parameterError("the output buffer has fewer buffers than its format")
        }
        for p in 0..<planes {
            guard let data = buffer.list[p].mData else { throw Self.parameterError("an output buffer has no memory") }
            outPlanes[p] = data + offsetBytes
        }
    }

    /// Fills a PCM buffer (from PCM input or decoded packets).
    private func fill(_ out: AVAudioPCMBuffer, shape: SampleConverter.Shape, _ inputBlock: AVAudioConverterInputBlock) throws -> AVAudioConverterOutputStatus {
        let capacity = Int(out.frameCapacity)
        var filled = 0
        defer { out.frameLength = AVAudioFrameCount(clamping: filled) }
        if finished { return .endOfStream }
        let frameBytes = shape.bytesPerPlaneFrame
        func room() throws -> Int {
            try point(out, planes: shape.planes, offsetBytes: filled * frameBytes)
            return capacity - filled
        }
        filling: while filled < capacity {
            if let converter {
                let made = try converter.convertBuffered(to: outPlanes, capacity: try room())
                filled += made
                if filled == capacity { break }
            }
            let step: Step
            if case .decode = route {
                let room = try room()
                let (decoded, made) = try decodeStep(shape, room: room)
                filled += made
                step = decoded
            } else {
                step = inputEnded ? .exhausted : .needInput
            }
            switch step {
            case .produced:
                continue
            case .exhausted:
                guard let converter else {
                    finished = true
                    break filling
                }
                let room = try room()
                let made = try converter.flush(to: outPlanes, capacity: room)
                filled += made
                if made == 0 {
                    finished = true
                    break filling
                }
            case .needInput:
                switch try ask(inputBlock, packetsWanted(forOutput: capacity - filled)) {
                case .ranDry:
                    return .inputRanDry
                case .ended:
                    inputEnded = true
                case .data(let buffer):
                    if case .decode = route {
                        guard let packets = buffer as? AVAudioCompressedBuffer else { throw Self.parameterError("the input buffer is not an AVAudioCompressedBuffer") }
                        if packets.packetCount == 0 { inputEnded = true } else { pendingPackets = (packets, 0) }
                    } else {
                        guard let pcm = buffer as? AVAudioPCMBuffer, case .pcm(let input, _) = route, let converter else {
                            throw Self.parameterError("the input buffer is not an AVAudioPCMBuffer")
                        }
                        if pcm.frameLength == 0 {
                            inputEnded = true
                        } else {
                            try point(pcm, planes: input.planes)
                            let room = try room()
                            let made = try converter.convert(from: inPlanes, frames: Int(pcm.frameLength), to: outPlanes, capacity: room)
                            filled += made
                        }
                    }
                }
            }
        }
        return finished && filled == 0 ? .endOfStream : .haveData
    }

    /// Decodes until one decoded frame went into the output that `outPlanes` points to, with room for
    /// `room` frames (or the input or the stream ran out); the frames written.
    private func decodeStep(_ shape: SampleConverter.Shape, room: Int) throws -> (Step, Int) {
        guard let decoder else { return (inputEnded ? .exhausted : .needInput, 0) }
        var refusals = 0
        while true {
            switch decoder.receive() {
            case .frame:
                guard let input = decoder.shapeOfHeldFrame() else {
                    throw AudioError.make(AudioError.formatNotSupported, "the decoder gives samples the converter cannot convert")
                }
                if converter == nil || converterShapeVersion != decoder.shapeVersion {
                    converter = try makeConverter(input, shape)
                    converterShapeVersion = decoder.shapeVersion
                }
                guard let converter else { return (.exhausted, 0) }
                return (.produced, try converter.convert(heldFrameOf: decoder, to: outPlanes, capacity: room))
            case .end:
                return (.exhausted, 0)
            case .needsInput:
                if var pending = pendingPackets {
                    if try decoder.send(try packet(pending.next, of: pending.buffer)) {
                        pending.next += 1
                    } else {
                        refusals += 1
                        guard refusals < 16 else { throw AudioError.make(AudioError.invalidFile, "the decoder takes no more packets") }
                    }
                    pendingPackets = pending.next < Int(pending.buffer.packetCount) ? pending : nil
                    continue
                }
                if inputEnded {
                    if decoderDrained { return (.exhausted, 0) }
                    try decoder.sendEnd()
                    decoderDrained = true
                    continue
                }
                return (.needInput, 0)
            }
        }
    }

    /// The bytes of packet `index` of `buffer`: where its description says, or (formats of constant
    /// packet size without descriptions) at `index` times the size.
    private func packet(_ index: Int, of buffer: AVAudioCompressedBuffer) throws -> UnsafeRawBufferPointer {
        let bound = buffer.byteLength > 0 ? Int(buffer.byteLength) : Int(buffer.byteCapacity)
        let start: Int, size: Int
        if let descriptions = buffer.packetDescriptions {
            let d = descriptions[index]
            (start, size) = (Int(d.mStartOffset), Int(d.mDataByteSize))
        } else {
            size = Int(inputFormat.streamDescription.pointee.mBytesPerPacket)
            start = index * size
        }
        guard start >= 0, size >= 0, start <= bound, size <= bound - start else {
            throw Self.parameterError("packet \(index) (\(size) bytes at \(start)) lies outside the buffer's \(bound) bytes")
        }
        return UnsafeRawBufferPointer(start: UnsafeRawPointer(buffer.data + start), count: size)
    }

    /// Packets to ask the block for to make `frames` more output frames: input frames at the input's
    /// rate, less what the converter holds; packets of the input format's frames (at least 1; linear
    /// PCM's packets are frames).
    private func packetsWanted(forOutput frames: Int) -> AVAudioPacketCount {
        let inputFrames = Double(frames) * inputFormat.sampleRate / max(1, outputFormat.sampleRate)
        let held = Double(converter?.bufferedInputFrames ?? 0)
        let needed = max(1, (inputFrames - held).rounded(.up))
        // Formats whose packets vary (FLAC from settings) are taken as 4096 frames a packet.
        let stated = inputFormat.streamDescription.pointee.mFramesPerPacket
        let perPacket = Double(stated > 0 ? stated : 4_096)
        let packets = (needed / perPacket).rounded(.up)
        return packets.isFinite ? AVAudioPacketCount(max(1, min(packets, Double(UInt32.max)))) : 1
    }

    /// Fills a compressed buffer with packets encoded from PCM input.
    private func fill(_ out: AVAudioCompressedBuffer, _ inputBlock: AVAudioConverterInputBlock) throws -> AVAudioConverterOutputStatus {
        guard let encoder, let converter, case .encode(let input, _) = route else { throw Self.parameterError("the converter has no encoder") }
        let capacity = Int(out.packetCapacity), byteCapacity = Int(out.byteCapacity)
        let variable = outputFormat.streamDescription.pointee.mFramesPerPacket == 0
        var count = 0, bytes = 0
        defer {
            out.packetCount = AVAudioPacketCount(clamping: count)
            out.byteLength = UInt32(clamping: bytes)
        }
        if finished { return .endOfStream }
        while true {
            while count < capacity, let size = encoder.nextPacketSize, size <= byteCapacity - bytes {
                guard let taken = encoder.takePacket(into: out.data + bytes) else { break }
                out.packetDescriptions?[count] = AudioStreamPacketDescription(mStartOffset: Int64(bytes),
                                                                              mVariableFramesInPacket: variable ? UInt32(clamping: taken.frames) : 0,
                                                                              mDataByteSize: UInt32(clamping: taken.bytes))
                bytes += taken.bytes
                count += 1
            }
            if let size = encoder.nextPacketSize {
                if count == 0 {
                    throw Self.parameterError("a packet of \(size) bytes does not fit the output buffer's \(byteCapacity) bytes (see maximumOutputPacketSize)")
                }
                return .haveData
            }
            if count == capacity { return .haveData }
            if encoder.isFinished {
                finished = true
                return count > 0 ? .haveData : .endOfStream
            }
            if inputEnded {
                while try encode(converter, encoder, inputFrames: 0, { try converter.flush(to: $0, capacity: $1) }) > 0 {}
                try encoder.finish()
                continue
            }
            let perPacket = max(1, encoder.frameSize)
            let wanted = Double((capacity - count) * perPacket) * inputFormat.sampleRate / max(1, outputFormat.sampleRate)
            switch try ask(inputBlock, AVAudioPacketCount(max(1, min(wanted.rounded(.up), Double(UInt32.max))))) {
            case .ranDry:
                return .inputRanDry
            case .ended:
                inputEnded = true
            case .data(let buffer):
                guard let pcm = buffer as? AVAudioPCMBuffer else { throw Self.parameterError("the input block returned no PCM buffer") }
                if pcm.frameLength == 0 {
                    inputEnded = true
                } else {
                    try point(pcm, planes: input.planes)
                    let frames = Int(pcm.frameLength)
                    _ = try encode(converter, encoder, inputFrames: frames) { try converter.convert(from: inPlanes, frames: frames, to: $0, capacity: $1) }
                }
            }
        }
    }

    /// What the input block gave when asked.
    private enum Input {
        case data(AVAudioBuffer)
        case ranDry
        case ended
    }

    /// Asks `inputBlock` for `packets` packets (frames of PCM); a block that says it has data must
    /// return a buffer of ``inputFormat`` (-50 otherwise).
    private func ask(_ inputBlock: AVAudioConverterInputBlock, _ packets: AVAudioPacketCount) throws -> Input {
        var status = AVAudioConverterInputStatus.haveData
        let buffer = inputBlock(packets, &status)
        switch status {
        case .noDataNow: return .ranDry
        case .endOfStream: return .ended
        case .haveData:
            guard let buffer else { throw Self.parameterError("the input block said it had data but returned no buffer") }
            guard buffer.format.isEqual(inputFormat) else { throw Self.parameterError("the input buffer's format is not the converter's input format") }
            return .data(buffer)
        }
    }

    /// Runs `convert` into a new array of interleaved float (room for what the converter can make of
    /// `inputFrames` more frames) and hands what it made to the encoder.
    private func encode(_ converter: SampleConverter, _ encoder: AudioPacketEncoder, inputFrames: Int,
                        _ convert: (UnsafePointer<UnsafeMutableRawPointer?>, Int) throws -> Int) throws -> Int {
        let channels = converter.output.channels
        let frames = max(1, converter.outputBound(forInput: inputFrames))
        var made = 0
        var failure: (any Error)?
        let samples = [Float](unsafeUninitializedCapacity: frames * channels) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            outPlanes[0] = UnsafeMutableRawPointer(base)
            do {
                made = try convert(outPlanes, frames)
                initialized = made * channels
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if made > 0 { try encoder.encode(interleaved: samples) }
        return made
    }

    private static func parameterError(_ reason: String) -> NSError {
        AudioError.make(AudioError.parameter, reason)
    }
}
