import Foundation

/// How audio played at another rate keeps (or changes) its pitch. Avocet records the choice; its
/// readers resample, so pitch follows the rate (as `.varispeed`) whatever is chosen.
public struct AVAudioTimePitchAlgorithm: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let lowQualityZeroLatency = AVAudioTimePitchAlgorithm("LowQualityZeroLatency")
    public static let timeDomain = AVAudioTimePitchAlgorithm("TimeDomain")
    public static let spectral = AVAudioTimePitchAlgorithm("Spectral")
    public static let varispeed = AVAudioTimePitchAlgorithm("Varispeed")
}
