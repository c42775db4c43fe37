import Foundation

/// The base of every type-safe property identifier (`.duration`, `.tracks`, ...).
/// Its `description` is the property's key, the string the legacy API uses.
public class AVAnyAsyncProperty: CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    /// The legacy key-value loading key ("duration", "tracks", "playable", ...).
    let key: String

    init(key: String) {
        self.key = key
    }

    /// The property's key, as the legacy string API names it ("duration", "playable").
    public var description: String { key }

    /// Loads through the legacy, string-keyed API: `root` is the object loading.
    func loadErased(from root: AnyObject) async throws {}

    /// Where the value stands for `root`, without its type (for the legacy string API).
    func erasedStatus(of root: AnyObject) -> LoadStatus<Void> { .notYetLoaded }
}

/// A property identifier for objects of type `Root`; the constants (`.duration`, `.tracks`) are
/// its static members, constrained on `Root`.
public class AVPartialAsyncProperty<Root>: AVAnyAsyncProperty, @unchecked Sendable {}

/// A type-safe identifier of a property of `Root` whose value has type `Value`.
public final class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {
    /// The three ways to reach the value; each reads the object's shared loads, so they agree.
    let loader: @Sendable (Root) async throws -> Value
    let blockingLoader: @Sendable (Root) -> Result<Value, any Error>
    let statusReader: @Sendable (Root) -> LoadStatus<Value>

    init(key: String, loader: @escaping @Sendable (Root) async throws -> Value,
         blocking: @escaping @Sendable (Root) -> Result<Value, any Error>,
         status: @escaping @Sendable (Root) -> LoadStatus<Value>) {
        self.loader = loader
        self.blockingLoader = blocking
        self.statusReader = status
        super.init(key: key)
    }

    override func loadErased(from root: AnyObject) async throws {
        guard let typed = root as? Root else { return }
        _ = try await loader(typed)
    }

    override func erasedStatus(of root: AnyObject) -> LoadStatus<Void> {
        guard let typed = root as? Root else { return .notYetLoaded }
        return statusReader(typed).map { _ in () }
    }

    /// Where the value of a property stands.
    public enum Status {
        /// Nothing has asked for it yet.
        case notYetLoaded
        /// A load is under way.
        case loading
        /// The value, which never changes once loaded.
        case loaded(Value)
        /// Why the load failed (a cancelled load also reports here, with a cancellation error).
        case failed(NSError)
    }

    /// The public status for an internal one.
    static func publicStatus(_ status: LoadStatus<Value>) -> Status {
        switch status {
        case .notYetLoaded: return .notYetLoaded
        case .loading: return .loading
        case .loaded(let value): return .loaded(value)
        case .failed(let error): return .failed(LoadStatus<Value>.nsError(error))
        case .cancelled: return .failed(AVAsset.cancelledError as NSError)
        }
    }
}

extension AVAsyncProperty.Status: @unchecked Sendable where Value: Sendable {}
