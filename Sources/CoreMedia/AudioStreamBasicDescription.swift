/// The basic shape of an audio stream (CoreAudioTypes' `AudioStreamBasicDescription`): every field is
/// Apple's, zero where a value varies or does not apply (compressed formats have no bytes per frame).
public struct AudioStreamBasicDescription: Hashable, Sendable {
    /// Frames per second of the stream; zero when it varies or is unknown.
    public var mSampleRate: Float64
    /// The encoding, as a four-character code such as ``kAudioFormatMPEG4AAC`` or ``kAudioFormatLinearPCM``.
    public var mFormatID: AudioFormatID
    /// Format-specific flags: sample layout bits for linear PCM, the MPEG-4 object type for AAC.
    public var mFormatFlags: AudioFormatFlags
    /// Bytes in one packet; zero for formats whose packets vary in size.
    public var mBytesPerPacket: UInt32
    /// Frames in one packet (1 for linear PCM, 1024 for AAC); zero when it varies.
    public var mFramesPerPacket: UInt32
    /// Bytes in one frame of every channel; zero for compressed formats.
    public var mBytesPerFrame: UInt32
    /// The number of channels (1 mono, 2 stereo).
    public var mChannelsPerFrame: UInt32
    /// Bits in one sample of one channel; zero for compressed formats.
    public var mBitsPerChannel: UInt32
    /// Pads the structure to an even size; always zero.
    public var mReserved: UInt32

    /// A description with every field zero.
    public init() {
        self.init(mSampleRate: 0, mFormatID: 0, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 0,
                  mBytesPerFrame: 0, mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0)
    }

    /// A description with every field given.
    public init(mSampleRate: Float64, mFormatID: AudioFormatID, mFormatFlags: AudioFormatFlags, mBytesPerPacket: UInt32,
                mFramesPerPacket: UInt32, mBytesPerFrame: UInt32, mChannelsPerFrame: UInt32, mBitsPerChannel: UInt32,
                mReserved: UInt32) {
        self.mSampleRate = mSampleRate
        self.mFormatID = mFormatID
        self.mFormatFlags = mFormatFlags
        self.mBytesPerPacket = mBytesPerPacket
        self.mFramesPerPacket = mFramesPerPacket
        self.mBytesPerFrame = mBytesPerFrame
        self.mChannelsPerFrame = mChannelsPerFrame
        self.mBitsPerChannel = mBitsPerChannel
        self.mReserved = mReserved
    }
}

// Audio format IDs (CoreAudioTypes).
/// Uncompressed linear PCM (`'lpcm'`).
public var kAudioFormatLinearPCM: AudioFormatID { FourCharCode(fourCharString: "lpcm") }
/// Dolby AC-3 (`'ac-3'`).
public var kAudioFormatAC3: AudioFormatID { FourCharCode(fourCharString: "ac-3") }
/// Dolby Enhanced AC-3 (`'ec-3'`).
public var kAudioFormatEnhancedAC3: AudioFormatID { FourCharCode(fourCharString: "ec-3") }
/// MPEG-4 AAC (`'aac '`).
public var kAudioFormatMPEG4AAC: AudioFormatID { FourCharCode(fourCharString: "aac ") }
/// MPEG-4 High Efficiency AAC (`'aach'`).
public var kAudioFormatMPEG4AAC_HE: AudioFormatID { FourCharCode(fourCharString: "aach") }
/// MPEG-4 High Efficiency AAC version 2 (`'aacp'`).
public var kAudioFormatMPEG4AAC_HE_V2: AudioFormatID { FourCharCode(fourCharString: "aacp") }
/// MPEG-1/2 Layer 1 audio (`'.mp1'`).
public var kAudioFormatMPEGLayer1: AudioFormatID { FourCharCode(fourCharString: ".mp1") }
/// MPEG-1/2 Layer 2 audio (`'.mp2'`).
public var kAudioFormatMPEGLayer2: AudioFormatID { FourCharCode(fourCharString: ".mp2") }
/// MPEG-1/2 Layer 3 audio, MP3 (`'.mp3'`).
public var kAudioFormatMPEGLayer3: AudioFormatID { FourCharCode(fourCharString: ".mp3") }
/// Apple Lossless (`'alac'`).
public var kAudioFormatAppleLossless: AudioFormatID { FourCharCode(fourCharString: "alac") }
/// Free Lossless Audio Codec (`'flac'`).
public var kAudioFormatFLAC: AudioFormatID { FourCharCode(fourCharString: "flac") }
/// Opus (`'opus'`).
public var kAudioFormatOpus: AudioFormatID { FourCharCode(fourCharString: "opus") }
/// µ-law companded PCM (`'ulaw'`).
public var kAudioFormatULaw: AudioFormatID { FourCharCode(fourCharString: "ulaw") }
/// A-law companded PCM (`'alaw'`).
public var kAudioFormatALaw: AudioFormatID { FourCharCode(fourCharString: "alaw") }
/// Adaptive Multi-Rate narrowband speech (`'samr'`).
public var kAudioFormatAMR: AudioFormatID { FourCharCode(fourCharString: "samr") }

