import Foundation

/// One change of an observed property, as the handler of `observe(_:options:changeHandler:)` gets it:
/// the values the options asked for (nil otherwise).
public struct NSKeyValueObservedChange<Value> {
    public let kind: NSKeyValueChange
    public let newValue: Value?
    public let oldValue: Value?
    public let indexes: IndexSet?
    /// Always false: changes are reported after they happen.
    public let isPrior: Bool
}

extension NSKeyValueObservedChange: Sendable where Value: Sendable {}
