import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
internal import MediaEngine
internal import Locking
import Synchronization

/// What an asset's options say about its HTTP connections, shared by every feeder of the asset (its
/// media, and for HLS each playlist, segment and key).
struct HTTPConnectionSettings: Sendable {
    var headers: [String: String]
    /// Seconds a request waits for the server's first answer.
    var connectTimeout: Double
    /// Seconds a request may go without bytes before its reads fail.
    var readTimeout: Double
    /// Which connections may be made; nil connects wherever URLs and redirects lead (Apple's behaviour).
    var policy: AvocetURLPolicy?
    /// The bytes the asset may still receive from the network, shared by all its feeders; nil: no cap.
    var budget: HTTPByteBudget?
    /// The asset's URL, which the policy's and the budget's errors name: a nested resource's URL or a
    /// redirect's target may be an internal address the caller never gave.
    var assetURL: URL
}

/// The bytes an asset may receive over HTTP in all (`AvocetURLAssetHTTPMaximumBytesKey`), counted as
/// they arrive on the session's queue, by every feeder of the asset.
final class HTTPByteBudget: Sendable {
    let limit: Int64
    private let used = Locked<Int64>(0)

    init(limit: Int64) { self.limit = max(0, limit) }

    /// Counts `count` more bytes; false once the total passes the limit.
    func spend(_ count: Int) -> Bool {
        used.withLock { total in
            let (sum, overflow) = total.addingReportingOverflow(Int64(count))
            total = overflow ? .max : sum
            return total <= limit
        }
    }
}

/// Feeds an `http`/`https` asset's buffered source with range requests, through Foundation's
/// `URLSession` (libcurl underneath on Linux): TLS, redirects, keep-alive and proxies come with it,
/// and no other HTTP client is linked.
///
/// Each range becomes one `GET` with a `Range` header; the response's `Content-Range` gives the
/// resource's length. A `200` answer means the server ignores ranges: the source then reads from the
/// start only. `416` means the range starts past the end. Any other status fails the asset with the
/// status in the message. A request that gets no response within the connect timeout, or no bytes
/// for the read timeout, fails; cancellation cancels the transfer. Answers arrive on the session's
/// delegate queue and are handed to the source there; nothing blocks.
///
/// With a URL policy each connection is checked first (the host resolved on a resolver thread, `http`
/// pinned to the address checked) and redirects are followed here, one checked hop at a time.
final class HTTPFeeder: ByteFeeder {
    let name: String
    /// The read timeout: seconds a request may go without bytes before its reads fail.
    let stallTimeout: Double?
    private let url: URL
    private let settings: HTTPConnectionSettings
    /// This feeder's number in the process, never reused (an object's address may be, while a
    /// lookup of a feeder gone still runs).
    private let token: UInt64
    private static let tokens = Locked<UInt64>(0)

    init(url: URL, settings: HTTPConnectionSettings) {
        self.url = url
        self.settings = settings
        stallTimeout = settings.readTimeout
        name = url.absoluteString
        token = Self.tokens.withLock { next in
            next += 1
            return next
        }
    }

    func start(_ range: FeedRequest, sink: FeedSink) {
        let transfer = HTTPTransfer(id: range.id, offset: range.offset, url: url, sink: sink, rangeHeader: range.rangeHeader,
                                    settings: settings, key: TransferKey(feeder: token, id: range.id))
        transfer.connect(to: url)
    }

    func cancel(_ requestID: Int) {
        HTTPSession.for(settings).cancel(TransferKey(feeder: token, id: requestID))
    }

    deinit {
        HTTPSession.for(settings).cancelAll(of: token)
    }
}

/// Identifies one range request of one feeder.
struct TransferKey: Hashable, Sendable {
    let feeder: UInt64
    let id: Int
}

/// One range request in flight: makes its connections (one, or one per redirect hop when Avocet follows
/// redirects itself) and turns the response and its bytes into feed events.
final class HTTPTransfer: @unchecked Sendable {
    // @unchecked Sendable: touched only on the session's serial delegate queue, and before each
    // connection by the thread that starts it (the feeder's caller, or the session's queue for a
    // redirect hop); the hops follow one another, never overlap.
    let id: Int
    let offset: Int64
    let url: URL
    let key: TransferKey
    weak var sink: (any FeedSink)?
    private let rangeHeader: String
    private let settings: HTTPConnectionSettings
    /// Bytes of the body to drop before the range starts (a server that answered 200 to a range).
    private var skip: Int64 = 0
    var responded = false
    /// The URL of the connection in flight: `url`, or the target of the last redirect followed.
    private var current: URL
    private var redirects = 0

