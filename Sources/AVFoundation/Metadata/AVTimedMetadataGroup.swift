import Foundation

/// Metadata items that apply to one span of time, such as a chapter's title over its range.
public class AVTimedMetadataGroup: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let items: [AVMetadataItem]
    public let timeRange: CMTimeRange

    public init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        self.items = items
        self.timeRange = timeRange
    }
}
