extension AudioStreamBasicDescription {
    /// Core Audio's description of packed linear PCM: float or signed integer samples of `bits` bits, in
    /// either byte order, interleaved or one buffer a channel; a frame a packet. Nil when a frame's bytes
    /// do not fit 32 bits.
    ///
    /// - Parameters:
    ///   - sampleRate: Frames per second.
    ///   - channels: The channel count.
    ///   - bits: Bits a sample (a multiple of 8).
    ///   - isFloat: Floating-point samples, else signed integers.
    ///   - isBigEndian: Big-endian samples.
    ///   - isNonInterleaved: One buffer a channel (a frame is then one sample of one channel).
    package static func linearPCM(sampleRate: Double, channels: UInt32, bits: UInt32, isFloat: Bool, isBigEndian: Bool,
                                  isNonInterleaved: Bool) -> AudioStreamBasicDescription? {
        let (frameBytes, overflow) = (bits / 8).multipliedReportingOverflow(by: isNonInterleaved ? 1 : channels)
        guard !overflow else { return nil }
        var flags = (isFloat ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger) | kAudioFormatFlagIsPacked
        if isBigEndian { flags |= kAudioFormatFlagIsBigEndian }
        if isNonInterleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        return AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                           mBytesPerPacket: frameBytes, mFramesPerPacket: 1, mBytesPerFrame: frameBytes,
                                           mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
    }
}
