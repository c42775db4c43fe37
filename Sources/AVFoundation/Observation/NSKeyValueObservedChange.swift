import Foundation

/// One change of an observed property, as the handler of `observe(_:options:changeHandler:)` gets it:
/// the values the options asked for (nil otherwise).
public struct NSKeyValueObservedChange<Value> {
    /// The kind of change: `.setting` for Avocet's properties.
    public let kind: NSKeyValueChange
    /// The value after the change, when the options include `.new` (or `.initial`); nil otherwise.
    public let newValue: Value?
    /// The value before the change, when the options include `.old`; nil otherwise.
    public let oldValue: Value?
    /// The indexes of a collection change; nil for a value that was set.
    public let indexes: IndexSet?
    /// Always false: changes are reported after they happen.
    public let isPrior: Bool
}

extension NSKeyValueObservedChange: Sendable where Value: Sendable {}
