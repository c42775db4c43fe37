import Foundation

/// Metadata items that apply to one span of time, such as a chapter's title over its range.
open class AVTimedMetadataGroup: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    /// The items that apply during ``timeRange``.
    public let items: [AVMetadataItem]
    /// When the items apply.
    public let timeRange: CMTimeRange

    /// A group of `items` applying during `timeRange`.
    ///
    /// - Parameters:
    ///   - items: The items, such as a chapter's title.
    ///   - timeRange: When they apply, on the asset's timeline.
    public init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        self.items = items
        self.timeRange = timeRange
    }
}
