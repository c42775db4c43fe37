import Foundation
internal import Locking
import Synchronization

/// What the delegate tells about the whole resource, on the first request of an asset: its type, its
/// length, whether ranges can be asked for, and whether all of it is at hand.
///
/// Set the properties before the first ``AVAssetResourceLoadingDataRequest/respond(with:)`` or
/// ``AVAssetResourceLoadingRequest/finishLoading()`` of the request that carries this one; they are
/// read then, once.
open class AVAssetResourceLoadingContentInformationRequest: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the settable fields sit behind `state`'s lock.
    private struct State {
        var contentType: String?
        var contentLength: Int64 = 0
        var isByteRangeAccessSupported = false
        var renewalDate: Date?
        var isEntireLengthAvailableOnDemand = false
    }

    private let state = Locked(State())

    /// The content types Avocet reads (``AVFileType`` raw values, which are UTIs).
    public let allowedContentTypes: [String]?

    init(allowedContentTypes: [String]?) {
        self.allowedContentTypes = allowedContentTypes
        super.init()
    }

    /// The resource's type as a UTI (``AVFileType/mp4``'s raw value, ...). Informative: Avocet recognises
    /// the container from its bytes.
    open var contentType: String? {
        get { state.withLock { $0.contentType } }
        set { state.withLock { $0.contentType = newValue } }
    }

    /// The resource's length in bytes. Zero or less means unknown: the resource then ends where a data
    /// request is finished with fewer bytes than it asked for.
    open var contentLength: Int64 {
        get { state.withLock { $0.contentLength } }
        set { state.withLock { $0.contentLength = newValue } }
    }

    /// Whether the delegate can answer data requests at any offset. Without it (the default, as on
    /// Apple's platforms) every data request starts at 0 and asks for everything to the end, and the
    /// asset reads what it needs from the stream as it passes.
    open var isByteRangeAccessSupported: Bool {
        get { state.withLock { $0.isByteRangeAccessSupported } }
        set { state.withLock { $0.isByteRangeAccessSupported = newValue } }
    }

    /// When the resource must be renewed. Recorded; Avocet never renews.
    open var renewalDate: Date? {
        get { state.withLock { $0.renewalDate } }
        set { state.withLock { $0.renewalDate = newValue } }
    }

    /// Whether every byte of the resource is at hand (local or cached storage). With it the asset asks
    /// for just the bytes it needs, one small range at a time, and caches little; without it (the
    /// default) the asset treats the delegate as a network: it asks for large ranges ahead of its reads
    /// and keeps them in a bounded cache.
    open var isEntireLengthAvailableOnDemand: Bool {
        get { state.withLock { $0.isEntireLengthAvailableOnDemand } }
        set { state.withLock { $0.isEntireLengthAvailableOnDemand = newValue } }
    }
}
