import AVFoundation
import Dispatch
import FixtureSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Locking

/// A resource loader delegate that serves a file's bytes under a custom scheme, the way an app serves
/// media kept in its own storage; with switches for every way a delegate can behave or misbehave.
/// Records what it was asked, on which queue, and what was cancelled.
final class FileServingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    // @unchecked Sendable: configuration is immutable; records sit behind locks.
    enum Behaviour {
        /// Answers each request at once, in `chunk`-byte `respond(with:)` calls, then finishes.
        case serve
        /// Answers with every byte asked for but never calls `finishLoading()`.
        case respondWithoutFinishing
        /// Keeps the request and never answers.
        case silent
        /// Returns false.
        case decline
        /// Finishes each request with this error.
        case fail(NSError)
        /// Answers on another queue after `delay` seconds.
        case later(Double)
    }

    struct Seen: Equatable {
        var offset: Int64
        var length: Int
        var toEnd: Bool
        var askedForInfo: Bool
        var onDelegateQueue: Bool
    }

    let queue = DispatchQueue(label: "test.resource-loader.delegate")
    private static let queueKey = DispatchSpecificKey<Bool>()
    let bytes: Data
    let behaviour: Behaviour
    let chunk: Int
    let onDemand: Bool
    let byteRanges: Bool
    let lengthKnown: Bool
    let contentType: String
    private let seenRequests = Locked<[Seen]>([])
    private let cancelledRequests = Locked<[(offset: Int64, onDelegateQueue: Bool, isCancelled: Bool)]>([])
    private let kept = Locked<[AVAssetResourceLoadingRequest]>([])

    init(file: String, behaviour: Behaviour = .serve, chunk: Int = 64 << 10, onDemand: Bool = false,
         byteRanges: Bool = true, lengthKnown: Bool = true) throws {
        bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        self.behaviour = behaviour
        self.chunk = max(1, chunk)
        self.onDemand = onDemand
        self.byteRanges = byteRanges
        self.lengthKnown = lengthKnown
        contentType = file.hasSuffix(".mkv") ? "org.matroska.mkv" : AVFileType.mp4.rawValue
        super.init()
        queue.setSpecific(key: Self.queueKey, value: true)
    }

    /// An asset for `name` under the `fixture:` scheme, served by this delegate on its queue.
    func asset(_ name: String) -> AVURLAsset {
        let asset = AVURLAsset(url: URL(string: "fixture://media/\(name)")!)
        asset.resourceLoader.setDelegate(self, queue: queue)
        return asset
    }

    var seen: [Seen] { seenRequests.withLock { $0 } }
    var cancelled: [(offset: Int64, onDelegateQueue: Bool, isCancelled: Bool)] { cancelledRequests.withLock { $0 } }
    /// Requests kept unanswered (`.silent`) or unfinished (`.respondWithoutFinishing`).
    var pending: [AVAssetResourceLoadingRequest] { kept.withLock { $0 } }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        let onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == true
        let data = loadingRequest.dataRequest
        seenRequests.withLock {
            $0.append(Seen(offset: data?.requestedOffset ?? -1, length: data?.requestedLength ?? -1,
                           toEnd: data?.requestsAllDataToEndOfResource ?? false,
                           askedForInfo: loadingRequest.contentInformationRequest != nil, onDelegateQueue: onQueue))
        }
        switch behaviour {
        case .decline:
            return false
        case .silent:
            kept.withLock { $0.append(loadingRequest) }
            return true
        case .fail(let error):
            loadingRequest.finishLoading(with: error)
            return true
        case .later(let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.answer(loadingRequest, finish: true) }
            return true
        case .serve:
            answer(loadingRequest, finish: true)
            return true
        case .respondWithoutFinishing:
            kept.withLock { $0.append(loadingRequest) }
            answer(loadingRequest, finish: false)
            return true
        }
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
        let onQueue = DispatchQueue.getSpecific(key: Self.queueKey) == true
        cancelledRequests.withLock {
            $0.append((loadingRequest.dataRequest?.requestedOffset ?? -1, onQueue, loadingRequest.isCancelled))
        }
    }

    /// Content information first, then the bytes asked for in chunks, as far as the file goes.
    func answer(_ request: AVAssetResourceLoadingRequest, finish: Bool) {
        if let info = request.contentInformationRequest {
            info.contentType = contentType
            info.contentLength = lengthKnown ? Int64(bytes.count) : 0
            info.isByteRangeAccessSupported = byteRanges
            info.isEntireLengthAvailableOnDemand = onDemand
        }
        if let data = request.dataRequest {
            let start = Int(clamping: data.requestedOffset)
            let stop = data.requestsAllDataToEndOfResource ? bytes.count : min(bytes.count, start &+ data.requestedLength)
            var position = start
            while position < stop, !request.isCancelled {
                let end = min(stop, position + chunk)
                data.respond(with: bytes.subdata(in: position..<end))
                position = end
            }
        }
        if finish { request.finishLoading() }
    }
}

/// Keeps delegates alive for as long as the test process runs: a resource loader holds its delegate
/// weakly, as Apple's does.
enum DelegateKeeper {
    private static let delegates = Locked<[FileServingDelegate]>([])

    static func keep(_ delegate: FileServingDelegate) -> FileServingDelegate {
        delegates.withLock { $0.append(delegate) }
        return delegate
    }
}
