/// What ``AVAudioConverter/convert(to:error:withInputFrom:)`` did (Apple's values).
public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer holds data: all it had room for, or at the end of the stream the last of it.
    case haveData = 0
    /// The input block said it had no data now; the output holds what could be made (maybe none).
    case inputRanDry = 1
    /// The stream has ended: no data was returned. Call ``AVAudioConverter/reset()`` to start another.
    case endOfStream = 2
    /// The conversion failed; the error says why.
    case error = 3
}