    init(id: Int, offset: Int64, url: URL, sink: any FeedSink, rangeHeader: String, settings: HTTPConnectionSettings,
         key: TransferKey) {
        self.id = id
        self.offset = offset
        self.url = url
        self.sink = sink
        self.rangeHeader = rangeHeader
        self.settings = settings
        self.key = key
        current = url
    }

    /// Starts the connection to `target` (the transfer's URL, or a redirect's target). Without a policy
    /// the request goes to Foundation at once; with one, the host is resolved and checked first on a
    /// resolver thread, and an `http` request is pinned to the address checked.
    func connect(to target: URL) {
        current = target
        let session = HTTPSession.for(settings)
        guard let policy = settings.policy else {
            let request = request(to: target)
            session.start(key: key, transfer: self, connectTimeout: settings.connectTimeout) { ready in ready(.success(request)) }
            return
        }
        let redirects = redirects
        session.start(key: key, transfer: self, connectTimeout: settings.connectTimeout) { [self] ready in
            checkedRequest(to: target, redirects: redirects, policy: policy, then: ready)
        }
    }

    /// The request for one range of `target`: to the URL's host, or to `pin` (the address checked, as
    /// `pinned(_:to:)` rewrites the URL) with the URL's own `Host` header.
    private func request(to target: URL, pin: (url: URL, host: String)? = nil) -> URLRequest {
        var request = URLRequest(url: pin?.url ?? target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: settings.readTimeout)
        // Credentials go to the asset's own origin only: not to another host a redirect leads to
        // (as libcurl does unless told otherwise).
        let sameOrigin = Self.origin(of: target) == Self.origin(of: url)
        for (field, value) in settings.headers {
            if !sameOrigin && ["authorization", "cookie", "proxy-authorization"].contains(field.lowercased()) { continue }
            request.setValue(value, forHTTPHeaderField: field)
        }
        if let pin { request.setValue(pin.host, forHTTPHeaderField: "Host") }
        request.setValue(rangeHeader, forHTTPHeaderField: "Range")
        // Bytes as stored: a compressed body would not match the offsets asked for.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        return request
    }

    /// `target` with its host replaced by `address`, and the `Host` header naming the original host and
    /// port; nil when the URL cannot be rewritten (the connection is then not made: never unpinned).
    private static func pinned(_ target: URL, to address: AvocetIPAddress) -> (url: URL, host: String)? {
        guard var parts = URLComponents(url: target, resolvingAgainstBaseURL: true), let host = parts.percentEncodedHost,
              !host.isEmpty else { return nil }
        let header = host + (parts.port.map { ":\($0)" } ?? "")
        parts.percentEncodedHost = address.isIPv4 ? address.description : "[\(address.description)]"
        if parts.port == nil { parts.port = 80 }
        return parts.url.map { ($0, header) }
    }

