import Foundation

/// What an observation reports (Foundation's type on Apple's platforms; Linux Foundation has no
/// key-value observing, so Avocet provides it for its playback objects).
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    /// The option bits.
    public let rawValue: UInt
    /// Options from their bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The change carries the new value.
    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    /// The change carries the old value.
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    /// The handler is called once at once; with ``new`` too, the change carries the current value as
    /// the new one.
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    /// Recorded; Avocet's objects report changes after they happen only.
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}
