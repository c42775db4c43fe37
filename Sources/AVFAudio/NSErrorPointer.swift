import Foundation

/// Linux Foundation has no `NSErrorPointer`; with this one, `var error: NSError?` and `&error` compile
/// as on Apple's platforms.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
