import Foundation

/// The dynamic range of a video: standard, or one of the high-dynamic-range transfer functions.
public struct AVVideoRange: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    /// Makes a range from its raw value, as HLS's `VIDEO-RANGE` attribute spells it.
    ///
    /// - Parameter rawValue: "SDR", "PQ" or "HLG".
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Standard dynamic range.
    public static let sdr = AVVideoRange(rawValue: "SDR")
    /// High dynamic range with the perceptual quantizer (SMPTE ST 2084).
    public static let pq = AVVideoRange(rawValue: "PQ")
    /// High dynamic range with hybrid log-gamma (ARIB STD-B67).
    public static let hlg = AVVideoRange(rawValue: "HLG")
}
