import Foundation

/// Reading the values of a settings dictionary (`[String: Any]`), as Apple's code writes them.
package enum SettingsValue {
    /// A settings value as a number: an `NSNumber`, or any Swift integer or floating-point value.
    package static func number(_ value: Any) -> Double? {
        switch value {
        case let n as NSNumber: return n.doubleValue
        case let i as Int: return Double(i)
        case let d as Double: return d
        case let f as Float: return Double(f)
        case let u as UInt32: return Double(u)
        case let i as Int32: return Double(i)
        case let u as UInt: return Double(u)
        case let i as Int64: return Double(i)
        case let u as UInt64: return Double(u)
        default: return nil
        }
    }

    /// A settings value as a Boolean: a Swift `Bool`, or a number (non-zero is true).
    package static func flag(_ value: Any) -> Bool? {
        if let b = value as? Bool { return b }
        return number(value).map { $0 != 0 }
    }
}
