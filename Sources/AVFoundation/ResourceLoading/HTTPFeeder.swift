import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
internal import MediaEngine
internal import Locking
import Synchronization

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
final class HTTPFeeder: ByteFeeder {
    let name: String
    /// The read timeout: seconds a request may go without bytes before its reads fail.
    let stallTimeout: Double?
    private let url: URL
    private let headers: [String: String]
    private let connectTimeout: Double

    init(url: URL, headers: [String: String], connectTimeout: Double, readTimeout: Double) {
        self.url = url
        self.headers = headers
        self.connectTimeout = connectTimeout
        stallTimeout = readTimeout
        name = url.absoluteString
    }

    func start(_ range: FeedRequest, sink: FeedSink) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: stallTimeout ?? 60)
        for (field, value) in headers { request.setValue(value, forHTTPHeaderField: field) }
        request.setValue(range.rangeHeader, forHTTPHeaderField: "Range")
        // Bytes as stored: a compressed body would not match the offsets asked for.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        HTTPSession.shared.start(request, transfer: HTTPTransfer(id: range.id, offset: range.offset, url: url, sink: sink),
                                 connectTimeout: connectTimeout, key: TransferKey(feeder: ObjectIdentifier(self), id: range.id))
    }

    func cancel(_ requestID: Int) {
        HTTPSession.shared.cancel(TransferKey(feeder: ObjectIdentifier(self), id: requestID))
    }

    deinit {
        HTTPSession.shared.cancelAll(of: ObjectIdentifier(self))
    }
}

/// Identifies one range request of one feeder.
struct TransferKey: Hashable, Sendable {
    let feeder: ObjectIdentifier
    let id: Int
}

/// One range request in flight: turns the response and its bytes into feed events.
final class HTTPTransfer: @unchecked Sendable {
    // @unchecked Sendable: touched only on the session's serial delegate queue (and once, before the
    // task starts, by the thread that starts it).
    let id: Int
    let offset: Int64
    let url: URL
    weak var sink: (any FeedSink)?
    /// Bytes of the body to drop before the range starts (a server that answered 200 to a range).
    private var skip: Int64 = 0
    var responded = false

    init(id: Int, offset: Int64, url: URL, sink: any FeedSink) {
        self.id = id
        self.offset = offset
        self.url = url
        self.sink = sink
    }

    /// Reads the status and headers. False when the transfer ends here (an error, or a range past the end).
    func response(_ response: URLResponse) -> Bool {
        responded = true
        guard let http = response as? HTTPURLResponse else {
            fail(reason: "the server's answer is not HTTP", code: NSURLErrorBadServerResponse)
            return false
        }
        let status = http.statusCode
        switch status {
        case 206:
            let range = Self.contentRange(http.value(forHTTPHeaderField: "Content-Range"))
            guard let range, range.first == offset else {
                fail(reason: "the server answered a range request with another range", code: NSURLErrorBadServerResponse)
                return false
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
            return false
        default:
            let text = HTTPURLResponse.localizedString(forStatusCode: status)
            fail(reason: "the server answered \(status) \(text)",
                 code: status == 404 || status == 410 ? NSURLErrorFileDoesNotExist
                     : status == 401 || status == 403 ? NSURLErrorNoPermissionsToReadFile : NSURLErrorBadServerResponse,
                 status: status)
            return false
        }
        return true
    }

    func received(_ data: Data) {
        var data = data
        if skip > 0 {
            let dropped = min(Int64(data.count), skip)
            skip -= dropped
            data = data.dropFirst(Int(dropped))
            if data.isEmpty { return }
        }
        sink?.received(data, for: id)
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
        sink?.finished(id, error: MediaEngineError(.readFailed, source: url.absoluteString, operation: "load", reason: reason, underlying: ns))
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

/// The process's one `URLSession` for assets, and the routing of its delegate callbacks to transfers.
final class HTTPSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: the routing tables sit behind a lock; the session is thread-safe.
    static let shared = HTTPSession()

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

    override init() {
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "avocet.http"
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Starts a transfer. Returns at once: the task is made and resumed on a queue of the session's
    /// own, since Foundation's `resume()` waits for the session's internal queue, which must never hold
    /// up the caller (a thread of Swift's cooperative pool, often).
    func start(_ request: URLRequest, transfer: HTTPTransfer, connectTimeout: Double, key: TransferKey) {
        let cancelled = routes.withLock { r -> Bool in
            if r.cancelledEarly.remove(key) != nil { return true }
            r.starting.insert(key)
            return false
        }
        if cancelled { return }
        starter.async { [self] in
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

    func cancelAll(of feeder: ObjectIdentifier) {
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

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let transfer = transfer(dataTask) else { return completionHandler(.cancel) }
        if transfer.response(response) {
            completionHandler(.allow)
        } else {
            forget(dataTask.taskIdentifier)
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(dataTask)?.received(data)
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
