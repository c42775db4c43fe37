// The audio settings keys of Apple's AVAudioSettings.h: the keys of the `[String: Any]` dictionaries
// that reader outputs, writer inputs and audio files take. Each raw value is the constant's name, as
// Apple's is. Values are `NSNumber`s (or Swift numbers), `String`s or `Data`.

/// The audio format, an `AudioFormatID` such as `kAudioFormatLinearPCM` or `kAudioFormatMPEG4AAC`.
public let AVFormatIDKey = "AVFormatIDKey"
/// The sample rate in hertz (a floating-point number).
public let AVSampleRateKey = "AVSampleRateKey"
/// The number of channels (an integer).
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"
/// The channel layout: `Data` holding an `AudioChannelLayout`.
public let AVChannelLayoutKey = "AVChannelLayoutKey"

/// Linear PCM: bits per sample (8, 16, 24 or 32; 32 or 64 for floating point).
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
/// Linear PCM: whether samples are big-endian (a Boolean).
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
/// Linear PCM: whether samples are floating point (a Boolean).
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
/// Linear PCM: whether each channel is in a buffer of its own (a Boolean). No `Key` suffix, as Apple's.
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"

/// Encoder quality: an ``AVAudioQuality`` raw value.
public let AVEncoderAudioQualityKey = "AVEncoderAudioQualityKey"
/// Encoder quality for variable bit rate: an ``AVAudioQuality`` raw value.
public let AVEncoderAudioQualityForVBRKey = "AVEncoderAudioQualityForVBRKey"
/// Encoder bit rate in bits per second (an integer).
public let AVEncoderBitRateKey = "AVEncoderBitRateKey"
/// Encoder bit rate per channel in bits per second (an integer).
public let AVEncoderBitRatePerChannelKey = "AVEncoderBitRatePerChannelKey"
/// Encoder bit-rate strategy: one of the `AVAudioBitRateStrategy_` values, such as
/// ``AVAudioBitRateStrategy_Constant``.
public let AVEncoderBitRateStrategyKey = "AVEncoderBitRateStrategyKey"
/// Encoder bit depth hint (8 to 32), for lossless encoders.
public let AVEncoderBitDepthHintKey = "AVEncoderBitDepthHintKey"

/// A constant bit rate.
public let AVAudioBitRateStrategy_Constant = "AVAudioBitRateStrategy_Constant"
/// An average bit rate over the long term.
public let AVAudioBitRateStrategy_LongTermAverage = "AVAudioBitRateStrategy_LongTermAverage"
/// A variable bit rate within limits.
public let AVAudioBitRateStrategy_VariableConstrained = "AVAudioBitRateStrategy_VariableConstrained"
/// A variable bit rate.
public let AVAudioBitRateStrategy_Variable = "AVAudioBitRateStrategy_Variable"

/// Sample-rate converter quality: an ``AVAudioQuality`` raw value. Reader outputs and writer inputs do
/// not take it, as Apple's do not.
public let AVSampleRateConverterAudioQualityKey = "AVSampleRateConverterAudioQualityKey"
/// Sample-rate converter algorithm: one of the `AVSampleRateConverterAlgorithm_` values, such as
/// ``AVSampleRateConverterAlgorithm_Normal``.
public let AVSampleRateConverterAlgorithmKey = "AVSampleRateConverterAlgorithmKey"
/// The normal sample-rate conversion algorithm.
public let AVSampleRateConverterAlgorithm_Normal = "AVSampleRateConverterAlgorithm_Normal"
/// The mastering-quality sample-rate conversion algorithm.
public let AVSampleRateConverterAlgorithm_Mastering = "AVSampleRateConverterAlgorithm_Mastering"
/// The minimum-phase sample-rate conversion algorithm.
public let AVSampleRateConverterAlgorithm_MinimumPhase = "AVSampleRateConverterAlgorithm_MinimumPhase"
/// The audio file type for writing an audio file (an `AudioFileTypeID`).
public let AVAudioFileTypeKey = "AVAudioFileTypeKey"
