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

    public var description: String { key }

    /// Loads through the legacy, string-keyed API: `root` is the object loading.
    func loadErased(from root: AnyObject) async throws {
        fatalError("subclass responsibility")
    }
}

/// A property identifier for objects of type `Root`; the constants (`.duration`, `.tracks`) are
/// its static members, constrained on `Root`.
public class AVPartialAsyncProperty<Root>: AVAnyAsyncProperty, @unchecked Sendable {}

/// A type-safe identifier of a property of `Root` whose value has type `Value`.
public final class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {
    /// The load and status operations; they reach the object's status table.
    let loader: @Sendable (Root) async throws -> Value
    let statusReader: @Sendable (Root) -> Status

    init(key: String, loader: @escaping @Sendable (Root) async throws -> Value, status: @escaping @Sendable (Root) -> Status) {
        self.loader = loader
        self.statusReader = status
        super.init(key: key)
    }

    override func loadErased(from root: AnyObject) async throws {
        guard let typed = root as? Root else { return }
        _ = try await loader(typed)
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
}

extension AVAsyncProperty.Status: @unchecked Sendable where Value: Sendable {}
