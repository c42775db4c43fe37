/// One buffer of audio: `mDataByteSize` bytes at `mData`, holding `mNumberChannels` interleaved
/// channels. Apple's CoreAudioTypes struct, with the same memory layout as the C one (so a list of
/// them can be handed to C code).
public struct AudioBuffer {
    /// The channels interleaved in the buffer (1 for each buffer of non-interleaved audio).
    public var mNumberChannels: UInt32
    /// The bytes the buffer holds.
    public var mDataByteSize: UInt32
    /// The bytes; nil when the buffer has none yet.
    public var mData: UnsafeMutableRawPointer?

    /// An empty buffer: no channels, no bytes.
    public init() {
        mNumberChannels = 0
        mDataByteSize = 0
        mData = nil
    }

    /// A buffer with every field given.
    public init(mNumberChannels: UInt32, mDataByteSize: UInt32, mData: UnsafeMutableRawPointer?) {
        self.mNumberChannels = mNumberChannels
        self.mDataByteSize = mDataByteSize
        self.mData = mData
    }
}
