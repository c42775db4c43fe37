import Foundation

/// A timed metadata group whose items and time range can be set.
open class AVMutableTimedMetadataGroup: AVTimedMetadataGroup, @unchecked Sendable {
    /// The items; settable.
    open override var items: [AVMetadataItem] {
        get { contents.value.items }
        set { contents.change { $0.items = newValue } }
    }

    /// When the items apply; settable.
    open override var timeRange: CMTimeRange {
        get { contents.value.timeRange }
        set { contents.change { $0.timeRange = newValue } }
    }
}