// Format flags (CoreAudioTypes).
/// Samples are floating point (bit 0).
public var kAudioFormatFlagIsFloat: AudioFormatFlags { 1 << 0 }
/// Samples are big-endian (bit 1).
public var kAudioFormatFlagIsBigEndian: AudioFormatFlags { 1 << 1 }
/// Integer samples are signed (bit 2).
public var kAudioFormatFlagIsSignedInteger: AudioFormatFlags { 1 << 2 }
/// Sample bits fill each channel's bytes with no padding (bit 3).
public var kAudioFormatFlagIsPacked: AudioFormatFlags { 1 << 3 }
/// Unpacked samples sit in the high bits of their bytes (bit 4).
public var kAudioFormatFlagIsAlignedHigh: AudioFormatFlags { 1 << 4 }
/// Each channel is in a buffer of its own (bit 5).
public var kAudioFormatFlagIsNonInterleaved: AudioFormatFlags { 1 << 5 }
/// The stream must not be mixed with others (bit 6).
public var kAudioFormatFlagIsNonMixable: AudioFormatFlags { 1 << 6 }
/// Linear PCM's name for ``kAudioFormatFlagIsFloat``.
public var kLinearPCMFormatFlagIsFloat: AudioFormatFlags { kAudioFormatFlagIsFloat }
/// Linear PCM's name for ``kAudioFormatFlagIsBigEndian``.
public var kLinearPCMFormatFlagIsBigEndian: AudioFormatFlags { kAudioFormatFlagIsBigEndian }
/// Linear PCM's name for ``kAudioFormatFlagIsSignedInteger``.
public var kLinearPCMFormatFlagIsSignedInteger: AudioFormatFlags { kAudioFormatFlagIsSignedInteger }
/// Linear PCM's name for ``kAudioFormatFlagIsPacked``.
public var kLinearPCMFormatFlagIsPacked: AudioFormatFlags { kAudioFormatFlagIsPacked }
/// Linear PCM's name for ``kAudioFormatFlagIsNonInterleaved``.
public var kLinearPCMFormatFlagIsNonInterleaved: AudioFormatFlags { kAudioFormatFlagIsNonInterleaved }
/// Apple Lossless encoded from 16-bit samples.
public var kAppleLosslessFormatFlag_16BitSourceData: AudioFormatFlags { 1 }
/// Apple Lossless encoded from 20-bit samples.
public var kAppleLosslessFormatFlag_20BitSourceData: AudioFormatFlags { 2 }
/// Apple Lossless encoded from 24-bit samples.
public var kAppleLosslessFormatFlag_24BitSourceData: AudioFormatFlags { 3 }
/// Apple Lossless encoded from 32-bit samples.
public var kAppleLosslessFormatFlag_32BitSourceData: AudioFormatFlags { 4 }

// MPEG-4 audio object types, which Apple stores in `mFormatFlags` for AAC.
/// AAC Main profile (MPEG-4 audio object type 1).
public var kMPEG4Object_AAC_Main: AudioFormatFlags { 1 }
/// AAC Low Complexity (MPEG-4 audio object type 2).
public var kMPEG4Object_AAC_LC: AudioFormatFlags { 2 }
/// AAC Scalable Sample Rate (MPEG-4 audio object type 3).
public var kMPEG4Object_AAC_SSR: AudioFormatFlags { 3 }
/// AAC Long Term Prediction (MPEG-4 audio object type 4).
public var kMPEG4Object_AAC_LTP: AudioFormatFlags { 4 }
/// AAC with Spectral Band Replication, HE-AAC (MPEG-4 audio object type 5).
public var kMPEG4Object_AAC_SBR: AudioFormatFlags { 5 }
