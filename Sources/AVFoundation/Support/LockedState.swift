internal import Locking
import Synchronization

/// State of a non-Sendable type (it holds closures, app objects, errors) behind a lock: read whole,
/// or changed in place under the lock. The owner keeps the state's values consistent; nothing in it
/// escapes the lock but copies.
final class LockedState<State>: @unchecked Sendable {
    // @unchecked Sendable: every access goes through the lock.
    private let mutex: Locked<UncheckedBox<State>>

    init(_ state: State) {
        mutex = Locked(UncheckedBox(state))
    }

    /// A copy of the state.
    var value: State { mutex.withLock { $0.value } }

    /// Changes the state in place; returns what `body` returns.
    @discardableResult
    func change<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try mutex.withLock { box in
            var value = box.value
            defer { box = UncheckedBox(value) }
            return try body(&value)
        }
    }
}
