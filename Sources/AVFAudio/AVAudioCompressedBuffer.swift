import Foundation

/// A buffer of compressed audio packets: up to ``packetCapacity`` packets in ``byteCapacity`` bytes, with
/// a description a packet where packets vary in size. Allocated when made.
open class AVAudioCompressedBuffer: AVAudioBuffer, @unchecked Sendable {
    /// The packets the buffer has room for.
    public let packetCapacity: AVAudioPacketCount
    /// The largest packet the buffer is made for.
    public let maximumPacketSize: Int
    /// The bytes the buffer has room for.
    public let byteCapacity: UInt32
    private let bytes: UnsafeMutableRawPointer
    private let descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    private var count: AVAudioPacketCount = 0

    /// A buffer for `packetCapacity` packets of up to `maximumPacketSize` bytes each, with packet
    /// descriptions. A capacity whose bytes do not fit 32 bits is cut to what does.
    ///
    /// - Parameters:
    ///   - format: A compressed format.
    ///   - packetCapacity: The packets the buffer holds.
    ///   - maximumPacketSize: The largest packet, in bytes.
    public init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount, maximumPacketSize: Int) {
        let size = max(0, min(maximumPacketSize, Int(Int32.max)))
        let total = min(Int(packetCapacity) * size, Int(Int32.max))
        self.packetCapacity = packetCapacity
        self.maximumPacketSize = size
        byteCapacity = UInt32(total)
        bytes = UnsafeMutableRawPointer.allocate(byteCount: max(1, total), alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(1, total))
        descriptions = .allocate(capacity: max(1, Int(packetCapacity)))
        descriptions?.initialize(repeating: AudioStreamPacketDescription(), count: max(1, Int(packetCapacity)))
        super.init(format: format, buffers: 1)
        list[0] = AudioBuffer(mNumberChannels: format.channelCount, mDataByteSize: 0, mData: bytes)
    }

    /// A buffer for `packetCapacity` packets of a format whose packets all have its stream
    /// description's `mBytesPerPacket` bytes; no packet descriptions.
    ///
    /// - Parameters:
    ///   - format: A format of constant bytes a packet.
    ///   - packetCapacity: The packets the buffer holds.
    public init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount) {
        let size = Int(format.streamDescription.pointee.mBytesPerPacket)
        let total = min(Int(packetCapacity) * size, Int(Int32.max))
        self.packetCapacity = packetCapacity
        maximumPacketSize = size
        byteCapacity = UInt32(total)
        bytes = UnsafeMutableRawPointer.allocate(byteCount: max(1, total), alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(1, total))
        descriptions = nil
        super.init(format: format, buffers: 1)
        list[0] = AudioBuffer(mNumberChannels: format.channelCount, mDataByteSize: 0, mData: bytes)
    }

    deinit {
        descriptions?.deallocate()
        bytes.deallocate()
    }

    /// The packets that are valid, from the first (at most ``packetCapacity``).
    open var packetCount: AVAudioPacketCount {
        get { count }
        set { count = min(newValue, packetCapacity) }
    }

    /// The packets' bytes.
    open var data: UnsafeMutableRawPointer { bytes }

    /// The bytes that are valid (at most ``byteCapacity``): the buffer list's `mDataByteSize`.
    open var byteLength: UInt32 {
        get { min(list[0].mDataByteSize, byteCapacity) }
        set { list[0].mDataByteSize = min(newValue, byteCapacity) }
    }

    /// A description a packet (its offset and size), for formats whose packets vary in size; nil for
    /// a buffer made without them.
    open var packetDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>? { descriptions }

    override func duplicate() -> AVAudioBuffer {
        let copy = descriptions == nil ? AVAudioCompressedBuffer(format: format, packetCapacity: packetCapacity)
            : AVAudioCompressedBuffer(format: format, packetCapacity: packetCapacity, maximumPacketSize: maximumPacketSize)
        copy.data.copyMemory(from: bytes, byteCount: Int(byteCapacity))
        if let from = descriptions, let to = copy.descriptions { to.update(from: from, count: max(1, Int(packetCapacity))) }
        copy.packetCount = packetCount
        copy.byteLength = byteLength
        return copy
    }
}
