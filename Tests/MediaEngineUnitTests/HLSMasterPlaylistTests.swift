@testable import MediaEngine
import FixtureSupport
import Foundation
import Testing

/// The master playlist's variant entries, read strictly: well-formed attributes are kept, anything
/// else left out, never trusted.
@Suite("HLS master playlist attributes")
struct HLSMasterPlaylistTests {
    @Test func entriesAndTheirAttributes() {
        let text = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=350000,RESOLUTION=320x240,FRAME-RATE=25.000,CODECS="avc1.42c00d,mp4a.40.2",VIDEO-RANGE=SDR
        high/index.m3u8
        #EXT-X-STREAM-INF:CODECS="mp4a.40.5",BANDWIDTH=150000
        low/index.m3u8
        """
        let variants = HLSMasterPlaylist.variants(in: text[...])
        #expect(variants.count == 2)
        #expect(variants[0] == HLSMasterPlaylist.Variant(bandwidth: 400_000, averageBandwidth: 350_000, width: 320, height: 240,
                                                         frameRate: 25, codecs: ["avc1.42c00d", "mp4a.40.2"], videoRange: "SDR"))
        #expect(variants[1].bandwidth == 150_000 && variants[1].codecs == ["mp4a.40.5"] && variants[1].width == nil)
    }

    @Test func malformedValuesAreLeftOut() {
        let text = """
        #EXT-X-STREAM-INF:BANDWIDTH=-5,AVERAGE-BANDWIDTH=99999999999999999999,RESOLUTION=640x,FRAME-RATE=nan,CODECS="unclosed
        a.m3u8
        #EXT-X-STREAM-INF:RESOLUTION=0x480,FRAME-RATE=1e9,BANDWIDTH=1,BANDWIDTH=2
        b.m3u8
        #EXT-X-STREAM-INF:
        c.m3u8
        """
        let variants = HLSMasterPlaylist.variants(in: text[...])
        #expect(variants.count == 3)
        #expect(variants[0] == HLSMasterPlaylist.Variant(), "every value out of range or malformed")
        #expect(variants[1].width == nil && variants[1].frameRate == nil)
        #expect(variants[1].bandwidth == 1, "a name given twice keeps its first value")
        #expect(variants[2] == HLSMasterPlaylist.Variant())
        // Bandwidths past a terabit are no real stream's (Int64.max would not survive a Double).
        let huge = HLSMasterPlaylist.variants(in: "#EXT-X-STREAM-INF:BANDWIDTH=9223372036854775807,AVERAGE-BANDWIDTH=1000000000001\nv.m3u8\n"[...])
        #expect(huge.first?.bandwidth == nil && huge.first?.averageBandwidth == nil)
    }

    /// A stranger's playlist: seeded mutations of a real one (bytes flipped, quotes, commas, equals
    /// signs and line breaks put in, lines cut or repeated) are read without a trap, every value in its
    /// bounds, never more than the most entries.
    @Test func mutatedPlaylistsNeverTrap() {
        let seed = Array("""
        #EXTM3U
        #EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=350000,RESOLUTION=320x240,FRAME-RATE=25.000,CODECS="avc1.42c00d,mp4a.40.2",VIDEO-RANGE=SDR
        high/index.m3u8

        """.utf8)
        var random = SplitMix64(seed: 22)
        let specials = Array("\",=\nx#:-.".utf8)
        for _ in 0..<4_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.insert(specials.randomElement(using: &random) ?? 0, at: at)
                case 2: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...20, using: &random)))
                default: bytes.insert(contentsOf: seed.prefix(Int.random(in: 0...seed.count, using: &random)), at: at)
                }
                if bytes.isEmpty { bytes = seed }
            }
            let variants = HLSMasterPlaylist.variants(in: String(decoding: bytes, as: UTF8.self)[...])
            #expect(variants.count <= HLSMasterPlaylist.maximumVariants)
            for v in variants {
                #expect((v.bandwidth ?? 1) > 0 && (v.width ?? 1) > 0 && (v.height ?? 1) > 0)
                #expect(v.frameRate.map { $0 > 0 && $0.isFinite } ?? true)
            }
        }
        // Entries past the most are left out.
        let many = String(repeating: "#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", count: HLSMasterPlaylist.maximumVariants + 5)
        #expect(HLSMasterPlaylist.variants(in: many[...]).count == HLSMasterPlaylist.maximumVariants)
    }

    @Test func aMediaPlaylistHasNoVariants() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nsegment0.ts\n#EXT-X-ENDLIST\n"
        #expect(HLSMasterPlaylist.variants(in: text[...]).isEmpty)
        #expect(HLSMasterPlaylist.attributeList("A=1,B=\"x,y\",C=z"[...]) == ["A": "1", "B": "x,y", "C": "z"])
    }

    @Test func renditionsAndTheSubtitlesGroupOfAVariant() {
        let text = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog,public.accessibility.describes-music-and-sound",URI="en/index.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Forced",LANGUAGE="en",FORCED=YES,URI="forced/index.m3u8"
        #EXT-X-MEDIA:GROUP-ID="no-type",NAME="x"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Main"
        #EXT-X-STREAM-INF:BANDWIDTH=1000,SUBTITLES="subs"
        v/index.m3u8
        """
        let renditions = HLSMasterPlaylist.renditions(in: text[...])
        #expect(renditions.map(\.type) == ["SUBTITLES", "SUBTITLES", "AUDIO"], "an entry without a TYPE is left out")
        #expect(renditions[0].isDefault && renditions[0].autoselect && !renditions[0].forced && renditions[0].uri == "en/index.m3u8")
        #expect(renditions[0].characteristics == ["public.accessibility.transcribes-spoken-dialog", "public.accessibility.describes-music-and-sound"])
        #expect(renditions[1].forced && !renditions[1].isDefault && renditions[1].name == "Forced")
        #expect(renditions[2].uri == nil)
        #expect(HLSMasterPlaylist.variants(in: text[...]).first?.subtitles == "subs")
    }

    @Test func mediaPlaylistSegments() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6.006,\nseg0.vtt\n#EXTINF:bad,\nseg1.vtt\n#EXT-X-DISCONTINUITY\n#EXTINF:4,title\n  seg2.vtt  \nstray.vtt\n#EXT-X-ENDLIST\n"
        let segments = HLSMasterPlaylist.segments(in: text[...])
        #expect(segments == [.init(duration: 6.006, uri: "seg0.vtt"), .init(duration: 0, uri: "seg1.vtt"), .init(duration: 4, uri: "seg2.vtt")],
                "a URI with no EXTINF before it is no segment")
        let many = String(repeating: "#EXTINF:1,\ns.vtt\n", count: HLSMasterPlaylist.maximumSegments + 5)
        #expect(HLSMasterPlaylist.segments(in: many[...]).count == HLSMasterPlaylist.maximumSegments)
    }
}
