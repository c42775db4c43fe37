import Foundation

/// Metadata items that apply to one span of time, such as a chapter's title over its range.
open class AVTimedMetadataGroup: AVMetadataGroup, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the items and range sit behind a lock (the mutable subclass changes them).
    struct Contents {
        var items: [AVMetadataItem]
        var timeRange: CMTimeRange
    }

    let contents: LockedState<Contents>

    /// A group of `items` applying during `timeRange`.
    ///
    /// - Parameters:
    ///   - items: The items, such as a chapter's title.
    ///   - timeRange: When they apply, on the asset's timeline.
    public init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        contents = LockedState(Contents(items: items, timeRange: timeRange))
        super.init()
    }

    /// The items that apply during ``timeRange``.
    open override var items: [AVMetadataItem] { contents.value.items }

    /// When the items apply.
    open var timeRange: CMTimeRange { contents.value.timeRange }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let c = contents.value
        return AVTimedMetadataGroup(items: c.items, timeRange: c.timeRange)
    }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let c = contents.value
        return AVMutableTimedMetadataGroup(items: c.items, timeRange: c.timeRange)
    }
}
