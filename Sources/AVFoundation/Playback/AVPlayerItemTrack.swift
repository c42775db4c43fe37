import Foundation
import Synchronization

/// One track of a player item: the asset track it presents, and whether it is presented.
open class AVPlayerItemTrack: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the enabled flag is atomic.
    /// The asset track the item track presents.
    public let assetTrack: AVAssetTrack?
    private let enabled: Atomic<Bool>

    init(assetTrack: AVAssetTrack) {
        self.assetTrack = assetTrack
        enabled = Atomic(assetTrack.facts.isEnabled)
        super.init()
    }

    /// Whether the track is presented; by default the asset track's own enabled state.
    open var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }
}
