/// Where one packet of compressed audio lies in a buffer: its offset, its frames (0 when the format's
/// frames per packet apply) and its bytes. Apple's CoreAudioTypes struct.
public struct AudioStreamPacketDescription: Hashable, Sendable {
    /// The packet's offset from the start of the data.
    public var mStartOffset: Int64
    /// The packet's frames, or 0 when the format gives a constant count.
    public var mVariableFramesInPacket: UInt32
    /// The packet's bytes.
    public var mDataByteSize: UInt32

    public init() {
        mStartOffset = 0
        mVariableFramesInPacket = 0
        mDataByteSize = 0
    }

    public init(mStartOffset: Int64, mVariableFramesInPacket: UInt32, mDataByteSize: UInt32) {
        self.mStartOffset = mStartOffset
        self.mVariableFramesInPacket = mVariableFramesInPacket
        self.mDataByteSize = mDataByteSize
    }
}
