import Foundation
internal import Locking

/// The value of an item made with `init(propertiesOf:valueLoadingHandler:)`: asked of the app's handler
/// once, on a global dispatch queue (never the cooperative pool), when first loaded; shared by every
/// caller; kept once answered. A caller whose task is cancelled stops waiting; the handler's request
/// stays answerable for the others.
final class MetadataValueLoad: @unchecked Sendable {
    // @unchecked Sendable: the phase and waiters sit behind `state`; the handler is called once, on
    // one queue, as Apple's contract says.
    typealias Value = (any NSCopying & NSObjectProtocol)?
    private typealias Waiter = CheckedContinuation<UncheckedBox<Result<Value, any Error>>, Never>

    private enum Phase {
        case idle
        case loading
        case done(Result<Value, any Error>)
    }

    private struct State {
        var phase = Phase.idle
        var waiters: [(id: UUID, continuation: Waiter)] = []
    }

    private let handler: (AVMetadataItemValueRequest) -> Void
    private let state = Locked<UncheckedBox<State>>(UncheckedBox(State()))

    init(handler: @escaping (AVMetadataItemValueRequest) -> Void) {
        self.handler = handler
    }

    /// Where the value stands.
    var status: LoadStatus<Value> {
        switch state.withLock({ $0.value.phase }) {
        case .idle: return .notYetLoaded
        case .loading: return .loading
        case .done(.success(let value)): return .loaded(value)
        case .done(.failure(let error)): return .failed(error)
        }
    }

    /// The value, asking the handler first if no one has; waits without holding a thread.
    func value(of item: AVMetadataItem) async throws -> Value {
        let id = UUID()
        let result: UncheckedBox<Result<Value, any Error>> = await withTaskCancellationHandler {
            await withHandOffContinuation { (continuation: Waiter) in
                let (done, starts) = state.withLock { box -> (Result<Value, any Error>?, Bool) in
                    var s = box.value
                    defer { box = UncheckedBox(s) }
                    if case .done(let result) = s.phase { return (result, false) }
                    if Task.isCancelled { return (.failure(CancellationError()), false) }
                    s.waiters.append((id, continuation))
                    if case .idle = s.phase {
                        s.phase = .loading
                        return (nil, true)
                    }
                    return (nil, false)
                }
                if let done { continuation.resume(returning: UncheckedBox(done)) }
                if starts { ask(item) }
            }
        } onCancel: {
            let waiter = state.withLock { box -> Waiter? in
                var s = box.value
                defer { box = UncheckedBox(s) }
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: UncheckedBox(.failure(CancellationError())))
        }
        return try result.value.get()
    }

    /// Asks the handler now unless someone has (the synchronous getters, which do not wait).
    func start(_ item: AVMetadataItem) {
        let starts = state.withLock { box -> Bool in
            guard case .idle = box.value.phase else { return false }
            var s = box.value
            s.phase = .loading
            box = UncheckedBox(s)
            return true
        }
        if starts { ask(item) }
    }

    /// The first answer: records it and wakes every waiter. Later ones change nothing.
    func finish(_ result: Result<Value, any Error>) {
        let waiters = state.withLock { box -> [Waiter] in
            var s = box.value
            if case .done = s.phase { return [] }
            s.phase = .done(result)
            let woken = s.waiters.map(\.continuation)
            s.waiters = []
            box = UncheckedBox(s)
            return woken
        }
        for waiter in waiters { waiter.resume(returning: UncheckedBox(result)) }
    }

    private func ask(_ item: AVMetadataItem) {
        let request = AVMetadataItemValueRequest(metadataItem: item, load: self)
        DispatchQueue.global().async { [self] in handler(request) }
    }
}
