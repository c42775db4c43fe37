import Foundation

/// One change of an observed property, as the handler of `observe(_:options:changeHandler:)` gets it:
/// the values the options asked for (nil otherwise).
public struct NSKeyValueObservedChange<Value> {
    /// The kind of change: ``NSKeyValueChange/setting`` for Avocet's properties.
    public let kind: NSKeyValueChange
    /// The value after the change (for the initial call, the current value), when the options include
    /// ``NSKeyValueObservingOptions/new``; nil otherwise, the initial call's included.
    public let newValue: Value?
    /// The value before the change, when the options include ``NSKeyValueObservingOptions/old``; nil
    /// otherwise (and always nil in the initial call).
    public let oldValue: Value?
    /// The indexes of a collection change; nil for a value that was set.
    public let indexes: IndexSet?
    /// Always false: changes are reported after they happen.
    public let isPrior: Bool
}

extension NSKeyValueObservedChange: Sendable where Value: Sendable {}
