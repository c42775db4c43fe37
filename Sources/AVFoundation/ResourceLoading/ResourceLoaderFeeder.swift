import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
internal import MediaEngine
internal import Locking
import Synchronization

/// Feeds an asset's buffered source from its resource loader's delegate: each range the source wants
/// becomes an `AVAssetResourceLoadingRequest` handed to the delegate on its queue, one call at a time;
/// the delegate's answers flow back through the request's channel. A cancelled range is marked
/// cancelled and, if the delegate had seen it, reported with `resourceLoader(_:didCancel:)` on its
/// queue. Never blocks: a delegate that does not answer holds no thread.
///
/// A request the delegate finishes with a `redirect` to an `http` or `https` URL, and no bytes, is
/// asked again of that URL, and so is every later request of the asset (with the asset's HTTP
/// options); a redirect anywhere else fails the request.
final class ResourceLoaderFeeder: ByteFeeder {
    let name: String
    /// None: a delegate may take as long as it likes; only cancellation ends the wait, as on Apple's platforms.
    let stallTimeout: Double? = nil
    private let url: URL
    private let loader: AVAssetResourceLoader
    /// Makes the feeder for a URL the delegate redirected to.
    private let redirectFeeder: @Sendable (URL) -> (any ByteFeeder)?

    /// A request out at the delegate, with the route it went by.
    private struct Entry: Sendable {
        let request: AVAssetResourceLoadingRequest
        let route: DelegateRoute
        let queue: DispatchQueue
        /// Set on `queue` once the delegate has seen the request: only then does it hear `didCancel`.
        let presented: Flag
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    private struct State {
        var requests: [Int: Entry] = [:]
        /// Cancellations that arrived before their request's start (both are sent from any thread).
        var cancelledEarly: Set<Int> = []
        /// A serial queue on the delegate's queue (which may be concurrent): requests arrive in order.
        var serial: (target: DispatchQueue, queue: DispatchQueue)?
        /// Where the delegate redirected the asset: every request goes there from then on.
        var redirected: (any ByteFeeder)?
    }

    private let state = Locked(State())

    init(url: URL, loader: AVAssetResourceLoader, redirectFeeder: @escaping @Sendable (URL) -> (any ByteFeeder)?) {
        self.url = url
        self.loader = loader
        self.redirectFeeder = redirectFeeder
        name = url.absoluteString
    }

    func start(_ range: FeedRequest, sink: FeedSink) {
        let (cancelled, redirected) = state.withLock { ($0.cancelledEarly.remove(range.id) != nil, $0.redirected) }
        if cancelled { return }
        if let redirected { return redirected.start(range, sink: sink) }
        guard let route = loader.route else {
            let scheme = url.scheme ?? ""
            sink.finished(range.id, error: MediaEngineError(
                .readFailed, source: name, operation: "load",
                reason: "Avocet does not load '\(scheme):' URLs itself, and the asset's resource loader has no delegate to ask (set one with resourceLoader.setDelegate(_:queue:) before loading)",
                underlying: NSError(domain: NSURLErrorDomain, code: NSURLErrorUnsupportedURL,
                                    userInfo: [NSLocalizedDescriptionKey: "unsupported URL", NSURLErrorFailingURLErrorKey: url])))
            return
        }
        let channel = ResourceRequestChannel(
            id: range.id, name: name, sink: sink,
            contentInformation: range.wantsContentInfo
                ? AVAssetResourceLoadingContentInformationRequest(allowedContentTypes: AVURLAsset.audiovisualTypes().map(\.rawValue))
                : nil,
            // Weakly, as the channel holds the source: a delegate that keeps the request keeps neither.
            onRedirect: { [weak self, weak sink] target in
                guard let self, let sink else { return false }
                return self.follow(target, range: range, sink: sink)
            })
        let length = range.length.map { Int(clamping: $0) } ?? Int.max
        let data = AVAssetResourceLoadingDataRequest(requestedOffset: range.offset, requestedLength: length,
                                                     requestsAllDataToEndOfResource: range.length == nil, channel: channel)
        var request = URLRequest(url: url)
        request.setValue(range.rangeHeader, forHTTPHeaderField: "Range")
        let loading = AVAssetResourceLoadingRequest(request: request, contentInformationRequest: channel.contentInformation,
                                                    dataRequest: data, channel: channel)
        let entry = state.withLock { s -> Entry in
            // Forget requests that ended: the delegate keeps what it still needs.
            s.requests = s.requests.filter { $0.value.request.channel.phase == .open }
            let queue: DispatchQueue
            if let serial = s.serial, serial.target === route.queue {
                queue = serial.queue
            } else {
                queue = DispatchQueue(label: "avocet.resource-loader", target: route.queue)
                s.serial = (route.queue, queue)
            }
            let entry = Entry(request: loading, route: route, queue: queue, presented: Flag())
            s.requests[range.id] = entry
            return entry
        }
        let loader = self.loader
        entry.queue.async { [self] in
            guard channel.phase == .open else { return }
            entry.presented.set()
            // A delegate gone since the request was made answers nothing: the request fails.
            let accepted = route.delegate?.resourceLoader(loader, shouldWaitForLoadingOfRequestedResource: loading) ?? false
            if !accepted {
                channel.finish(error: MediaEngineError(
                    .readFailed, source: name, operation: "load",
                    reason: "the resource loader's delegate declined the request (shouldWaitForLoadingOfRequestedResource returned false)",
                    underlying: NSError(domain: NSURLErrorDomain, code: NSURLErrorResourceUnavailable,
                                        userInfo: [NSLocalizedDescriptionKey: "the delegate cannot load the resource",
                                                   NSURLErrorFailingURLErrorKey: url])))
            }
        }
    }

    /// Sends `range` (and every later request) to where the delegate redirected it. False when the
    /// target is not an http or https URL.
    private func follow(_ target: URL, range: FeedRequest, sink: FeedSink) -> Bool {
        guard let feeder = redirectFeeder(target) else { return false }
        let chosen = state.withLock { s -> any ByteFeeder in
            if let already = s.redirected { return already }
            s.redirected = feeder
            return feeder
        }
        chosen.start(range, sink: sink)
        return true
    }

    func cancel(_ requestID: Int) {
        let (found, redirected) = state.withLock { s -> (Entry?, (any ByteFeeder)?) in
            if let entry = s.requests.removeValue(forKey: requestID) { return (entry, nil) }
            // After a redirect the request is the redirect target's; before, its start is on its way
            // from another thread, and it never will be.
            if s.redirected == nil { s.cancelledEarly.insert(requestID) }
            return (nil, s.redirected)
        }
        redirected?.cancel(requestID)
        guard let entry = found, entry.request.channel.cancel() else { return }
        let loader = self.loader
        // After the request's own delivery on the same serial queue: a request the delegate never saw
        // (cancelled first) is not reported.
        entry.queue.async {
            if entry.presented.isSet {
                entry.route.delegate?.resourceLoader(loader, didCancel: entry.request)
            }
        }
    }
}
