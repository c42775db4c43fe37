import Dispatch
import Foundation
import MediaEngine
import Locking

/// A feeder that serves bytes it holds (or a file's), answering on a queue of its own in chunks, as a
/// resource loader delegate or a server would; or never answering, or failing. For tests of
/// `BufferedByteSource` and of what reads through it.
package final class MemoryFeeder: ByteFeeder {
    package enum Behaviour: Sendable {
        /// Answers every request in chunks of `chunk` bytes.
        case serve(chunk: Int)
        /// Never answers.
        case silent
        /// Answers requests below `offset` and fails the first one reaching it.
        case failAt(offset: Int64)
    }

    package let name: String
    package let stallTimeout: Double?
    private let bytes: Data
    private let info: ContentInfo
    private let behaviour: Behaviour
    private let queue = DispatchQueue(label: "avocet.test.feeder")
    private let log = Locked<(started: [FeedRequest], cancelled: [Int])>(([], []))

    package init(name: String = "memory://test", bytes: Data, onDemand: Bool = false, lengthKnown: Bool = true,
                 behaviour: Behaviour = .serve(chunk: 64 << 10), stallTimeout: Double? = nil) {
        self.name = name
        self.bytes = bytes
        self.behaviour = behaviour
        self.stallTimeout = stallTimeout
        info = ContentInfo(length: lengthKnown ? Int64(bytes.count) : nil, isEntireLengthAvailableOnDemand: onDemand)
    }

    package var started: [FeedRequest] { log.withLock { $0.started } }
    package var cancelled: [Int] { log.withLock { $0.cancelled } }

    package func start(_ request: FeedRequest, sink: FeedSink) {
        log.withLock { $0.started.append(request) }
        guard case .silent = behaviour else {
            queue.async { [self] in answer(request, sink: sink) }
            return
        }
    }

    package func cancel(_ requestID: Int) {
        log.withLock { $0.cancelled.append(requestID) }
    }

    private func answer(_ request: FeedRequest, sink: FeedSink) {
        if request.wantsContentInfo { sink.received(info: info, for: request.id) }
        let start = Int(clamping: request.offset)
        let stop = min(bytes.count, request.length.map { Int(clamping: request.offset + $0) } ?? bytes.count)
        var chunk = 64 << 10
        switch behaviour {
        case .serve(let size): chunk = max(1, size)
        case .silent: return
        case .failAt(let offset):
            if Int64(stop) > offset {
                sink.finished(request.id, error: MediaEngineError(.readFailed, source: name, operation: "read", reason: "simulated failure"))
                return
            }
        }
        var position = start
        while position < stop {
            if log.withLock({ $0.cancelled.contains(request.id) }) { return }
            let end = min(stop, position + chunk)
            sink.received(bytes[position..<end], for: request.id)
            position = end
        }
        sink.finished(request.id, error: nil)
    }
}
