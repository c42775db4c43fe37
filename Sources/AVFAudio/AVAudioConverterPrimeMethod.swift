/// How an ``AVAudioConverter`` primes its sample-rate converter at the start of a stream (Apple's
/// values). On Avocet, whose resampler is libswresample's, the methods do this:
///
/// - ``none`` and ``normal``: libswresample's own priming, that of `ffmpeg -ar` and `aresample`:
///   zero latency (the first output sample lies at the first input sample's time), the converter
///   reads ahead the trailing frames its filter needs, and the filter's edges before the first and
///   after the last sample are filled by libswresample (a reflection of the first and last samples,
///   where Apple's assume silence). The output is the same sample for sample as FFmpeg's.
/// - ``pre``: as ``normal``, but the first ``AVAudioConverterPrimeInfo/leadingFrames`` input frames
///   of ``AVAudioConverter/primeInfo`` are priming: they fill the filter's history and their output
///   (that many frames at the output rate, rounded) is dropped, so the output starts at the input's
///   frame `leadingFrames`.
public enum AVAudioConverterPrimeMethod: Int, Sendable {
    /// Primes with leading and trailing input frames: the leading frames' output is dropped.
    case pre = 0
    /// Primes with trailing frames only (zero latency); Apple's default.
    case normal = 1
    /// Apple's "latency mode"; on Avocet the same zero-latency output as ``normal``.
    case none = 2
}
