import Dispatch
import Foundation

/// The legacy string-keyed API over an object's property identifiers, shared by assets, tracks and
/// metadata items. It reads the same shared loads as `load(_:)` and `status(of:)`.
enum KeyValueLoading {
    @available(*, deprecated, message: "Legacy key-value loading")
    static func status(of key: String, in object: AnyObject, knownKeys: [AVAnyAsyncProperty], error outError: NSErrorPointer) -> AVKeyValueStatus {
        guard let property = knownKeys.first(where: { $0.key == key }) else { return .unknown }
        switch property.erasedStatus(of: object) {
        case .notYetLoaded: return .unknown
        case .loading: return .loading
        case .loaded: return .loaded
        case .failed(let error):
            outError?.pointee = LoadStatus<Void>.nsError(error)
            return .failed
        case .cancelled:
            outError?.pointee = AVAsset.cancelledError as NSError
            return .cancelled
        }
    }

    /// Loads `keys` and calls `handler` exactly once: synchronously when every key is settled already
    /// (loaded, or failed, as a missing file fails at once); otherwise on a global queue when all settle.
    @available(*, deprecated, message: "Legacy key-value loading")
    static func load(_ object: AnyObject, keys: [String], knownKeys: [AVAnyAsyncProperty], handler: (() -> Void)?) {
        let properties = keys.compactMap { key in knownKeys.first { $0.key == key } }
        let settled = properties.allSatisfy { property in
            switch property.erasedStatus(of: object) {
            case .loaded, .failed: return true
            default: return false
            }
        }
        if settled {
            handler?()
            return
        }
        // The handler and the object cross to other threads, as Apple's API has them do.
        let work = UncheckedBox((object, handler))
        Task.detached {
            for property in properties {
                do {
                    try await property.loadErased(from: work.value.0)
                } catch where SharedLoad<AssetFacts>.isCancellation(error) {
                    // cancelLoading() ended the load: the other keys share it (or its scan), and must
                    // not start it again. They report cancelled; the handler runs now.
                    break
                } catch {
                    continue
                }
            }
            DispatchQueue.global().async { work.value.1?() }
        }
    }
}
