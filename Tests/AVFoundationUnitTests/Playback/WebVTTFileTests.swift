@testable import AVFoundation
import Foundation
import Testing

/// The cues and timestamp map of a WebVTT segment, as HLS subtitle renditions carry them.
@Suite("WebVTT segments")
struct WebVTTFileTests {
    @Test func cuesAndTheTimestampMap() {
        let text = "WEBVTT\r\nX-TIMESTAMP-MAP=LOCAL:00:00:01.000,MPEGTS:900000\r\n\r\nNOTE a comment\r\n\r\n"
            + "STYLE\n::cue { color: red }\n\n"
            + "one\n00:01.500 --> 00:02.000 align:start\n<b>First</b>\nline two\n\n"
            + "01:00:00.000 --> 01:00:01.250\nAn hour in\n\n"
            + "00:05.000 --> 00:04.000\nends before it starts\n\n"
            + "00:99.000 --> 01:00.000\nbad seconds\n"
        let (map, cues) = WebVTTFile.parse(text)
        #expect(map == WebVTTFile.TimestampMap(mpegts: 900_000, local: 1))
        #expect(cues == [WebVTTFile.Cue(start: 1.5, end: 2, text: "<b>First</b>\nline two"), WebVTTFile.Cue(start: 3600, end: 3601.25, text: "An hour in")])
    }

    @Test func malformedTimesAndMapsAreNil() {
        for bad in ["", "1.000", "00:00:00", "00:00.00", "-1:00.000", "00:60.000", "00:00:00.0000", "aa:bb.ccc"] {
            #expect(WebVTTFile.time(bad) == nil, "\(bad)")
        }
        #expect(WebVTTFile.timestampMap("X-TIMESTAMP-MAP=MPEGTS:900000") == nil)
        #expect(WebVTTFile.timestampMap("X-TIMESTAMP-MAP=MPEGTS:99999999999999,LOCAL:00:00:00.000") == nil, "beyond 33 bits")
        #expect(WebVTTFile.parse("not webvtt at all").cues.isEmpty)
    }
}
