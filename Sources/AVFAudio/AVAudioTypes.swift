/// A number of sample frames.
public typealias AVAudioFrameCount = UInt32
/// A number of packets of compressed audio.
public typealias AVAudioPacketCount = UInt32
/// A number of channels.
public typealias AVAudioChannelCount = UInt32
/// A position in sample frames, from a file's start.
public typealias AVAudioFramePosition = Int64
