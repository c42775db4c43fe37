import Foundation

/// A collection of metadata items: the base of ``AVTimedMetadataGroup``.
open class AVMetadataGroup: NSObject, @unchecked Sendable {
    // @unchecked Sendable: its subclasses keep their items behind a lock.

    override init() {
        super.init()
    }

    /// The items; a subclass gives them.
    open var items: [AVMetadataItem] { [] }

    /// A label that classifies the group (an HLS date range's `CLASS`); nil, as no group Avocet makes
    /// has one.
    open var classifyingLabel: String? { nil }

    /// An identifier unique to the group (an HLS date range's `ID`); nil, as no group Avocet makes has one.
    open var uniqueID: String? { nil }
}
