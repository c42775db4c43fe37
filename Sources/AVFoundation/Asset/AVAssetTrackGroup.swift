import Foundation

/// Tracks that are alternatives to one another (only one of them plays at a time).
open class AVAssetTrackGroup: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    /// The IDs of the tracks in the group.
    public let trackIDs: [NSNumber]

    init(trackIDs: [CMPersistentTrackID]) {
        self.trackIDs = trackIDs.map { NSNumber(value: $0) }
    }
}
