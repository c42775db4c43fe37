import Foundation
import CoreVideo

/// A four-character media type code such as ``kCMMediaType_Audio``.
public typealias CMMediaType = FourCharCode
/// A four-character video codec code such as ``kCMVideoCodecType_H264``.
public typealias CMVideoCodecType = FourCharCode
/// The four-character code of a timed metadata format, such as `'id3 '`.
public typealias CMMetadataFormatType = FourCharCode
/// A four-character audio format code such as ``kAudioFormatMPEG4AAC``.
public typealias AudioFormatID = UInt32
/// Flag bits of an ``AudioStreamBasicDescription``, whose meaning depends on its format.
public typealias AudioFormatFlags = UInt32

/// Avocet's helpers for writing and reading four-character codes as text.
extension FourCharCode {
    /// Packs up to four characters big-endian (Avocet's helper; Apple's C code writes `'soun'`).
    /// Characters beyond the fourth are ignored, missing ones are spaces, non-ASCII become `?`.
    public init(fourCharString string: String) {
        var bytes = Array(string.unicodeScalars.prefix(4).map { $0.isASCII ? UInt8($0.value) : UInt8(ascii: "?") })
        while bytes.count < 4 { bytes.append(UInt8(ascii: " ")) }
        self = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four characters of this code (Avocet's helper); bytes that are not printable ASCII show as `.`.
    public var fourCharString: String {
        let bytes = [24, 16, 8, 0].map { UInt8((self >> UInt32($0)) & 0xff) }
        return String(decoding: bytes.map { (0x20..<0x7f).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
    }
}
