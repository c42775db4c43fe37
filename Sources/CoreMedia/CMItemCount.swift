import CoreVideo

/// A count of samples or items.
public typealias CMItemCount = CFIndex
/// An index of a sample or item.
public typealias CMItemIndex = CFIndex
