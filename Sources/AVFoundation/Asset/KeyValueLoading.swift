import Dispatch
import Foundation

/// The legacy string-keyed API over a status table, shared by assets, tracks and metadata items.
enum KeyValueLoading {
    @available(*, deprecated, message: "Legacy key-value loading")
    static func status(of key: String, in store: PropertyStore, knownKeys: [AVAnyAsyncProperty], error outError: NSErrorPointer) -> AVKeyValueStatus {
        guard knownKeys.contains(where: { $0.key == key }) else { return .unknown }
        switch store.status(key) {
        case .notYetLoaded: return .unknown
        case .loading: return .loading
        case .loaded: return .loaded
        case .failed(let error):
            outError?.pointee = error
            return .failed
        case .cancelled:
            outError?.pointee = PropertyStore.cancelledError
            return .cancelled
        }
    }

    /// Loads `keys` and calls `handler` exactly once: synchronously when all are settled already or
    /// `immediateFailure` says loading cannot even start; otherwise on a global queue when all settle.
    @available(*, deprecated, message: "Legacy key-value loading")
    static func load(_ object: AnyObject, keys: [String], store: PropertyStore, knownKeys: [AVAnyAsyncProperty],
                     immediateFailure: AVError?, handler: (() -> Void)?) {
        let properties = keys.compactMap { key in knownKeys.first { $0.key == key } }
        let settled: (String) -> Bool = { key in
            switch store.status(key) {
            case .loaded, .failed: return true
            default: return false
            }
        }
        if properties.allSatisfy({ settled($0.key) }) {
            handler?()
            return
        }
        if let immediateFailure, case .notYetLoaded = store.status("_header") {
            store.fail(knownKeys.map(\.key) + ["_header"], error: immediateFailure)
            handler?()
            return
        }
        // The handler and the object cross to other threads, as Apple's API has them do.
        let work = UncheckedBox((object, handler))
        Task.detached {
            for property in properties {
                try? await property.loadErased(from: work.value.0)
            }
            DispatchQueue.global().async { work.value.1?() }
        }
    }
}

/// Carries a value the caller guarantees is safe to move between threads.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
