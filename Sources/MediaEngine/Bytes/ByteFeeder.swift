import Foundation

/// An asynchronous supplier of byte ranges: a resource loader delegate, an HTTP client.
///
/// A `BufferedByteSource` asks its feeder for large ranges and the feeder answers whenever it likes,
/// from any thread, through the `FeedSink` it was given: the content information first (for the
/// request that asks for it), then the bytes in order, then exactly one `finished`. `cancel` means the
/// source no longer wants a request's answers; the feeder tells whoever serves it and may still send
/// answers, which are ignored.
package protocol ByteFeeder: AnyObject, Sendable {
    /// The URL, for messages.
    var name: String { get }
    /// Seconds a request may go without any answer before reads fail as timed out; nil waits as long as
    /// it takes (a resource loader delegate, which only cancellation ends, as on Apple's platforms).
    var stallTimeout: Double? { get }
    /// Starts fetching `request`. Must not block: called with no lock held, on any thread.
    func start(_ request: FeedRequest, sink: FeedSink)
    /// Stops fetching a request started earlier. Must not block.
    func cancel(_ requestID: Int)
}

/// One range a buffered source wants from its feeder.
package struct FeedRequest: Sendable, Equatable {
    package var id: Int
    package var offset: Int64
    /// How many bytes from `offset`; nil asks for everything to the end of the resource.
    package var length: Int64?
    /// Whether the feeder should also report the resource's content information.
    package var wantsContentInfo: Bool

    package init(id: Int, offset: Int64, length: Int64?, wantsContentInfo: Bool) {
        self.id = id
        self.offset = offset
        self.length = length
        self.wantsContentInfo = wantsContentInfo
    }

    /// The range as an HTTP `Range` header value: `bytes=FIRST-LAST`, or `bytes=FIRST-` to the end.
    package var rangeHeader: String {
        let last = length.map { String(offset.addingSaturating($0) - 1) } ?? ""
        return "bytes=\(offset)-\(last)"
    }
}

/// What a feeder knows about the whole resource.
package struct ContentInfo: Sendable, Equatable {
    /// Total length in bytes; nil when unknown (the resource ends where a request comes up short).
    package var length: Int64?
    /// Whether ranges other than "from the start" can be asked for. Without it the source reads
    /// sequentially from the start and cannot go back further than its cache holds.
    package var isByteRangeAccessSupported: Bool
    /// Whether any range arrives promptly when asked (local or cached storage): the source then asks for
    /// just what a read needs instead of reading ahead as for a network.
    package var isEntireLengthAvailableOnDemand: Bool
    /// The content type the feeder reported (a UTI or a MIME type), if any.
    package var contentType: String?
    /// Whether a request answered with fewer bytes than asked means the resource ends there (a resource
    /// loader's rule, Apple's), or only that this answer was partial (an HTTP server may cap a range),
    /// so that, while the known length says there is more, the source asks again.
    package var shortAnswerEndsResource: Bool

    package init(length: Int64?, isByteRangeAccessSupported: Bool = true,
                 isEntireLengthAvailableOnDemand: Bool = false, contentType: String? = nil,
                 shortAnswerEndsResource: Bool = true) {
        self.length = length
        self.isByteRangeAccessSupported = isByteRangeAccessSupported
        self.isEntireLengthAvailableOnDemand = isEntireLengthAvailableOnDemand
        self.contentType = contentType
        self.shortAnswerEndsResource = shortAnswerEndsResource
    }
}

/// Where a feeder sends its answers: a `BufferedByteSource`. Safe to call from any thread; answers for
/// a request that was cancelled or already finished are ignored.
package protocol FeedSink: AnyObject, Sendable {
    func received(info: ContentInfo, for requestID: Int)
    /// The next bytes of a request. Kept as they are (no copy) until evicted: a slice keeps its whole
    /// storage alive that long, so answer with data of the range's own size.
    func received(_ data: Data, for requestID: Int)
    /// The request ended: with `error`, or (nil) having sent all it had. Fewer bytes than asked for
    /// mean that the resource ends there.
    func finished(_ requestID: Int, error: MediaEngineError?)
}

