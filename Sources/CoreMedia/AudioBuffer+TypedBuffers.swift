// Apple's Core Audio overlay: an audio buffer seen as typed samples, and made from them.

extension AudioBuffer {
    /// A buffer over `typedBuffer`'s memory holding `numberOfChannels` interleaved channels; its
    /// `mDataByteSize` is the typed buffer's bytes (clamped to 32 bits).
    ///
    /// - Parameters:
    ///   - typedBuffer: The samples; the buffer points into their memory, which must outlive it.
    ///   - numberOfChannels: The channels interleaved in the samples.
    public init<Element>(_ typedBuffer: UnsafeMutableBufferPointer<Element>, numberOfChannels: Int) {
        let bytes = typedBuffer.count.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        self.init(mNumberChannels: UInt32(clamping: numberOfChannels), mDataByteSize: bytes.overflow ? .max : UInt32(clamping: bytes.partialValue),
                  mData: typedBuffer.baseAddress.map { UnsafeMutableRawPointer($0) })
    }
}

extension UnsafeBufferPointer {
    /// The buffer's bytes as samples of `Element`: as many whole samples as `mDataByteSize` holds, from
    /// `mData` (empty without data).
    ///
    /// - Parameter audioBuffer: A buffer whose memory holds `Element`s.
    public init(_ audioBuffer: AudioBuffer) {
        let count = Int(audioBuffer.mDataByteSize) / Swift.max(1, MemoryLayout<Element>.stride)
        self.init(start: audioBuffer.mData.map { UnsafePointer($0.assumingMemoryBound(to: Element.self)) }, count: audioBuffer.mData == nil ? 0 : count)
    }
}

extension UnsafeMutableBufferPointer {
    /// The buffer's bytes as samples of `Element`, to be written: as many whole samples as
    /// `mDataByteSize` holds, from `mData` (empty without data).
    ///
    /// - Parameter audioBuffer: A buffer whose memory holds `Element`s.
    public init(_ audioBuffer: AudioBuffer) {
        let count = Int(audioBuffer.mDataByteSize) / Swift.max(1, MemoryLayout<Element>.stride)
        self.init(start: audioBuffer.mData?.assumingMemoryBound(to: Element.self), count: audioBuffer.mData == nil ? 0 : count)
    }
}
