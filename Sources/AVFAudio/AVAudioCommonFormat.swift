/// The sample formats that ``AVAudioFormat`` and ``AVAudioPCMBuffer`` handle directly: native-endian,
/// packed linear PCM of one of four sample types.
public enum AVAudioCommonFormat: UInt, Sendable {
    /// Any other format: compressed, or linear PCM of another sample type or byte order.
    case otherFormat = 0
    /// 32-bit floats, Core Audio's standard format.
    case pcmFormatFloat32 = 1
    /// 64-bit floats.
    case pcmFormatFloat64 = 2
    /// Signed 16-bit integers.
    case pcmFormatInt16 = 3
    /// Signed 32-bit integers.
    case pcmFormatInt32 = 4
}
