/// Width and height of video in encoded pixels.
public struct CMVideoDimensions: Hashable, Sendable {
    public var width: Int32
    public var height: Int32

    public init() {
        width = 0
        height = 0
    }

    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }
}
