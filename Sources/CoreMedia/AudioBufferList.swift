/// A list of audio buffers: `mNumberBuffers` of them, the first in `mBuffers` and the rest after it in
/// memory, as Apple's variable-length C struct. Reach buffers past the first through
/// ``UnsafeMutableAudioBufferListPointer``; make a list of several with ``allocate(maximumBuffers:)``.
public struct AudioBufferList {
    /// How many buffers the list holds.
    public var mNumberBuffers: UInt32
    /// The first buffer (the others follow it in memory).
    public var mBuffers: (AudioBuffer)

    /// A list of one empty buffer count zero.
    public init() {
        mNumberBuffers = 0
        mBuffers = AudioBuffer()
    }

    /// A list with its count and first buffer.
    public init(mNumberBuffers: UInt32, mBuffers: (AudioBuffer)) {
        self.mNumberBuffers = mNumberBuffers
        self.mBuffers = mBuffers
    }

    /// The bytes a list of `maximumBuffers` buffers takes (at least one buffer's worth, as the C struct
    /// declares one).
    ///
    /// - Parameter maximumBuffers: The buffers the list is to hold; 1 or less gives the size of the
    ///   struct itself.
    /// - Returns: The struct's size plus one ``AudioBuffer`` stride for each buffer past the first.
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        MemoryLayout<AudioBufferList>.size + max(0, maximumBuffers - 1) * MemoryLayout<AudioBuffer>.stride
    }

    /// A list with room for `maximumBuffers` buffers on the heap, zeroed, with ``mNumberBuffers`` set to
    /// that count; free it with `free(_:)` on its ``UnsafeMutableAudioBufferListPointer/unsafeMutablePointer``
    /// (or `deallocate()` of it).
    ///
    /// - Parameter maximumBuffers: The buffers the list has room for; 0 or less gives room for one.
    /// - Returns: The list, whose buffers have no channels, no bytes and no data yet.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        let count = max(1, maximumBuffers)
        let bytes = sizeInBytes(maximumBuffers: count)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: MemoryLayout<AudioBufferList>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        list.pointee.mNumberBuffers = UInt32(count)
        return UnsafeMutableAudioBufferListPointer(list)
    }
}
