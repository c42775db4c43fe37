/// Whether a pixel buffer's attachment propagates to buffers made from it.
public enum CVAttachmentMode: UInt32, Sendable {
    /// Stays with its buffer.
    case shouldNotPropagate = 0
    /// Copied to buffers made from it.
    case shouldPropagate = 1
}
