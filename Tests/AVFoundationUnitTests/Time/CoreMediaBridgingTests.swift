import AVFoundation
import Testing

@Suite("NSValue boxing of CoreMedia types")
struct NSValueBoxingTests {
    @Test func roundTrips() {
        let time = CMTime(value: 1001, timescale: 30000, flags: [.valid, .hasBeenRounded], epoch: 3)
        let boxed = NSValue(time: time).timeValue
        #expect(boxed.value == 1001 && boxed.timescale == 30000 && boxed.epoch == 3 && boxed.flags == time.flags)
        let range = CMTimeRange(start: CMTime(value: 5, timescale: 10), duration: CMTime(value: 3, timescale: 1))
        #expect(NSValue(timeRange: range).timeRangeValue == range)
        let mapping = CMTimeMapping(source: range, target: CMTimeRange(start: .zero, duration: CMTime(value: 6, timescale: 1)))
        #expect(NSValue(timeMapping: mapping).timeMappingValue == mapping)
    }

    @Test func wrongKindGivesInvalid() {
        #expect(!NSValue(timeRange: .zero).timeValue.isValid)
        #expect(!NSValue(time: .zero).timeRangeValue.isValid)
        #expect(!NSNumber(value: 3).timeValue.isValid)
    }

    @Test func boundaryTimesAsApplesCodeWritesThem() {
        let times = [CMTime(value: 1, timescale: 2), CMTime(value: 3, timescale: 2)].map { NSValue(time: $0) }
        #expect(times.map(\.timeValue.seconds) == [0.5, 1.5])
    }
}

@Suite("AVError")
struct AVErrorTests {
    @Test func applesCodesAndDomain() {
        #expect(AVError.errorDomain == "AVFoundationErrorDomain")
        #expect(AVError.Code.unknown.rawValue == -11800)
        #expect(AVError.Code.fileFormatNotRecognized.rawValue == -11828)
        #expect(AVError.Code.fileFailedToParse.rawValue == -11829)
        #expect(AVError.Code.operationCancelled.rawValue == -11878)
        #expect(AVError.fileFormatNotRecognized == .fileFormatNotRecognized)
    }

    @Test func bridgesToNSError() {
        let error = AVError(.fileFailedToParse, userInfo: [NSLocalizedDescriptionKey: "x.mp4: cannot open: truncated"])
        let ns = error as NSError
        #expect(ns.domain == "AVFoundationErrorDomain" && ns.code == -11829)
        #expect(ns.localizedDescription == "x.mp4: cannot open: truncated")
        #expect(error.localizedDescription == "x.mp4: cannot open: truncated")
    }

    @Test func catchesByCode() {
        func fail() throws { throw AVError(.fileFormatNotRecognized) }
        do {
            try fail()
        } catch AVError.fileFormatNotRecognized {
            return
        } catch {
            Issue.record("not matched by code")
        }
        Issue.record("not thrown")
    }
}
