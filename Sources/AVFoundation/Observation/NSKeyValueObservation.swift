import Foundation

/// An observation made by `observe(_:options:changeHandler:)`: it lasts until ``invalidate()`` or until
/// this object is deallocated, so keep it as long as the handler should be called.
public final class NSKeyValueObservation: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the registry guards itself; the observer's number never changes.
    private weak var registry: KeyValueObservers?
    private let number: Int

    /// An observation of `registry`'s handler `number`; nil for one that observes nothing (a key path
    /// Avocet does not report: it was told its `.initial` value only).
    init(registry: KeyValueObservers?, number: Int) {
        self.registry = registry
        self.number = number
        super.init()
    }

    /// Ends the observation: the handler is not called again (a call already under way finishes).
    public func invalidate() {
        registry?.remove(number)
    }

    deinit { invalidate() }
}
