import Foundation
internal import Locking
import Synchronization

/// The observers of one object's observable properties, by property name. The object calls
/// `didChange` after each change, outside its own locks; handlers run on that thread, in the order
/// they were added, as Foundation's do.
final class KeyValueObservers: Sendable {
    private struct Entry {
        let name: String
        let handler: @Sendable (_ old: Any, _ new: Any) -> Void
    }

    private let entries = Locked<[(Int, Entry)]>([])
    private let counter = Atomic<Int>(0)

    func add(name: String, handler: @escaping @Sendable (_ old: Any, _ new: Any) -> Void) -> Int {
        let number = counter.add(1, ordering: .relaxed).newValue
        entries.withLock { $0.append((number, Entry(name: name, handler: handler))) }
        return number
    }

    func remove(_ number: Int) {
        // Released outside the lock: a handler's captures may run code when freed.
        let removed = entries.withLock { list -> [(Int, Entry)] in
            let gone = list.filter { $0.0 == number }
            list.removeAll { $0.0 == number }
            return gone
        }
        _ = removed
    }

    /// Tells the observers of `name` that it went from `old` to `new` (nothing when they are equal).
    func didChange<Value: Equatable>(_ name: String, from old: Value, to new: Value) {
        guard old != new else { return }
        didSet(name, from: old, to: new)
    }

    /// The same for objects, compared by identity.
    func didChange<Object: AnyObject>(_ name: String, from old: Object?, to new: Object?) {
        guard old !== new else { return }
        didSet(name, from: old as Any, to: new as Any)
    }

    /// Tells the observers of `name` that it was set (values that cannot be compared).
    func didSet(_ name: String, from old: Any, to new: Any) {
        let handlers = entries.withLock { $0.filter { $0.1.name == name }.map(\.1.handler) }
        for handler in handlers { handler(old, new) }
    }
}

/// The objects whose properties `observe(_:options:changeHandler:)` reports: each names the key paths
/// it reports by property name (a subclass's key paths are other values, so each class lists its own).
protocol KeyValueObservable: AnyObject {
    var keyValueObservers: KeyValueObservers { get }
    /// The property name of `keyPath`, when it is one the object reports.
    static func observedName(of keyPath: AnyKeyPath) -> String?
}

/// Lets Avocet's playback objects offer Foundation's block-based key-value observing, which Linux
/// Foundation lacks. Not for direct use.
public protocol _AVKeyValueObserving: AnyObject {}

extension _AVKeyValueObserving {
    /// Calls `changeHandler` whenever the property at `keyPath` changes, on the thread that changed it
    /// (and once at once with ``NSKeyValueObservingOptions/initial``). The properties reported are
    /// those Apple's apps observe: ``AVPlayer``'s ``AVPlayer/status``, ``AVPlayer/rate``,
    /// ``AVPlayer/timeControlStatus``, ``AVPlayer/currentItem``, ``AVPlayer/reasonForWaitingToPlay``,
    /// ``AVPlayer/volume``, ``AVPlayer/isMuted``, ``AVPlayer/error``, and `currentItem?.status` (and the
    /// item's other values below); ``AVPlayerItem``'s ``AVPlayerItem/status``,
    /// ``AVPlayerItem/duration``, ``AVPlayerItem/presentationSize``,
    /// ``AVPlayerItem/isPlaybackLikelyToKeepUp``, ``AVPlayerItem/isPlaybackBufferEmpty``,
    /// ``AVPlayerItem/isPlaybackBufferFull``, ``AVPlayerItem/loadedTimeRanges``,
    /// ``AVPlayerItem/error``. Another key path (or one through a subclass of your own: observe through
    /// the Avocet-typed reference) gets the initial call only.
    ///
    /// - Parameters:
    ///   - keyPath: The property to observe, such as `\.timeControlStatus`.
    ///   - options: ``NSKeyValueObservingOptions/new`` and ``NSKeyValueObservingOptions/old`` put those
    ///     values in the change; ``NSKeyValueObservingOptions/initial`` calls the handler once before
    ///     this method returns.
    ///   - changeHandler: Gets the object and the change; runs on the thread that made the change,
    ///     after it was made.
    /// - Returns: The observation: it lasts as long as this object, or until
    ///   ``NSKeyValueObservation/invalidate()``.
    public func observe<Value>(_ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [],
                               changeHandler: @escaping (Self, NSKeyValueObservedChange<Value>) -> Void) -> NSKeyValueObservation {
        guard let observable = self as? any KeyValueObservable else {
            if options.contains(.initial) {
                changeHandler(self, NSKeyValueObservedChange(kind: .setting, newValue: options.contains(.new) ? self[keyPath: keyPath] : nil,
                                                             oldValue: nil, indexes: nil, isPrior: false))
            }
            return NSKeyValueObservation(registry: nil, number: 0)
        }
        let registry = observable.keyValueObservers
        var number = 0
        if let name = type(of: observable).observedName(of: keyPath) {
            // The typed work is boxed: the registry keeps type-erased, sendable handlers.
            let owner = WeakBox(self)
            let deliver = UncheckedBox { (old: Any, new: Any) in
                guard let target = owner.value else { return }
                changeHandler(target, NSKeyValueObservedChange<Value>(kind: .setting, newValue: options.contains(.new) ? new as? Value : nil,
                                                                      oldValue: options.contains(.old) ? old as? Value : nil,
                                                                      indexes: nil, isPrior: false))
            }
            number = registry.add(name: name) { old, new in deliver.value(old, new) }
        }
        if options.contains(.initial) {
            changeHandler(self, NSKeyValueObservedChange(kind: .setting, newValue: options.contains(.new) ? self[keyPath: keyPath] : nil,
                                                         oldValue: nil, indexes: nil, isPrior: false))
        }
        return NSKeyValueObservation(registry: registry, number: number)
    }
}

/// A weak reference that can cross threads (the handler checks the object is still there).
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
