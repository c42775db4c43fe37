/// The buffers of an ``AudioBufferList`` in memory, as a collection (Apple's overlay): reads and writes
/// go to the list itself. Indices run over `mNumberBuffers`.
public struct UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection {
    /// The list.
    public var unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>
    /// The list, read-only.
    public var unsafePointer: UnsafePointer<AudioBufferList> { UnsafePointer(unsafeMutablePointer) }

    /// The buffers of the list at `p`.
    public init(_ p: UnsafeMutablePointer<AudioBufferList>) {
        unsafeMutablePointer = p
    }

    /// The buffers of the list at `p`; nil for nil.
    public init?(_ p: UnsafeMutablePointer<AudioBufferList>?) {
        guard let p else { return nil }
        unsafeMutablePointer = p
    }

    /// How many buffers the list says it holds.
    public var count: Int {
        get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(newValue) }
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of buffers.
    public var endIndex: Int { count }

    /// The buffer at `index` (which must be below the list's room).
    public subscript(index: Int) -> AudioBuffer {
        get { buffers[index] }
        nonmutating set { buffers[index] = newValue }
    }

    private var buffers: UnsafeMutablePointer<AudioBuffer> {
        let offset = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers) ?? MemoryLayout<UInt64>.size
        return (UnsafeMutableRawPointer(unsafeMutablePointer) + offset).assumingMemoryBound(to: AudioBuffer.self)
    }
}
