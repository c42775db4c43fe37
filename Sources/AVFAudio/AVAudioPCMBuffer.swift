import Foundation

/// A buffer of linear PCM frames: one buffer a channel (deinterleaved) or one of interleaved frames,
/// allocated for ``frameCapacity`` frames when the buffer is made (zeroed), of which the first
/// ``frameLength`` are valid.
open class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    /// The frames the buffer has room for.
    public let frameCapacity: AVAudioFrameCount
    /// The bytes one frame takes in each buffer of the list.
    private let bytesPerFrame: Int
    /// The audio memory (nil: the caller's, for a buffer made with no copy), and each channel's first
    /// sample in it.
    private let memory: UnsafeMutableRawPointer?
    private let channels: UnsafeMutablePointer<UnsafeMutableRawPointer>
    /// For a buffer made with no copy: the caller's list and what to call with it when the buffer goes.
    private let borrowed: (list: UnsafePointer<AudioBufferList>, deallocator: ((UnsafePointer<AudioBufferList>) -> Void)?)?

    /// A buffer for `frameCapacity` frames of `format`, its ``frameLength`` zero.
    ///
    /// - Parameters:
    ///   - format: A linear PCM format.
    ///   - frameCapacity: The frames the buffer holds.
    /// - Returns: nil for a format that is not linear PCM or has no bytes a frame, or a capacity whose
    ///   bytes do not fit 32 bits.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        let d = format.streamDescription.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, d.mBytesPerFrame > 0, d.mChannelsPerFrame > 0 else { return nil }
        let deinterleaved = !format.isInterleaved
        let buffers = deinterleaved ? Int(d.mChannelsPerFrame) : 1
        let (perBuffer, overflow) = d.mBytesPerFrame.multipliedReportingOverflow(by: frameCapacity)
        guard !overflow, Int(perBuffer) * buffers <= Int(Int32.max) else { return nil }
        self.frameCapacity = frameCapacity
        bytesPerFrame = Int(d.mBytesPerFrame)
        let total = max(1, Int(perBuffer) * buffers)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: total)
        self.memory = memory
        borrowed = nil
        channels = .allocate(capacity: Int(d.mChannelsPerFrame))
        let sampleBytes = Int(d.mBitsPerChannel / 8)
        for c in 0..<Int(d.mChannelsPerFrame) {
            (channels + c).initialize(to: deinterleaved ? memory + c * Int(perBuffer) : memory + c * sampleBytes)
        }
        super.init(format: format, buffers: buffers)
        for b in 0..<buffers {
            list[b] = AudioBuffer(mNumberChannels: deinterleaved ? 1 : d.mChannelsPerFrame, mDataByteSize: 0,
                                  mData: memory + b * Int(perBuffer))
        }
    }

    /// A buffer over the memory of `bufferList`, without a copy: its capacity and length are the
    /// frames the list's buffers hold (`mDataByteSize`), and writing the buffer writes that memory,
    /// which must outlive it. `deallocator` is called with the list when the buffer goes.
    ///
    /// - Parameters:
    ///   - format: A linear PCM format.
    ///   - bufferList: One buffer for interleaved audio, one a channel otherwise, each with data.
    ///   - deallocator: Called with `bufferList` from the buffer's deinitializer; nil: nothing is.
    /// - Returns: nil for a format that is not linear PCM, or a list whose buffers do not match it
    ///   (their count, channels, no data, sizes that differ or hold no whole frame count).
    public init?(pcmFormat format: AVAudioFormat, bufferListNoCopy bufferList: UnsafePointer<AudioBufferList>,
                 deallocator: ((UnsafePointer<AudioBufferList>) -> Void)? = nil) {
        let d = format.streamDescription.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, d.mBytesPerFrame > 0, d.mChannelsPerFrame > 0 else { return nil }
        let deinterleaved = !format.isInterleaved
        let buffers = deinterleaved ? Int(d.mChannelsPerFrame) : 1
        let given = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: bufferList))
        guard given.count == buffers, let bytes = given.first?.mDataByteSize,
              given.allSatisfy({ $0.mData != nil && $0.mDataByteSize == bytes && $0.mNumberChannels == (deinterleaved ? 1 : d.mChannelsPerFrame) })
        else { return nil }
        frameCapacity = bytes / d.mBytesPerFrame
        bytesPerFrame = Int(d.mBytesPerFrame)
        memory = nil
        borrowed = (bufferList, deallocator)
        channels = .allocate(capacity: Int(d.mChannelsPerFrame))
        let sampleBytes = Int(d.mBitsPerChannel / 8)
        for c in 0..<Int(d.mChannelsPerFrame) {
            let base = given[deinterleaved ? c : 0].mData ?? UnsafeMutableRawPointer(mutating: bufferList)
            (channels + c).initialize(to: deinterleaved ? base : base + c * sampleBytes)
        }
        super.init(format: format, buffers: buffers)
        for b in 0..<buffers { list[b] = given[b] }
        frameLength = frameCapacity
    }

    deinit {
        channels.deallocate()
        memory?.deallocate()
        if let borrowed { borrowed.deallocator?(borrowed.list) }
    }

    /// The frames that are valid, from the first; setting it sets every buffer's `mDataByteSize` (a
    /// length beyond ``frameCapacity`` is taken as the capacity, where Apple's raises an exception).
    /// Zero when the buffer is made.
    open var frameLength: AVAudioFrameCount {
        get {
            let bytes = Int(list[0].mDataByteSize)
            return AVAudioFrameCount(min(Int(frameCapacity), bytes / max(1, bytesPerFrame)))
        }
        set {
            let frames = min(newValue, frameCapacity)
            for b in 0..<bufferCount { list[b].mDataByteSize = UInt32(Int(frames) * bytesPerFrame) }
        }
    }

    /// Samples between one frame's sample of a channel and the next frame's: 1 deinterleaved, the
    /// channel count interleaved.
    open var stride: Int { format.isInterleaved ? Int(format.channelCount) : 1 }

    /// A pointer a channel to its first sample (``stride`` samples apart), for 32-bit float formats;
    /// nil for others.
    open var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? { channelData(.pcmFormatFloat32) }
    /// The same for signed 16-bit integer formats.
    open var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? { channelData(.pcmFormatInt16) }
    /// The same for signed 32-bit integer formats.
    open var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? { channelData(.pcmFormatInt32) }

    /// The same for 64-bit float formats (Apple's class has no such property; Avocet's audio file
    /// reads and writes through it).
    var float64ChannelData: UnsafePointer<UnsafeMutablePointer<Double>>? { channelData(.pcmFormatFloat64) }

    private func channelData<Sample>(_ wanted: AVAudioCommonFormat) -> UnsafePointer<UnsafeMutablePointer<Sample>>? {
        guard format.commonFormat == wanted else { return nil }
        return UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutablePointer<Sample>.self)
    }

    override func duplicate() -> AVAudioBuffer {
        guard let copy = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameCapacity) else { return AVAudioBuffer(format: format, buffers: 1) }
        for b in 0..<bufferCount {
            if let from = list[b].mData, let to = copy.list[b].mData { to.copyMemory(from: from, byteCount: Int(frameCapacity) * bytesPerFrame) }
        }
        copy.frameLength = frameLength
        return copy
    }
}
