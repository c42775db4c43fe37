internal import CFFmpeg

/// Whether a keyframe packet is a clean start: a decoder opened afresh at it gives the same pictures
/// from it on as one that has decoded the stream up to it. True of H.264's IDR pictures and HEVC's IDR
/// and BLA pictures, and of VP8, VP9 and AV1 keyframes; not of H.264 I-pictures that are not IDR nor of
/// HEVC CRA pictures (an open group of pictures: the pictures after them in decoding order may refer to
/// the group before, and a fresh decoder drops or damages them), nor of any other codec's keyframes,
/// which this does not look into.
///
/// Reads the packet up to its first coded picture, from memory the packet holds: lengths that run past
/// the packet's end make it not clean. A stream with start codes (MPEG-TS, raw H.264 and HEVC), whose
/// parameter sets travel with its pictures, counts a keyframe as clean only when the packet holds
/// them before the picture (H.264's SPS and PPS; HEVC's VPS, SPS and PPS): a fresh decoder has only the
/// stream's header.
struct CleanKeyframe {
    private enum Kind { case h264, hevc, alwaysClean, unknown }
    private let kind: Kind
    /// Bytes of each NAL unit's length (MP4/MOV and Matroska: 1, 2 or 4), or nil for start codes
    /// (Annex B: MPEG-TS, raw streams).
    private let lengthSize: Int?

    /// For a stream of codec `codec` whose decoder configuration is `extradata`.
    init(codec: AVCodecID, extradata: UnsafeRawBufferPointer) {
        switch codec {
        case AV_CODEC_ID_H264:
            kind = .h264
            // avcC: version 1, then the length size less one in the low two bits of its fifth byte.
            lengthSize = extradata.count >= 7 && extradata[0] == 1 ? Int(extradata[4] & 3) + 1 : nil
        case AV_CODEC_ID_HEVC:
            kind = .hevc
            // hvcC, as FFmpeg tells it: anything that does not open with a start code; the length size
            // less one in byte 21's low bits.
            lengthSize = extradata.count >= 23 && !CleanKeyframe.startsWithStartCode(extradata) ? Int(extradata[21] & 3) + 1 : nil
        case AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1:
            (kind, lengthSize) = (.alwaysClean, nil)
        default:
            (kind, lengthSize) = (.unknown, nil)
        }
    }

    /// Whether the stream's keyframes can be told apart at all (an unknown codec's never count as clean).
    var knowsCodec: Bool { kind != .unknown }

    /// Whether `bytes`, a packet flagged as a keyframe, is a clean start.
    func isClean(_ bytes: UnsafeRawBufferPointer) -> Bool {
        switch kind {
        case .alwaysClean: return true
        case .unknown: return false
        case .h264, .hevc:
            guard let type = firstPictureType(bytes) else { return false }
            return kind == .h264 ? type == 5 : (16...20).contains(type)
        }
    }

    /// The NAL unit type of the packet's first coded picture (H.264 types 1 to 5, HEVC 0 to 31), or nil
    /// when it holds none, its units do not fit it, or (start codes) the parameter sets do not come
    /// before it.
    private func firstPictureType(_ bytes: UnsafeRawBufferPointer) -> Int? {
        if lengthSize == nil && !CleanKeyframe.startsWithStartCode(bytes) { return nil }
        // The parameter sets a start-code stream's packet must carry: bits 0 to 2 for VPS, SPS, PPS.
        var sets: UInt8 = lengthSize == nil ? 0 : 0b111
        var found: Int?
        forEachUnitHeader(bytes) { header in
            let type = kind == .h264 ? Int(header & 0x1F) : Int((header >> 1) & 0x3F)
            switch (kind, type) {
            case (.h264, 7), (.hevc, 33): sets |= 0b010
            case (.h264, 8), (.hevc, 34): sets |= 0b100
            case (.hevc, 32): sets |= 0b001
            default: break
            }
            let isPicture = kind == .h264 ? (1...5).contains(type) : type < 32
            if isPicture { found = type }
            return !isPicture
        }
        if kind == .h264 { sets |= 0b001 }
        return sets == 0b111 ? found : nil
    }

    /// Calls `body` with each NAL unit's first byte, in order, while it returns true.
    private func forEachUnitHeader(_ bytes: UnsafeRawBufferPointer, _ body: (UInt8) -> Bool) {
        if let lengthSize {
            var at = 0
            while bytes.count - at > lengthSize {
                var length = 0
                for i in 0..<lengthSize { length = length << 8 | Int(bytes[at + i]) }
                at += lengthSize
                guard length > 0, length <= bytes.count - at else { return }
                guard body(bytes[at]) else { return }
                at += length
            }
            return
        }
        // Start codes: 00 00 01 (a 00 00 00 01 holds one), the unit's header after it.
        var zeros = 0
        var at = 0
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            if byte == 0 {
                zeros += 1
            } else {
                if byte == 1, zeros >= 2, at < bytes.count {
                    guard body(bytes[at]) else { return }
                    at += 1
                }
                zeros = 0
            }
        }
    }

    private static func startsWithStartCode(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 3 && bytes[0] == 0 && bytes[1] == 0 && (bytes[2] == 1 || (bytes.count >= 4 && bytes[2] == 0 && bytes[3] == 1))
    }
}
