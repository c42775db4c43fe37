/// The basic shape of an audio stream (CoreAudioTypes' `AudioStreamBasicDescription`): every field is
/// Apple's, zero where a value varies or does not apply (compressed formats have no bytes per frame).
public struct AudioStreamBasicDescription: Hashable, Sendable {
    public var mSampleRate: Float64
    public var mFormatID: AudioFormatID
    public var mFormatFlags: AudioFormatFlags
    public var mBytesPerPacket: UInt32
    public var mFramesPerPacket: UInt32
    public var mBytesPerFrame: UInt32
    public var mChannelsPerFrame: UInt32
    public var mBitsPerChannel: UInt32
    public var mReserved: UInt32

    public init() {
        self.init(mSampleRate: 0, mFormatID: 0, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 0,
                  mBytesPerFrame: 0, mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0)
    }

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
public var kAudioFormatLinearPCM: AudioFormatID { FourCharCode(fourCharString: "lpcm") }
public var kAudioFormatAC3: AudioFormatID { FourCharCode(fourCharString: "ac-3") }
public var kAudioFormatEnhancedAC3: AudioFormatID { FourCharCode(fourCharString: "ec-3") }
public var kAudioFormatMPEG4AAC: AudioFormatID { FourCharCode(fourCharString: "aac ") }
public var kAudioFormatMPEG4AAC_HE: AudioFormatID { FourCharCode(fourCharString: "aach") }
public var kAudioFormatMPEG4AAC_HE_V2: AudioFormatID { FourCharCode(fourCharString: "aacp") }
public var kAudioFormatMPEGLayer1: AudioFormatID { FourCharCode(fourCharString: ".mp1") }
public var kAudioFormatMPEGLayer2: AudioFormatID { FourCharCode(fourCharString: ".mp2") }
public var kAudioFormatMPEGLayer3: AudioFormatID { FourCharCode(fourCharString: ".mp3") }
public var kAudioFormatAppleLossless: AudioFormatID { FourCharCode(fourCharString: "alac") }
public var kAudioFormatFLAC: AudioFormatID { FourCharCode(fourCharString: "flac") }
public var kAudioFormatOpus: AudioFormatID { FourCharCode(fourCharString: "opus") }
public var kAudioFormatULaw: AudioFormatID { FourCharCode(fourCharString: "ulaw") }
public var kAudioFormatALaw: AudioFormatID { FourCharCode(fourCharString: "alaw") }
public var kAudioFormatAMR: AudioFormatID { FourCharCode(fourCharString: "samr") }

// Format flags (CoreAudioTypes).
public var kAudioFormatFlagIsFloat: AudioFormatFlags { 1 << 0 }
public var kAudioFormatFlagIsBigEndian: AudioFormatFlags { 1 << 1 }
public var kAudioFormatFlagIsSignedInteger: AudioFormatFlags { 1 << 2 }
public var kAudioFormatFlagIsPacked: AudioFormatFlags { 1 << 3 }
public var kAudioFormatFlagIsAlignedHigh: AudioFormatFlags { 1 << 4 }
public var kAudioFormatFlagIsNonInterleaved: AudioFormatFlags { 1 << 5 }
public var kAudioFormatFlagIsNonMixable: AudioFormatFlags { 1 << 6 }
public var kLinearPCMFormatFlagIsFloat: AudioFormatFlags { kAudioFormatFlagIsFloat }
public var kLinearPCMFormatFlagIsBigEndian: AudioFormatFlags { kAudioFormatFlagIsBigEndian }
public var kLinearPCMFormatFlagIsSignedInteger: AudioFormatFlags { kAudioFormatFlagIsSignedInteger }
public var kLinearPCMFormatFlagIsPacked: AudioFormatFlags { kAudioFormatFlagIsPacked }
public var kLinearPCMFormatFlagIsNonInterleaved: AudioFormatFlags { kAudioFormatFlagIsNonInterleaved }
public var kAppleLosslessFormatFlag_16BitSourceData: AudioFormatFlags { 1 }
public var kAppleLosslessFormatFlag_20BitSourceData: AudioFormatFlags { 2 }
public var kAppleLosslessFormatFlag_24BitSourceData: AudioFormatFlags { 3 }
public var kAppleLosslessFormatFlag_32BitSourceData: AudioFormatFlags { 4 }

// MPEG-4 audio object types, which Apple stores in `mFormatFlags` for AAC.
public var kMPEG4Object_AAC_Main: AudioFormatFlags { 1 }
public var kMPEG4Object_AAC_LC: AudioFormatFlags { 2 }
public var kMPEG4Object_AAC_SSR: AudioFormatFlags { 3 }
public var kMPEG4Object_AAC_LTP: AudioFormatFlags { 4 }
public var kMPEG4Object_AAC_SBR: AudioFormatFlags { 5 }
