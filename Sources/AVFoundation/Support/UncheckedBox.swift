/// Carries a value the caller guarantees is safe to move between threads (a handler and the object it
/// belongs to, crossing to the thread that calls it back, as Apple's API has them do).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
