import Foundation

extension AVPlayerLooper {
    /// Where a looper puts its replicas among the items already in the player's queue.
    public enum ItemOrdering: Int, Sendable {
        /// `loopingItemsPrecedeExistingItems` (the default): the replicas go first, before the current
        /// item too, and the items already queued play after ``AVPlayerLooper/disableLooping()``;
        /// `loopingItemsFollowExistingItems`: the replicas go after the items already queued, which play
        /// first.
        case loopingItemsPrecedeExistingItems = 0, loopingItemsFollowExistingItems = 1
    }
}
