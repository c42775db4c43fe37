import Foundation

/// A buffer of audio in a format: the base of ``AVAudioPCMBuffer`` and ``AVAudioCompressedBuffer``.
/// Its memory is its own, allocated when it is made; the buffer list points into it.
open class AVAudioBuffer: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: as Apple's, a buffer is filled and read by one party at a time; the
    // pointers it hands out are the caller's to synchronise.

    /// The format of the audio the buffer holds.
    public let format: AVAudioFormat
    /// The buffer list (one buffer for interleaved or compressed audio, one a channel otherwise), on
    /// the heap for the buffer's life.
    let list: UnsafeMutableAudioBufferListPointer
    /// The buffers the list was made with (its `mNumberBuffers` is the caller's to change).
    let bufferCount: Int

    init(format: AVAudioFormat, buffers: Int) {
        self.format = format
        bufferCount = max(1, buffers)
        list = AudioBufferList.allocate(maximumBuffers: bufferCount)
        super.init()
    }

    deinit {
        list.unsafeMutablePointer.deallocate()
    }

    /// The buffer list: each `AudioBuffer`'s `mDataByteSize` is the bytes of the valid audio. Do not
    /// change it through this pointer (use ``mutableAudioBufferList``).
    open var audioBufferList: UnsafePointer<AudioBufferList> { list.unsafePointer }

    /// The same buffer list, to be written: a function that fills the buffers sets each `mDataByteSize`
    /// to the bytes it wrote, which sets the PCM buffer's `frameLength` (or the compressed buffer's
    /// `byteLength`) too.
    open var mutableAudioBufferList: UnsafeMutablePointer<AudioBufferList> { list.unsafeMutablePointer }

    /// A copy of the buffer, its audio included.
    open func copy(with zone: NSZone? = nil) -> Any { duplicate() }

    /// A copy of the buffer, its audio included (buffers have no mutable subclass).
    open func mutableCopy(with zone: NSZone? = nil) -> Any { duplicate() }

    /// A new buffer of the same kind, format, capacity and contents; the subclasses give it.
    func duplicate() -> AVAudioBuffer { AVAudioBuffer(format: format, buffers: bufferCount) }
}
