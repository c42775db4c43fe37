/// Where the alpha channel sits in a pixel and whether colours are premultiplied by it.
public enum CGImageAlphaInfo: UInt32, Sendable {
    /// No alpha.
    case none = 0
    /// Alpha last, colours premultiplied by it (RGBA).
    case premultipliedLast = 1
    /// Alpha first, colours premultiplied by it (ARGB).
    case premultipliedFirst = 2
    /// Alpha last, colours not premultiplied (RGBA).
    case last = 3
    /// Alpha first, colours not premultiplied (ARGB).
    case first = 4
    /// No alpha; the last byte of each pixel is ignored (RGBX).
    case noneSkipLast = 5
    /// No alpha; the first byte of each pixel is ignored (XRGB).
    case noneSkipFirst = 6
    /// Alpha only, no colour.
    case alphaOnly = 7
}
