import Foundation
@testable import MediaEngine
import Testing

/// The buffered source's rules, event by event, with no threads and no feeder.
@Suite struct FeedStateMachineTests {
    typealias Config = FeedStateMachine.Configuration
    /// Blocks of 16 bytes; network requests of 32 and on-demand ones of 32 (two blocks), as the first one is.
    static let small = Config(blockSize: 16, capacity: 64, readAhead: 32, maxRequests: 2, onDemandRequest: 32, onDemandCapacity: 64)

    /// Bytes 0, 1, 2, ... as a resource.
    static func resource(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0) } }

    /// A machine whose first request (id 1, still in flight) has brought `info`.
    static func answered(_ info: ContentInfo, configuration: Config = small) -> FeedStateMachine {
        var m = FeedStateMachine(configuration: configuration)
        m.prepare()
        _ = m.takeActions()
        m.received(info: info, for: 1)
        return m
    }

    func read(_ m: inout FeedStateMachine, at offset: Int64, count: Int) -> (FeedStateMachine.ReadOutcome, [UInt8]) {
        var buffer = [UInt8](repeating: 0xEE, count: count)
        let outcome = buffer.withUnsafeMutableBytes { m.read(at: offset, into: $0) }
        if case .copied(let n) = outcome { return (outcome, Array(buffer[0..<n])) }
        return (outcome, [])
    }

    func feed(_ m: inout FeedStateMachine, _ bytes: ArraySlice<UInt8>, for id: Int) {
        m.received(Data(bytes), for: id)
    }

    @Test func firstReadAsksForContentInformationAndWaits() {
        var m = FeedStateMachine(configuration: Self.small)
        #expect(read(&m, at: 0, count: 8).0 == .wait)
        let actions = m.takeActions()
        #expect(actions.start == [FeedRequest(id: 1, offset: 0, length: 32, wantsContentInfo: true)])
        #expect(read(&m, at: 0, count: 8).0 == .wait)
        #expect(m.takeActions().start.isEmpty, "one request for the content information, not one per read")
    }

    @Test func bytesAreServedAsTheyArriveBeforeTheRequestFinishes() {
        let data = Self.resource(100)
        var m = Self.answered(ContentInfo(length: 100), configuration: Self.small)
        feed(&m, data[0..<5], for: 1)
        let (outcome, bytes) = read(&m, at: 2, count: 10)
        #expect(outcome == .copied(3), "only what has arrived: a short read")
        #expect(bytes == [2, 3, 4])
        #expect(read(&m, at: 5, count: 4).0 == .wait, "the request in flight will bring byte 5")
        #expect(m.takeActions().start.isEmpty)
        feed(&m, data[5..<20], for: 1)
        #expect(read(&m, at: 5, count: 100).1 == Array(data[5..<16]), "a read stops at its block's end")
        #expect(read(&m, at: 16, count: 100).1 == Array(data[16..<20]))
    }

    @Test func networkModeReadsFarAheadOnDemandOneRequestAhead() {
        let data = Self.resource(200)
        var m = Self.answered(ContentInfo(length: 200), configuration: Self.small)
        feed(&m, data[0..<32], for: 1)
        m.finished(1, error: nil)
        _ = read(&m, at: 0, count: 16)
        #expect(m.takeActions().start.isEmpty, "32 bytes ahead are cached: enough")
        _ = read(&m, at: 16, count: 8)
        #expect(m.takeActions().start == [FeedRequest(id: 2, offset: 32, length: 32, wantsContentInfo: false)],
                "within half a read-ahead of the end of the cache: the next range")

        var d = Self.answered(ContentInfo(length: 200, isEntireLengthAvailableOnDemand: true), configuration: Self.small)
        feed(&d, data[0..<32], for: 1)
        d.finished(1, error: nil)
        _ = read(&d, at: 0, count: 4)
        #expect(d.takeActions().start.isEmpty, "on demand: nothing far ahead of the reader")
        _ = read(&d, at: 16, count: 16)
        #expect(d.takeActions().start == [FeedRequest(id: 2, offset: 32, length: 32, wantsContentInfo: false)],
                "on demand, a sequential reader near the end of what is here: the next request, no more")
        #expect(read(&d, at: 100, count: 4).0 == .wait)
        #expect(d.takeActions().start == [FeedRequest(id: 3, offset: 96, length: 32, wantsContentInfo: false)],
                "on demand: one request from the block that holds the byte")
    }

    @Test func aRequestThatFinishesShortEndsTheResource() {
        let data = Self.resource(40)
        var m = Self.answered(ContentInfo(length: 1000), configuration: Self.small)
        feed(&m, data[0..<20], for: 1)
        m.finished(1, error: nil)
        #expect(m.end == 20, "fewer bytes than asked: the resource ends there, whatever the length said")
        #expect(read(&m, at: 20, count: 4).0 == .end)
        #expect(read(&m, at: 5000, count: 4).0 == .end)
        #expect(read(&m, at: 19, count: 4).1 == [19])
    }

    @Test func anUnknownLengthIsFoundWhereTheDataStops() {
        let data = Self.resource(50)
        var m = Self.answered(ContentInfo(length: nil), configuration: Self.small)
        feed(&m, data[0..<32], for: 1)
        m.finished(1, error: nil)
        #expect(m.end == nil, "the request got all it asked for: more may follow")
        #expect(read(&m, at: 40, count: 4).0 == .wait)
        let next = m.takeActions().start
        #expect(next.map(\.offset) == [32])
        feed(&m, data[32..<50], for: next[0].id)
        m.finished(next[0].id, error: nil)
        #expect(m.end == 50)
        #expect(read(&m, at: 40, count: 40).1 == Array(data[40..<48]))
        #expect(read(&m, at: 50, count: 4).0 == .end)
    }

    @Test func anOffsetPastTheEndIsFinishedWithoutData() {
        var m = Self.answered(ContentInfo(length: nil), configuration: Self.small)
        m.finished(1, error: nil)
        #expect(m.end == 0, "nothing at all: an empty resource")
        #expect(read(&m, at: 0, count: 4).0 == .end)
    }

    @Test func aFailedRequestFailsTheSourceAndCancelsTheRest() {
        var m = Self.answered(ContentInfo(length: 1000), configuration: Self.small)
        _ = read(&m, at: 500, count: 4)
        #expect(m.takeActions().start.map(\.id) == [2])
        let error = MediaEngineError(.readFailed, source: "t", operation: "read", reason: "boom")
        m.finished(2, error: error)
        #expect(m.takeActions().cancel == [1])
        #expect(read(&m, at: 0, count: 4).0 == .failed(error))
        m.finished(1, error: nil)
        #expect(m.end == 1000, "events after the failure change nothing")
    }

    @Test func theCacheStaysWithinItsCapacity() {
        let data = Self.resource(400)
        var m = Self.answered(ContentInfo(length: 400), configuration: Config(blockSize: 16, capacity: 64, readAhead: 400, maxRequests: 2))
        for start in stride(from: 0, to: 400, by: 10) {
            feed(&m, data[start..<(start + 10)], for: 1)
        }
        #expect(m.statistics.bytesReceived == 400)
        #expect(m.statistics.peakCachedBytes <= 64 + 16, "at most one block over, while it fills")
        #expect(m.statistics.cachedBytes <= 64)
        #expect(read(&m, at: 390, count: 10).1 == Array(data[390..<400]), "the newest bytes stay")
        #expect(read(&m, at: 0, count: 4).0 == .wait, "the oldest went")
    }

    @Test func tooManyRequestsCancelTheOldest() {
        var m = Self.answered(ContentInfo(length: 10_000), configuration: Self.small)
        _ = read(&m, at: 1000, count: 4)
        #expect(m.takeActions().start.map(\.id) == [2])
        _ = read(&m, at: 5000, count: 4)
        let actions = m.takeActions()
        #expect(actions.start.map(\.id) == [3])
        #expect(actions.cancel == [1], "two in flight at most")
        #expect(m.requestsInFlight == [2, 3])
        m.received(Data([1, 2, 3]), for: 1)
        #expect(m.statistics.bytesReceived == 0, "answers for a cancelled request are ignored")
    }

    @Test func bytesBeyondTheRequestAreDropped() {
        let data = Self.resource(100)
        var m = Self.answered(ContentInfo(length: 100), configuration: Self.small)
        feed(&m, data[0..<100], for: 1)
        #expect(m.statistics.bytesReceived == 32, "the request asked for 32")
    }

    @Test func withoutByteRangesEverythingComesFromTheStart() {
        let data = Self.resource(100)
        var m = Self.answered(ContentInfo(length: 100, isByteRangeAccessSupported: false), configuration: Self.small)
        feed(&m, data[0..<100], for: 1)
        #expect(m.statistics.bytesReceived == 100, "the one request brings everything")
        #expect(read(&m, at: 80, count: 100).1 == Array(data[80..<96]))
        #expect(m.takeActions().start.isEmpty, "no read-ahead without ranges")
    }

    @Test func overlappingAnswersKeepTheFirstBytes() {
        let data = Self.resource(64)
        var m = Self.answered(ContentInfo(length: 64, isEntireLengthAvailableOnDemand: true), configuration: Config(blockSize: 16, capacity: 256, readAhead: 16, maxRequests: 4))
        feed(&m, data[0..<8], for: 1)
        m.cancelAll()
        _ = m.takeActions()
        #expect(read(&m, at: 10, count: 4).0 == .wait)
        let again = m.takeActions().start
        #expect(again.map(\.offset) == [0], "the block's start again")
        feed(&m, data[0..<16], for: again[0].id)
        #expect(read(&m, at: 0, count: 16).1 == Array(data[0..<16]))
    }

    /// A feeder without ranges that honours the length asked for (a delegate): its answer to the first
    /// request ends at that length, which is not the end; a read past it streams from the start, and
    /// however far ahead a read is, that one stream brings it: no request per read.
    @Test func withoutRangesALengthHonouringFeederIsReadAsOneStream() {
        let data = Self.resource(100)
        var m = Self.answered(ContentInfo(length: 100, isByteRangeAccessSupported: false))
        feed(&m, data[0..<32], for: 1)
        m.finished(1, error: nil)
        #expect(m.end == 100, "32 bytes were asked for and came: not the end")
        #expect(read(&m, at: 90, count: 4).0 == .wait)
        let stream = m.takeActions().start
        #expect(stream == [FeedRequest(id: 2, offset: 0, length: nil, wantsContentInfo: false)])
        for _ in 0..<5 { _ = read(&m, at: 90, count: 4) }
        #expect(m.takeActions().start.isEmpty, "the stream is coming: no new request however often the read asks")
        feed(&m, data[0..<100], for: 2)
        #expect(read(&m, at: 90, count: 4).1 == [90, 91, 92, 93])
    }

    /// An HTTP server may cap a range: a short answer with more to come by the known length is partial,
    /// and the next read asks again; one that brings nothing at all ends the resource.
    @Test func partialAnswersAreAskedAgainWhenTheFeederSaysSo() {
        let data = Self.resource(100)
        var m = Self.answered(ContentInfo(length: 100, shortAnswerEndsResource: false))
        feed(&m, data[0..<20], for: 1)
        m.finished(1, error: nil)
        #expect(m.end == 100)
        #expect(read(&m, at: 25, count: 4).0 == .wait)
        let again = m.takeActions().start
        #expect(again.map(\.offset) == [16], "from the block that holds the byte")
        m.finished(again[0].id, error: nil)
        #expect(m.end == 16, "nothing at all: the resource ends there after all")
    }

    @Test func tooManyRequestsCancelReadAheadFirst() {
        let data = Self.resource(1000)
        var m = Self.answered(ContentInfo(length: 1000), configuration: Config(blockSize: 16, capacity: 4096, readAhead: 32, maxRequests: 2, onDemandRequest: 32))
        feed(&m, data[0..<32], for: 1)
        m.finished(1, error: nil)
        _ = read(&m, at: 20, count: 4)
        let ahead = m.takeActions().start
        #expect(ahead.map(\.offset) == [32], "read-ahead")
        _ = read(&m, at: 500, count: 4)
        _ = m.takeActions()
        _ = read(&m, at: 800, count: 4)
        let actions = m.takeActions()
        #expect(actions.cancel == [ahead[0].id], "the read-ahead goes, not the request a read waits for")
    }

    @Test func recoveringForgetsAFailure() {
        var m = Self.answered(ContentInfo(length: 100))
        m.fail(MediaEngineError(.readFailed, source: "t", operation: "read", reason: "timed out"))
        if case .failed = read(&m, at: 0, count: 1).0 {} else { Issue.record("failed first") }
        m.recover()
        #expect(read(&m, at: 0, count: 1).0 == .wait)
        #expect(m.takeActions().start.map(\.offset) == [0], "asks again")
    }
}
