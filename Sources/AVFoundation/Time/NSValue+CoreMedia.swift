import Foundation

// Linux Foundation's NSValue cannot hold an Objective-C struct encoding ("{CMTime=qiIq}"), so these
// box the structs as byte arrays ("[24C]"). `timeValue` and friends check the encoding and give the
// invalid value for an NSValue that holds something else.
/// Boxing `CMTime`, `CMTimeRange` and `CMTimeMapping` in `NSValue`s (as byte arrays on Linux).
extension NSValue {
    /// An NSValue holding `time` (AVFoundation's `NSValue(time:)`).
    public convenience init(time: CMTime) {
        var copy = time
        self.init(bytes: &copy, objCType: NSValue.encoding(of: CMTime.self))
    }

    /// The time this value holds; `.invalid` when it holds no `CMTime`.
    public var timeValue: CMTime { unboxed(CMTime.self) ?? .invalid }

    /// An NSValue holding `timeRange`.
    public convenience init(timeRange: CMTimeRange) {
        var copy = timeRange
        self.init(bytes: &copy, objCType: NSValue.encoding(of: CMTimeRange.self))
    }

    /// The time range this value holds; `.invalid` when it holds no `CMTimeRange`.
    public var timeRangeValue: CMTimeRange { unboxed(CMTimeRange.self) ?? .invalid }

    /// An NSValue holding `timeMapping`.
    public convenience init(timeMapping: CMTimeMapping) {
        var copy = timeMapping
        self.init(bytes: &copy, objCType: NSValue.encoding(of: CMTimeMapping.self))
    }

    /// The time mapping this value holds; `.invalid` when it holds no `CMTimeMapping`.
    public var timeMappingValue: CMTimeMapping { unboxed(CMTimeMapping.self) ?? .invalid }

    private static func encoding<T>(of type: T.Type) -> String { "[\(MemoryLayout<T>.size)C]" }

    private func unboxed<T>(_ type: T.Type) -> T? {
        guard String(cString: objCType) == NSValue.encoding(of: type) else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { buffer.deallocate() }
        getValue(buffer)
        return buffer.load(as: T.self)
    }
}
