import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
internal import MediaEngine
internal import Locking
import Synchronization

/// One request from an asset to its resource loader's delegate: content information about the
/// resource, a range of its bytes, or both.
///
/// The delegate answers through ``contentInformationRequest`` (fill in its properties) and
/// ``dataRequest`` (``AVAssetResourceLoadingDataRequest/respond(with:)``), then ends the request exactly
/// once with ``finishLoading()`` or ``finishLoading(with:)``; or the asset ends it first by cancelling
/// it (``isCancelled``, and the delegate's `resourceLoader(_:didCancel:)`). Anything after the end is
/// ignored. Safe to use from any thread.
open class AVAssetResourceLoadingRequest: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `response` and `redirect` sit behind a lock; the rest is immutable or the
    // channel's (behind its own locks).
    /// The request for the resource: its URL, and a `Range` header for the bytes asked for.
    public let request: URLRequest
    /// Non-nil when the asset asks what the resource is (only the first request of an asset does).
    public let contentInformationRequest: AVAssetResourceLoadingContentInformationRequest?
    /// Non-nil when the asset asks for bytes.
    public let dataRequest: AVAssetResourceLoadingDataRequest?
    /// Who is asking.
    public let requestor = AVAssetResourceLoadingRequestor()
    let channel: ResourceRequestChannel
    private let extras = Locked<(response: URLResponse?, redirect: URLRequest?)>((nil, nil))

    init(request: URLRequest, contentInformationRequest: AVAssetResourceLoadingContentInformationRequest?,
         dataRequest: AVAssetResourceLoadingDataRequest?, channel: ResourceRequestChannel) {
        self.request = request
        self.contentInformationRequest = contentInformationRequest
        self.dataRequest = dataRequest
        self.channel = channel
        super.init()
    }

    /// Whether the request was finished (by ``finishLoading()`` or ``finishLoading(with:)``).
    open var isFinished: Bool { channel.phase == .finished }

    /// Whether the asset cancelled the request before it was finished.
    open var isCancelled: Bool { channel.phase == .cancelled }

    /// A response the delegate may set before finishing. Recorded; Avocet does not read it.
    open var response: URLResponse? {
        get { extras.withLock { $0.response } }
        set { extras.withLock { $0.response = newValue } }
    }

    /// A redirect the delegate may set before finishing: a request finished with a redirect to an
    /// `http` or `https` URL, and no bytes, is asked of that URL instead, and so is every later request
    /// of the asset (with the asset's HTTP options). A redirect anywhere else fails the load with an
    /// error that names it.
    open var redirect: URLRequest? {
        get { extras.withLock { $0.redirect } }
        set { extras.withLock { $0.redirect = newValue } }
    }

    /// Ends the request successfully. If the data request got fewer bytes than it asked for, the
    /// resource is taken to end at its ``AVAssetResourceLoadingDataRequest/currentOffset``. Ignored after
    /// the request ended. A ``redirect`` set before is followed.
    open func finishLoading() {
        channel.finish(error: nil, redirect: redirect?.url)
    }

    /// Ends the request with a failure. Ignored after the request ended.
    ///
    /// - Parameter error: Why the request failed: the asset's loads fail with
    ///   ``AVError/Code-swift.enum/failedToLoadMediaData`` whose underlying error is this one. Nil
    ///   fails them too, with a reason that says no error was given.
    open func finishLoading(with error: (any Error)?) {
        let cause = error.map { $0 as NSError }
        let reason = cause.map { "the resource loader's delegate failed the request: \($0.localizedDescription)" }
            ?? "the resource loader's delegate failed the request without an error"
        channel.finish(error: MediaEngineError(.readFailed, source: channel.name, operation: "load", reason: reason, underlying: cause))
    }

    /// Ends the request with a response, bytes and a redirect at once, then as ``finishLoading()`` does.
    ///
    /// - Parameters:
    ///   - response: Set as ``response`` when not nil.
    ///   - data: Handed to the data request's ``AVAssetResourceLoadingDataRequest/respond(with:)`` when
    ///     not nil.
    ///   - redirect: Set as ``redirect`` when not nil.
    @available(*, deprecated, message: "Use finishLoading() or finishLoading(with:)")
    open func finishLoading(with response: URLResponse?, data: Data?, redirect: URLRequest?) {
        if let response { self.response = response }
        if let redirect { self.redirect = redirect }
        if let data { dataRequest?.respond(with: data) }
        finishLoading()
    }
}