    /// The scheme, host and port of a URL (the port the scheme implies when it names none).
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// Resolves `target`'s host (on a thread of the resolver's own, within the connect timeout), asks
    /// the policy, and hands `then` the request or the refusal.
    private func checkedRequest(to target: URL, redirects: Int, policy: AvocetURLPolicy,
                                then ready: @escaping @Sendable (Result<URLRequest, MediaEngineError>) -> Void) {
        guard let written = target.host, !written.isEmpty else { return ready(.failure(refusal("the URL names no host"))) }
        let host = HostResolver.unbracketed(written)
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") {
            // libcurl answers these names with loopback itself, whatever DNS or /etc/hosts would say
            // (RFC 6761): check what it connects to, not what the resolver says.
            let loopback = [[127, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]].compactMap { AvocetIPAddress(bytes: $0) }
            return ready(decide(target, host: host, addresses: loopback, redirects: redirects, policy: policy))
        }
        let assetURL = settings.assetURL
        HostResolver.resolve(host, within: settings.connectTimeout) { [self, host] result in
            switch result {
            case .failure(let failure):
                ready(.failure(MediaEngineError(.readFailed, source: assetURL.absoluteString, operation: "load",
                                                reason: "the host name could not be resolved (\(failure.reason))",
                                                underlying: NSError(domain: NSURLErrorDomain, code: NSURLErrorCannotFindHost))))
            case .success(let found):
                ready(decide(target, host: host, addresses: found.compactMap { AvocetIPAddress(bytes: $0) },
                             redirects: redirects, policy: policy))
            }
        }
    }

    /// The policy's verdict on a connection to `target` at `addresses`, as the request to send.
    private func decide(_ target: URL, host: String, addresses: [AvocetIPAddress], redirects: Int,
                        policy: AvocetURLPolicy) -> Result<URLRequest, MediaEngineError> {
        guard !addresses.isEmpty else { return .failure(refusal("the host has no address")) }
        let connection = AvocetURLPolicy.Connection(url: target, host: host, addresses: addresses, redirectCount: redirects)
        if case .refuse(let rule) = policy.evaluate(connection) { return .failure(refusal(rule)) }
        guard target.scheme?.lowercased() == "http" else { return .success(request(to: target)) }
        // Pinned to an IPv4 address: Foundation's URLSession on Linux cannot request a URL whose host is
        // an IPv6 literal (NSURLErrorBadURL), and connecting by name would let the name resolve anew.
        guard let pin = addresses.first(where: \.isIPv4) else {
            return .failure(refusal("an http URL must resolve to an IPv4 address to be pinned to the address checked"))
        }
        guard let pinned = Self.pinned(target, to: pin) else {
            return .failure(refusal("the URL cannot be sent to the address checked"))
        }
        return .success(request(to: target, pin: pinned))
    }

    /// The error of a connection the policy (or a rule that goes with it) refused. Names the asset's
    /// URL and the rule, never the address or the redirect's target.
    func refusal(_ rule: String) -> MediaEngineError {
        let reason = "refused by the URL policy: \(rule)"
        return MediaEngineError(.refused, source: settings.assetURL.absoluteString, operation: "load", reason: reason)
    }

    /// What the session does after a response.
    enum Outcome {
        /// Let the body come.
        case proceed
        /// The transfer ended here (an error, or a range past the end).
        case stop
        /// A redirect Avocet follows itself: connect again to this URL.
        case redirect(URL)
    }

    /// Reads the status and headers.
    func response(_ response: URLResponse) -> Outcome {
        guard let http = response as? HTTPURLResponse else {
            responded = true
            fail(reason: "the server's answer is not HTTP", code: NSURLErrorBadServerResponse)
            return .stop
        }
        let status = http.statusCode
        if let policy = settings.policy, [301, 302, 303, 307, 308].contains(status) {
            return redirect(location: http.value(forHTTPHeaderField: "Location"), policy: policy)
        }
        responded = true
        switch status {
        case 206:
            let range = Self.contentRange(http.value(forHTTPHeaderField: "Content-Range"))
            guard let range, range.first == offset else {
                fail(reason: "the server answered a range request with another range", code: NSURLErrorBadServerResponse)
                return .stop
            }
            sink?.received(info: ContentInfo(length: range.total, isByteRangeAccessSupported: true,
                                             contentType: http.mimeType, shortAnswerEndsResource: false), for: id)
        case 200:
            // The server sends the whole resource: no ranges.
            skip = offset
            let length = http.expectedContentLength
            sink?.received(info: ContentInfo(length: length >= 0 ? length : nil, isByteRangeAccessSupported: false,
                                             contentType: http.mimeType, shortAnswerEndsResource: false), for: id)
        case 416:
            // The range starts at or past the end: the resource ends before it.
            sink?.received(info: ContentInfo(length: nil, isByteRangeAccessSupported: true), for: id)
            sink?.finished(id, error: nil)
            return .stop
        default:
            let text = HTTPURLResponse.localizedString(forStatusCode: status)
            fail(reason: "the server answered \(status) \(text)",
                 code: status == 404 || status == 410 ? NSURLErrorFileDoesNotExist
                     : status == 401 || status == 403 ? NSURLErrorNoPermissionsToReadFile : NSURLErrorBadServerResponse,
                 status: status)
            return .stop
        }
        return .proceed
    }

    /// A redirect's next hop, when the policy lets one be followed; else the transfer fails.
    private func redirect(location: String?, policy: AvocetURLPolicy) -> Outcome {
        guard policy.followsRedirects else {
            sink?.finished(id, error: refusal("it follows no redirects"))
            return .stop
        }
        guard redirects < policy.maximumRedirects else {
            sink?.finished(id, error: refusal("more than \(policy.maximumRedirects) redirects"))
            return .stop
        }
        guard let location, let next = URL(string: location, relativeTo: current)?.absoluteURL,
              ["http", "https"].contains(next.scheme?.lowercased()) else {
            sink?.finished(id, error: refusal("a redirect leads to a URL that is not http or https"))
            return .stop
        }
        redirects += 1
        return .redirect(next)
    }

    /// Takes bytes of the body; false when the asset's byte budget is spent (the transfer has failed).
    func received(_ data: Data) -> Bool {
        if let budget = settings.budget, !budget.spend(data.count) {
            sink?.finished(id, error: MediaEngineError(
                .readFailed, source: settings.assetURL.absoluteString, operation: "load",
                reason: "the asset received more than \(budget.limit) bytes from the network, the most its options allow",
                underlying: NSError(domain: NSURLErrorDomain, code: NSURLErrorDataLengthExceedsMaximum)))
            return false
        }
        var data = data
        if skip > 0 {
            let dropped = min(Int64(data.count), skip)
            skip -= dropped
            data = data.dropFirst(Int(dropped))
            if data.isEmpty { return true }
        }
        sink?.received(data, for: id)
        return true
    }

    func completed(_ error: (any Error)?) {
        guard let error else {
            sink?.finished(id, error: nil)
            return
        }
        let ns = error as NSError
        let reason: String
        switch ns.code {
        case NSURLErrorTimedOut: reason = "the server did not answer in time"
        case NSURLErrorCannotConnectToHost: reason = "the connection was refused"
        case NSURLErrorNetworkConnectionLost: reason = "the server closed the connection before the end"
        case NSURLErrorCannotFindHost: reason = "the host name could not be resolved"
        default: reason = ns.localizedDescription
        }
        // With a policy the client's own error is kept without its details: they name the URL connected
        // to, which may be the address a name was pinned to or a redirect's target.
        let underlying = settings.policy == nil ? ns : NSError(domain: ns.domain, code: ns.code)
        sink?.finished(id, error: MediaEngineError(.readFailed, source: url.absoluteString, operation: "load", reason: reason,
                                                   underlying: underlying))
    }

    func fail(reason: String, code: Int, status: Int? = nil) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: reason, NSURLErrorFailingURLErrorKey: url]
        if let status { info["AVErrorHTTPStatusCodeKey"] = status }
        sink?.finished(id, error: MediaEngineError(.readFailed, source: url.absoluteString, operation: "load", reason: reason,
                                                   underlying: NSError(domain: NSURLErrorDomain, code: code, userInfo: info)))
    }

    /// `bytes FIRST-LAST/TOTAL` (TOTAL may be `*`).
    static func contentRange(_ value: String?) -> (first: Int64, total: Int64?)? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"), let first = Int64(parts[0][..<dash]) else { return nil }
        return (first, Int64(parts[1]))
    }
}

