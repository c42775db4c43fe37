import Foundation
internal import MediaEngine
import Synchronization

/// A range of bytes an asset wants from a resource loader delegate: from ``requestedOffset``,
/// ``requestedLength`` bytes (or everything to the end when ``requestsAllDataToEndOfResource``).
///
/// Answer with ``respond(with:)`` as many times as convenient, each call giving the bytes that follow
/// the previous ones (``currentOffset`` advances); the asset uses them as they arrive, before the
/// request is finished. Then call the loading request's
/// ``AVAssetResourceLoadingRequest/finishLoading()``: if fewer bytes than asked were given, the
/// resource is taken to end there. A ``requestedOffset`` past the end is answered with
/// ``AVAssetResourceLoadingRequest/finishLoading()`` alone. Calls after the request finished or was
/// cancelled are ignored.
open class AVAssetResourceLoadingDataRequest: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `currentOffset` sits behind a lock; the rest is immutable.
    /// The position of the first byte asked for.
    public let requestedOffset: Int64
    /// How many bytes are asked for. When the resource's length is unknown, offset plus length may go
    /// past its end: give what there is, then finish.
    public let requestedLength: Int
    /// Whether everything from ``requestedOffset`` to the end is asked for (``requestedLength`` is then
    /// as large as the rest of the resource may be).
    public let requestsAllDataToEndOfResource: Bool
    /// Where bytes go, shared with the loading request that owns this one.
    let channel: ResourceRequestChannel

    init(requestedOffset: Int64, requestedLength: Int, requestsAllDataToEndOfResource: Bool, channel: ResourceRequestChannel) {
        self.requestedOffset = requestedOffset
        self.requestedLength = requestedLength
        self.requestsAllDataToEndOfResource = requestsAllDataToEndOfResource
        self.channel = channel
        super.init()
    }

    /// The position of the next byte to give: ``requestedOffset`` plus every byte given so far.
    open var currentOffset: Int64 { requestedOffset.addingSaturating(channel.bytesDelivered) }

    /// Gives the next bytes of the range. May be called many times, from any thread; the asset can
    /// read the bytes at once. Ignored once the request is finished or cancelled. Cost: one copy into
    /// the asset's cache.
    ///
    /// - Parameter data: The bytes that follow those given before, from ``currentOffset`` on; it
    ///   advances ``currentOffset`` by `data.count`.
    open func respond(with data: Data) {
        channel.deliver(data)
    }
}
