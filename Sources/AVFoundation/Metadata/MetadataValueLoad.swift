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
    private let state = LockedState(State())

    init(handler: @escaping (AVMetadataItemValueRequest) -> Void) {
        self.handler = handler
    }

    /// Where the value stands.
    var status: LoadStatus<Value> {
        switch state.value.phase {
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
                let done = state.change { s -> Result<Value, any Error>? in
                    if case .done(let result) = s.phase { return result }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    s.waiters.append((id, continuation))
                    return nil
                }
                if let done { continuation.resume(returning: UncheckedBox(done)) } else { start(item) }
            }
        } onCancel: {
            let waiter = state.change { s -> Waiter? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: UncheckedBox(.failure(CancellationError())))
        }
        return try result.value.get()
    }

    /// Asks the handler now unless someone has (a load that waits, or the synchronous getters, which
    /// do not).
    func start(_ item: AVMetadataItem) {
        let starts = state.change { s -> Bool in
            guard case .idle = s.phase else { return false }
            s.phase = .loading
            return true
        }
        if starts { ask(item) }
    }

    /// The first answer: records it and wakes every waiter. Later ones change nothing.
    func finish(_ result: Result<Value, any Error>) {
        let waiters = state.change { s -> [Waiter] in
            if case .done = s.phase { return [] }
            s.phase = .done(result)
            defer { s.waiters = [] }
            return s.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: UncheckedBox(result)) }
    }

    private func ask(_ item: AVMetadataItem) {
        let request = AVMetadataItemValueRequest(metadataItem: item, load: self)
        DispatchQueue.global().async { [self] in handler(request) }
    }
}
