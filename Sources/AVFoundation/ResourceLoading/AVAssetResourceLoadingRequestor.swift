import Foundation

/// Who made a loading request. Avocet's assets make every request themselves.
open class AVAssetResourceLoadingRequestor: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    /// Whether the requestor sends expired-session reports. Always false here.
    public let providesExpiredSessionReports = false

    override init() {
        super.init()
    }
}
