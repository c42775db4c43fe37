import Foundation

/// How audio played at another rate keeps (or changes) its pitch. A player honours its item's
/// choice (``AVPlayerItem/audioTimePitchAlgorithm``: the three that keep the pitch all use one
/// time-domain stretcher, WSOLA); Avocet's readers and exports resample, so there the pitch follows
/// the rate (as ``varispeed``) whatever is chosen.
public struct AVAudioTimePitchAlgorithm: RawRepresentable, Hashable, Sendable {
    /// The algorithm's name.
    public let rawValue: String
    /// An algorithm from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An algorithm from its name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Apple's low-quality, low-latency algorithm.
    public static let lowQualityZeroLatency = AVAudioTimePitchAlgorithm("LowQualityZeroLatency")
    /// Apple's time-domain algorithm, which keeps the pitch.
    public static let timeDomain = AVAudioTimePitchAlgorithm("TimeDomain")
    /// Apple's spectral algorithm, which keeps the pitch.
    public static let spectral = AVAudioTimePitchAlgorithm("Spectral")
    /// Playback at another rate changes the pitch, as on a tape (what Avocet's readers and exports do
    /// whatever is chosen).
    public static let varispeed = AVAudioTimePitchAlgorithm("Varispeed")
}
