/// What an ``AVAudioConverterInputBlock`` says of the input it returns (Apple's values).
public enum AVAudioConverterInputStatus: Int, Sendable {
    /// The block returns a buffer of input.
    case haveData = 0
    /// No input is ready now (the block returns nil); the converter returns what it has with
    /// ``AVAudioConverterOutputStatus/inputRanDry``, to be called again later.
    case noDataNow = 1
    /// The input has ended (the block returns nil); the converter gives what it still holds.
    case endOfStream = 2
}
