/// An audio file type (AudioToolbox's `AudioFileTypeID`), a four-character code, as
/// ``AVAudioFileTypeKey`` takes it when an ``AVAudioFile`` is written.
public typealias AudioFileTypeID = UInt32

/// AIFF ('AIFF').
public var kAudioFileAIFFType: AudioFileTypeID { FourCharCode(fourCharString: "AIFF") }
/// AIFF-C ('AIFC').
public var kAudioFileAIFCType: AudioFileTypeID { FourCharCode(fourCharString: "AIFC") }
/// RIFF WAVE ('WAVE').
public var kAudioFileWAVEType: AudioFileTypeID { FourCharCode(fourCharString: "WAVE") }
/// RF64, WAVE beyond 4 GiB ('RF64'); Avocet writes it as WAVE.
public var kAudioFileRF64Type: AudioFileTypeID { FourCharCode(fourCharString: "RF64") }
/// Sony Wave64 ('W64f'); Avocet writes it as WAVE.
public var kAudioFileWave64Type: AudioFileTypeID { FourCharCode(fourCharString: "W64f") }
/// Core Audio Format ('caff').
public var kAudioFileCAFType: AudioFileTypeID { FourCharCode(fourCharString: "caff") }
/// MPEG-4 audio, .m4a ('m4af').
public var kAudioFileM4AType: AudioFileTypeID { FourCharCode(fourCharString: "m4af") }
/// MPEG-4, .mp4 ('mp4f').
public var kAudioFileMPEG4Type: AudioFileTypeID { FourCharCode(fourCharString: "mp4f") }
/// FLAC ('flac').
public var kAudioFileFLACType: AudioFileTypeID { FourCharCode(fourCharString: "flac") }
/// MPEG layer 3 ('MPG3'); read only.
public var kAudioFileMP3Type: AudioFileTypeID { FourCharCode(fourCharString: "MPG3") }
/// AAC in ADTS ('adts'); read only.
public var kAudioFileAAC_ADTSType: AudioFileTypeID { FourCharCode(fourCharString: "adts") }
