import Foundation
internal import MediaEngine
internal import Locking

/// The path from one loading request (and its data request) to the buffered source that wants its
/// answers, and the request's state: open, finished or cancelled, each reached once. Answers after the
/// end are ignored. Holds the source weakly, so a delegate that keeps a request keeps no asset alive.
final class ResourceRequestChannel: Sendable {
    enum Phase { case open, finished, cancelled }

    private struct State {
        weak var sink: (any FeedSink)?
        var phase = Phase.open
        var delivered: Int64 = 0
        var infoReported = false
    }

    let id: Int
    let name: String
    private let state: Locked<State>
    /// Held while answers pass to the source, so that answers from several threads reach it in the
    /// order they advanced `bytesDelivered`. `state` is only held briefly inside it: the source may
    /// cancel this very request while taking its bytes (a newer request replacing it), which takes
    /// `state` alone.
    private let delivery = Locked()
    /// Read when the first answer (bytes or the end) comes.
    let contentInformation: AVAssetResourceLoadingContentInformationRequest?
    /// Asks the same range of a URL the delegate redirected to; false if that URL cannot be loaded.
    private let onRedirect: @Sendable (URL) -> Bool

    init(id: Int, name: String, sink: any FeedSink, contentInformation: AVAssetResourceLoadingContentInformationRequest?,
         onRedirect: @escaping @Sendable (URL) -> Bool) {
        self.id = id
        self.name = name
        self.contentInformation = contentInformation
        self.onRedirect = onRedirect
        state = Locked(State(sink: sink))
    }

    var phase: Phase { state.withLock { $0.phase } }
    var bytesDelivered: Int64 { state.withLock { $0.delivered } }

    /// Passes bytes on, in order.
    func deliver(_ data: Data) {
        guard !data.isEmpty else { return }
        delivery.withLock {
            let taken = state.withLock { s -> (sink: (any FeedSink)?, info: ContentInfo?)? in
                guard s.phase == .open else { return nil }
                s.delivered = s.delivered.addingSaturating(Int64(data.count))
                return (s.sink, takeInfo(&s))
            }
            guard let taken, let sink = taken.sink else { return }
            if let info = taken.info { sink.received(info: info, for: id) }
            sink.received(data, for: id)
        }
    }

    /// Ends the request with success (`error` nil) or failure. A success with a `redirect` and no bytes
    /// given hands the request's range to that URL instead (or fails it, for a URL that cannot be
    /// loaded); decided under the same locks as the answers, so bytes arriving meanwhile are not lost.
    /// False if it had ended already.
    @discardableResult
    func finish(error: MediaEngineError?, redirect target: URL? = nil) -> Bool {
        delivery.withLock { () -> Bool in
            let taken = state.withLock { s -> (sink: (any FeedSink)?, info: ContentInfo?, follow: Bool)? in
                guard s.phase == .open else { return nil }
                s.phase = .finished
                let follow = error == nil && target != nil && s.delivered == 0
                return (s.sink, error == nil && !follow ? takeInfo(&s) : nil, follow)
            }
            guard let taken else { return false }
            if taken.follow, let target {
                if onRedirect(target) { return true }
                taken.sink?.finished(id, error: MediaEngineError(
                    .readFailed, source: name, operation: "load",
                    reason: "the resource loader's delegate redirected the request to \(target.absoluteString), which is not an http or https URL"))
                return true
            }
            if let info = taken.info { taken.sink?.received(info: info, for: id) }
            taken.sink?.finished(id, error: error)
            return true
        }
    }

    /// Marks the request cancelled. False if it had ended already (then the delegate is not told).
    func cancel() -> Bool {
        state.withLock { s in
            guard s.phase == .open else { return false }
            s.phase = .cancelled
            return true
        }
    }

    /// The content information to report with the first answer, once.
    private func takeInfo(_ s: inout State) -> ContentInfo? {
        guard !s.infoReported, let request = contentInformation else { return nil }
        s.infoReported = true
        let length = request.contentLength
        return ContentInfo(length: length > 0 ? length : nil,
                           isByteRangeAccessSupported: request.isByteRangeAccessSupported,
                           isEntireLengthAvailableOnDemand: request.isEntireLengthAvailableOnDemand,
                           contentType: request.contentType)
    }
}
