/// Width and height of video in encoded pixels.
public struct CMVideoDimensions: Hashable, Sendable {
    /// Width in encoded pixels.
    public var width: Int32
    /// Height in encoded pixels.
    public var height: Int32

    /// Zero by zero.
    public init() {
        width = 0
        height = 0
    }

    /// Dimensions of `width` by `height` pixels.
    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }
}
