import Foundation

/// A buffer of linear PCM frames: one buffer a channel (deinterleaved) or one of interleaved frames,
/// allocated for ``frameCapacity`` frames when the buffer is made (zeroed), of which the first
/// ``frameLength`` are valid.
open class AVAudioPCMBuffer: AVAudioBuffer, @unchecked Sendable {
    /// The frames the buffer has room for.
    public let frameCapacity: AVAudioFrameCount
    /// The bytes one frame takes in each buffer of the list.
    private let bytesPerFrame: Int
    /// The audio memory, and each channel's first sample in it.
    private let memory: UnsafeMutableRawPointer
    private let channels: UnsafeMutablePointer<UnsafeMutableRawPointer>

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
        memory = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: total)
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

    deinit {
        channels.deallocate()
        memory.deallocate()
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
