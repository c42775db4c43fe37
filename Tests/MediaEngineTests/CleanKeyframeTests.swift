internal import CFFmpeg
@testable import MediaEngine
import Testing

/// Which keyframes a decoder can start afresh at, as a reader at pace needs to know before it changes
/// decoders: told from the first coded picture's NAL unit type, in length-prefixed (MP4, Matroska) and
/// start-code (MPEG-TS) packets, and never past a packet's end.
@Suite("Clean keyframes")
struct CleanKeyframeTests {
    /// An avcC record whose NAL lengths take four bytes (its SPS and PPS lists left empty).
    static let avcC: [UInt8] = [1, 0x64, 0, 0x1F, 0xFF, 0xE0, 0]
    /// An hvcC record (23 bytes, no arrays) whose NAL lengths take four bytes.
    static let hvcC: [UInt8] = [1] + [UInt8](repeating: 0, count: 20) + [0x03, 0]

    static func clean(_ codec: AVCodecID, _ extradata: [UInt8], _ packet: [UInt8]) -> Bool {
        extradata.withUnsafeBytes { config in
            packet.withUnsafeBytes { CleanKeyframe(codec: codec, extradata: config).isClean($0) }
        }
    }

    static func knows(_ codec: AVCodecID) -> Bool {
        [UInt8]().withUnsafeBytes { CleanKeyframe(codec: codec, extradata: $0).knowsCodec }
    }

    /// NAL units with four-byte lengths.
    static func units(_ units: [[UInt8]]) -> [UInt8] {
        units.flatMap { unit in [0, 0, 0, UInt8(unit.count)] + unit }
    }

    @Test("H.264 in MP4: an IDR picture is clean, after a delimiter and an SEI too; a plain I-picture is not")
    func h264LengthPrefixed() {
        #expect(Self.clean(AV_CODEC_ID_H264, Self.avcC, Self.units([[0x65, 0x88, 0x84]])))
        #expect(Self.clean(AV_CODEC_ID_H264, Self.avcC, Self.units([[0x09, 0xF0], [0x06, 0x05, 0x01], [0x65, 0x88]])))
        // Type 1 (a picture that is not IDR) even with I slices, and an IDR after it does not count.
        #expect(!Self.clean(AV_CODEC_ID_H264, Self.avcC, Self.units([[0x41, 0x9A], [0x65, 0x88]])))
        // Parameter sets alone hold no picture.
        #expect(!Self.clean(AV_CODEC_ID_H264, Self.avcC, Self.units([[0x67, 0x64], [0x68, 0xEE]])))
    }

    @Test("H.264 with start codes: three- and four-byte codes, the IDR after its SPS and PPS; without them, or not opening with a start code, not clean")
    func h264StartCodes() {
        let sets: [UInt8] = [0, 0, 1, 0x67, 0x64, 0x00, 0, 0, 1, 0x68, 0xEE]
        #expect(Self.clean(AV_CODEC_ID_H264, [], [0, 0, 0, 1, 0x09, 0xF0] + sets + [0, 0, 1, 0x65, 0x88, 0x84]))
        #expect(!Self.clean(AV_CODEC_ID_H264, [], [0, 0, 0, 1, 0x09, 0xF0] + sets + [0, 0, 1, 0x41, 0x9A]))
        // A fresh decoder would have no parameter sets for it.
        #expect(!Self.clean(AV_CODEC_ID_H264, [], [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x65, 0x88, 0x84]))
        #expect(!Self.clean(AV_CODEC_ID_H264, [], [0, 0, 1, 0x67, 0x64, 0, 0, 1, 0x65, 0x88]), "no PPS")
        // Bytes that only hold 00 00 01 inside (a length, say) are not read as start codes.
        #expect(!Self.clean(AV_CODEC_ID_H264, [], [0x12] + sets + [0, 0, 1, 0x65, 0x88]))
        #expect(!Self.clean(AV_CODEC_ID_H264, [], [0, 0, 1]))
    }

    @Test("HEVC: IDR and BLA pictures are clean, a CRA picture (an open group) is not")
    func hevc() {
        let vps: [UInt8] = [0x40, 0x01]
        for (type, clean) in [(19, true), (20, true), (16, true), (21, false), (1, false)] {
            let picture: [UInt8] = [UInt8(type << 1), 0x01, 0xAF]
            #expect(Self.clean(AV_CODEC_ID_HEVC, Self.hvcC, Self.units([vps, picture])) == clean, "type \(type)")
            let sets: [UInt8] = [0, 0, 0, 1] + vps + [0, 0, 1, 0x42, 0x01, 0, 0, 1, 0x44, 0x01]
            #expect(Self.clean(AV_CODEC_ID_HEVC, [], sets + [0, 0, 1] + picture) == clean, "type \(type), start codes")
            #expect(!Self.clean(AV_CODEC_ID_HEVC, [], [0, 0, 0, 1] + vps + [0, 0, 1] + picture), "type \(type), no SPS or PPS")
        }
    }

    @Test("an hvcC record of version 0 is still read as one (FFmpeg's rule): its packets' lengths are not taken for start codes")
    func hevcOldRecord() {
        var old = Self.hvcC
        old[0] = 0
        // A CRA picture 0x126 bytes long: its length's last bytes, 00 00 01 26, look like a start code
        // and an IDR header.
        let cra: [UInt8] = [0, 0, 0x01, 0x26, 0x2A, 0x01] + [UInt8](repeating: 0xAB, count: 0x124)
        #expect(!Self.clean(AV_CODEC_ID_HEVC, old, cra))
        #expect(Self.clean(AV_CODEC_ID_HEVC, old, [0, 0, 0, 3, 0x26, 0x01, 0xAF]))
    }

    @Test("lengths that run past the packet, or are zero, make it not clean; an empty packet too")
    func damagedLengths() {
        #expect(!Self.clean(AV_CODEC_ID_H264, Self.avcC, [0, 0, 0, 9, 0x65, 0x88]))
        #expect(!Self.clean(AV_CODEC_ID_H264, Self.avcC, [0, 0, 0, 0, 0x65, 0x88]))
        #expect(!Self.clean(AV_CODEC_ID_H264, Self.avcC, [0xFF, 0xFF, 0xFF, 0xFF, 0x65]))
        #expect(!Self.clean(AV_CODEC_ID_H264, Self.avcC, []))
        #expect(!Self.clean(AV_CODEC_ID_HEVC, Self.hvcC, [0, 0, 0]))
    }

    @Test("VP8, VP9 and AV1 keyframes are clean; another codec's are never")
    func otherCodecs() {
        for codec in [AV_CODEC_ID_VP8, AV_CODEC_ID_VP9, AV_CODEC_ID_AV1] {
            #expect(Self.clean(codec, [], [0x82, 0x49]))
            #expect(Self.knows(codec))
        }
        #expect(!Self.clean(AV_CODEC_ID_MPEG4, [], [0, 0, 1, 0xB6]))
        #expect(!Self.knows(AV_CODEC_ID_MPEG2VIDEO))
    }
}
