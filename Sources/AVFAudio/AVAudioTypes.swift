/// A number of sample frames.
public typealias AVAudioFrameCount = UInt32
/// A number of packets of compressed audio.
public typealias AVAudioPacketCount = UInt32
/// A number of channels.
public typealias AVAudioChannelCount = UInt32
/// A position in sample frames, from a file's start.
public typealias AVAudioFramePosition = Int64

/// The block ``AVAudioConverter/convert(to:error:withInputFrom:)`` calls for input: it is given the
/// number of packets wanted (frames, for linear PCM) and a status to set, and returns a buffer of
/// input (``AVAudioConverterInputStatus/haveData``; any amount will do) or nil with
/// ``AVAudioConverterInputStatus/noDataNow`` or ``AVAudioConverterInputStatus/endOfStream``. Called
/// on the thread that called `convert`, as often as the conversion needs, never after it returns.
public typealias AVAudioConverterInputBlock = (AVAudioPacketCount, UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?