/// A `URLSession` for assets, and the routing of its delegate callbacks to transfers. The process has
/// two: one for assets without a URL policy (Foundation follows their redirects), one for assets with
/// one, whose connections (and connection pool) are never shared with an unchecked asset's and whose
/// redirects Foundation never follows.
final class HTTPSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: the routing tables sit behind a lock; the session is thread-safe.
    static let shared = HTTPSession(checked: false)
    static let checked = HTTPSession(checked: true)

    /// The session for an asset's transfers.
    static func `for`(_ settings: HTTPConnectionSettings) -> HTTPSession {
        settings.policy == nil ? shared : checked
    }

    /// Whether this session's transfers have a URL policy: Avocet follows their redirects itself.
    private let isChecked: Bool

    private struct Routes {
        var byTask: [Int: (key: TransferKey, transfer: HTTPTransfer)] = [:]
        var byKey: [TransferKey: URLSessionDataTask] = [:]
        /// Transfers asked for whose task is not made yet.
        var starting: Set<TransferKey> = []
        /// Cancellations that came before their transfer's start (both are sent from any thread).
        var cancelledEarly: Set<TransferKey> = []
    }

    private let routes = Locked(Routes())
    private let queue: OperationQueue
    private let starter = DispatchQueue(label: "avocet.http.start")
    private var session: URLSession?

    private init(checked: Bool) {
        isChecked = checked
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = checked ? "avocet.http.checked" : "avocet.http"
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Starts a transfer's connection. Returns at once: `prepare` hands over the request when it has
    /// it (at once, or after a host lookup on a thread of the resolver's), and the task is made and
    /// resumed on a queue of the session's own, since Foundation's `resume()` waits for the session's
    /// internal queue, which must never hold up the caller (a thread of Swift's cooperative pool,
    /// often). A request `prepare` refuses fails the transfer, unless it was cancelled meanwhile.
    func start(key: TransferKey, transfer: HTTPTransfer, connectTimeout: Double,
               prepare: @escaping @Sendable (@escaping @Sendable (Result<URLRequest, MediaEngineError>) -> Void) -> Void) {
        let cancelled = routes.withLock { r -> Bool in
            if r.cancelledEarly.remove(key) != nil { return true }
            r.starting.insert(key)
            return false
        }
        if cancelled { return }
        prepare { [self] result in
            switch result {
            case .success(let request):
                starter.async { [self] in resume(request, key: key, transfer: transfer, connectTimeout: connectTimeout) }
            case .failure(let error):
                let wanted = routes.withLock { $0.starting.remove(key) != nil }
                if wanted { queue.addOperation { transfer.sink?.finished(transfer.id, error: error) } }
            }
        }
    }

    private func resume(_ request: URLRequest, key: TransferKey, transfer: HTTPTransfer, connectTimeout: Double) {
        guard let session else { return }
        let task = session.dataTask(with: request)
        let wanted = routes.withLock { r -> Bool in
            // Cancelled before it started: never started.
            guard r.starting.remove(key) != nil else { return false }
            r.byTask[task.taskIdentifier] = (key, transfer)
            r.byKey[key] = task
            return true
        }
        guard wanted else { return }
        task.resume()
        // No answer at all within the connect timeout: the server is not there, or hangs.
        DispatchQueue.global().asyncAfter(deadline: .now() + connectTimeout) { [weak self, weak task] in
            guard let self, let task else { return }
            self.queue.addOperation {
                guard let entry = self.routes.withLock({ $0.byTask[task.taskIdentifier] }), !entry.transfer.responded else { return }
                self.forget(task.taskIdentifier)
                task.cancel()
                entry.transfer.fail(reason: "the server did not answer within \(Int(connectTimeout)) s", code: NSURLErrorTimedOut)
            }
        }
    }

    /// Cancels a transfer, on the session's own queue: Foundation's `cancel()` waits for the session's
    /// internal queue, and the caller may be a thread of Swift's cooperative pool.
    func cancel(_ key: TransferKey) {
        let task = routes.withLock { r -> URLSessionDataTask? in
            if r.starting.remove(key) != nil { return nil }
            guard let task = r.byKey.removeValue(forKey: key) else {
                r.cancelledEarly.insert(key)
                return nil
            }
            r.byTask.removeValue(forKey: task.taskIdentifier)
            return task
        }
        if let task { starter.async { task.cancel() } }
    }

    func cancelAll(of feeder: UInt64) {
        let tasks = routes.withLock { r -> [URLSessionDataTask] in
            r.starting = r.starting.filter { $0.feeder != feeder }
            r.cancelledEarly = r.cancelledEarly.filter { $0.feeder != feeder }
            let keys = r.byKey.keys.filter { $0.feeder == feeder }
            return keys.compactMap { key in
                guard let task = r.byKey.removeValue(forKey: key) else { return nil }
                r.byTask.removeValue(forKey: task.taskIdentifier)
                return task
            }
        }
        if !tasks.isEmpty { starter.async { for task in tasks { task.cancel() } } }
    }

    private func transfer(_ task: URLSessionTask) -> HTTPTransfer? {
        routes.withLock { $0.byTask[task.taskIdentifier]?.transfer }
    }

    private func forget(_ taskIdentifier: Int) {
        routes.withLock { r in
            if let entry = r.byTask.removeValue(forKey: taskIdentifier) { r.byKey.removeValue(forKey: entry.key) }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // With a URL policy Avocet follows the redirect itself, checked (the 3xx answer comes to
        // `didReceive response`); without one Foundation follows it, as on Apple's platforms. A task no
        // longer routed (being cancelled) follows nothing.
        completionHandler(!isChecked && transfer(task) != nil ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let transfer = transfer(dataTask) else { return completionHandler(.cancel) }
        switch transfer.response(response) {
        case .proceed:
            completionHandler(.allow)
        case .stop:
            forget(dataTask.taskIdentifier)
            completionHandler(.cancel)
        case .redirect(let next):
            forget(dataTask.taskIdentifier)
            completionHandler(.cancel)
            transfer.connect(to: next)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(dataTask), !transfer.received(data) else { return }
        forget(dataTask.taskIdentifier)
        starter.async { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfer(task) else { return }
        forget(task.taskIdentifier)
        if !transfer.responded, error == nil {
            transfer.fail(reason: "the server closed the connection without an answer", code: NSURLErrorBadServerResponse)
            return
        }
        transfer.completed(error)
    }
}
