/// A video codec, the value of ``AVVideoCodecKey`` (its four-character code as a string), as Apple's.
public struct AVVideoCodecType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// H.264 (`avc1`).
    public static let h264 = AVVideoCodecType(rawValue: "avc1")
    /// HEVC (`hvc1`).
    public static let hevc = AVVideoCodecType(rawValue: "hvc1")
    /// HEVC with alpha (`muxa`; the stream is tagged `hvc1`).
    public static let hevcWithAlpha = AVVideoCodecType(rawValue: "muxa")
    /// JPEG (`jpeg`).
    public static let jpeg = AVVideoCodecType(rawValue: "jpeg")
    /// Apple ProRes 422 (`apcn`).
    public static let proRes422 = AVVideoCodecType(rawValue: "apcn")
    /// Apple ProRes 422 HQ (`apch`).
    public static let proRes422HQ = AVVideoCodecType(rawValue: "apch")
    /// Apple ProRes 422 LT (`apcs`).
    public static let proRes422LT = AVVideoCodecType(rawValue: "apcs")
    /// Apple ProRes 422 Proxy (`apco`).
    public static let proRes422Proxy = AVVideoCodecType(rawValue: "apco")
    /// Apple ProRes 4444 (`ap4h`).
    public static let proRes4444 = AVVideoCodecType(rawValue: "ap4h")
    /// Apple ProRes 4444 XQ (`ap4x`).
    public static let appleProRes4444XQ = AVVideoCodecType(rawValue: "ap4x")
    /// JPEG XL (`jxlc`).
    public static let JPEGXL = AVVideoCodecType(rawValue: "jxlc")
}
