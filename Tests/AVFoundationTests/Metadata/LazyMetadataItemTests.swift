import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// Items whose value a handler gives when first loaded (`init(propertiesOf:valueLoadingHandler:)`).
@Suite("Metadata items with a value-loading handler")
struct LazyMetadataItemTests {
    /// A template as an app makes one: an identifier and a language, and a value the new item ignores.
    func template() -> AVMutableMetadataItem {
        let item = AVMutableMetadataItem()
        item.identifier = .commonIdentifierArtwork
        item.locale = Locale(identifier: "en")
        item.value = "ignored" as NSString
        return item
    }

    @Test func theHandlerRunsOnceForEveryLoad() async throws {
        let calls = Locked(0)
        let cover = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let item = AVMetadataItem(propertiesOf: template()) { request in
            calls.withLock { $0 += 1 }
            #expect(request.metadataItem?.identifier == .commonIdentifierArtwork)
            request.respond(value: cover as NSData)
        }
        #expect(item.identifier == .commonIdentifierArtwork && item.locale?.identifier == "en", "the template's properties")
        #expect(calls.withLock { $0 } == 0, "nothing is asked before a load")
        if case .notYetLoaded = item.status(of: .value) {} else { Issue.record("the value is not loaded yet") }

        async let a = item.load(.dataValue)
        async let b = item.load(.dataValue)
        async let c = item.load(.stringValue)
        let (first, second, text) = try await (a, b, c)
        #expect(first == cover && second == cover)
        #expect(text == nil, "data has no string form")
        #expect(calls.withLock { $0 } == 1)
        if case .loaded = item.status(of: .value) {} else { Issue.record("loaded once answered") }
        #expect(try await item.load(.dataValue) == cover)
        #expect(calls.withLock { $0 } == 1, "kept once answered")
    }

    @Test func aFailureIsTheLoadsError() async throws {
        struct ServerDown: Error {}
        let item = AVMetadataItem(propertiesOf: template()) { request in request.respond(error: ServerDown()) }
        await #expect(throws: ServerDown.self) { try await item.load(.value) }
        if case .failed = item.status(of: .stringValue) {} else { Issue.record("the status says failed") }
    }

    @Test func aRequestLetGoFailsTheLoadInsteadOfHanging() async throws {
        let item = AVMetadataItem(propertiesOf: template()) { _ in }
        do {
            _ = try await item.load(.value)
            Issue.record("an unanswered request must fail the load")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(error.localizedDescription.contains("without answering"))
        }
    }

    @Test func aCancelledLoadStopsWaitingAndALaterAnswerStillCounts() async throws {
        let kept = Locked<AVMetadataItemValueRequest?>(nil)
        let item = AVMetadataItem(propertiesOf: template()) { request in kept.withLock { $0 = request } }
        let waiting = Task { try await item.load(.stringValue) }
        await until("the handler has the request") { kept.withLock { $0 != nil } }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        kept.withLock { $0 }?.respond(value: "Late" as NSString)
        kept.withLock { $0?.respond(value: "Later" as NSString) }   // the first answer counts
        #expect(try await item.load(.stringValue) == "Late")
    }

    @Test @available(*, deprecated, message: "exercises the legacy API") func theSynchronousGettersNeverWait() async throws {
        let kept = Locked<AVMetadataItemValueRequest?>(nil)
        let item = AVMetadataItem(propertiesOf: template()) { request in kept.withLock { $0 = request } }
        #expect(item.stringValue == nil, "not answered yet: nil, and the handler is asked")
        await until("the handler has the request") { kept.withLock { $0 != nil } }
        #expect(item.statusOfValue(forKey: "value", error: nil) == .loading)
        kept.withLock { $0 }?.respond(value: NSNumber(value: 3))
        #expect(item.numberValue == 3 && item.stringValue == "3")
        #expect(item.statusOfValue(forKey: "stringValue", error: nil) == .loaded)
        #expect((item.copy() as? AVMetadataItem)?.numberValue == 3)
        #expect((item.mutableCopy() as? AVMutableMetadataItem)?.numberValue == 3)

        let other = AVMetadataItem(propertiesOf: template()) { request in request.respond(value: "Shore Song" as NSString) }
        let called = Locked(false)
        other.loadValuesAsynchronously(forKeys: ["stringValue"]) { called.withLock { $0 = true } }
        await until("the legacy completion handler ran") { called.withLock { $0 } }
        #expect(other.stringValue == "Shore Song")
        let spelled = AVMetadataItem(propertiesOfMetadataItem: template()) { $0.respond(value: "x" as NSString) }
        #expect(try await spelled.load(.stringValue) == "x")
        // Made on the mutable class, the handler gives the value until one is set.
        let mutable = AVMutableMetadataItem(propertiesOf: template()) { $0.respond(value: "from the handler" as NSString) }
        #expect(try await mutable.load(.stringValue) == "from the handler")
        mutable.value = "set" as NSString
        #expect(try await mutable.load(.stringValue) == "set")
    }
}
