import Foundation

/// A player of a queue of items, one after another: at an item's end it advances to the next
/// (``AVPlayer/actionAtItemEnd`` is ``AVPlayer/ActionAtItemEnd-swift.enum/advance`` by default), or when
/// told with ``advanceToNextItem()``.
open class AVQueuePlayer: AVPlayer, @unchecked Sendable {
    // @unchecked Sendable: the queue sits behind a lock.
    /// The items after the current one.
    private let upcoming = LockedState([AVPlayerItem]())

    /// A player of `items`, the first current (and loading).
    ///
    /// - Parameter items: The queue, in playing order; may be empty.
    public init(items: [AVPlayerItem]) {
        super.init(playerItem: items.first)
        upcoming.change { $0 = Array(items.dropFirst()) }
        actionAtItemEnd = .advance
    }

    /// A player with an empty queue.
    public override init() {
        super.init()
        actionAtItemEnd = .advance
    }

    /// A player of one item, current (and loading).
    ///
    /// - Parameter item: The item to play, or nil for an empty queue.
    public override init(playerItem item: AVPlayerItem?) {
        super.init(playerItem: item)
        actionAtItemEnd = .advance
    }

    class override func observedName(of keyPath: AnyKeyPath) -> String? {
        let names: [AnyKeyPath: String] = [
            \AVQueuePlayer.status: "status", \AVQueuePlayer.rate: "rate", \AVQueuePlayer.timeControlStatus: "timeControlStatus",
            \AVQueuePlayer.currentItem: "currentItem", \AVQueuePlayer.reasonForWaitingToPlay: "reasonForWaitingToPlay",
            \AVQueuePlayer.volume: "volume", \AVQueuePlayer.isMuted: "isMuted", \AVQueuePlayer.defaultRate: "defaultRate",
            \AVQueuePlayer.currentItem?.status: "currentItem.status", \AVQueuePlayer.currentItem?.duration: "currentItem.duration",
        ]
        return names[keyPath] ?? super.observedName(of: keyPath)
    }

    /// The queue: the current item, then those after it.
    ///
    /// - Returns: The items in playing order; empty when there is no current item and none after it.
    open func items() -> [AVPlayerItem] {
        (currentItem.map { [$0] } ?? []) + upcoming.value
    }

    /// Ends the current item and makes the next one current (none left: no current item).
    open func advanceToNextItem() {
        let next = upcoming.change { list -> AVPlayerItem? in list.isEmpty ? nil : list.removeFirst() }
        replaceCurrentItem(with: next)
    }

    /// Whether `item` can go after `afterItem`: not when it is queued already.
    ///
    /// - Parameters:
    ///   - item: The item to queue.
    ///   - afterItem: The item to follow; nil for the end of the queue.
    /// - Returns: False when `item` is the current item or already queued; true otherwise.
    open func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        !items().contains { $0 === item }
    }

    /// Queues `item` after `afterItem`. Does nothing when ``canInsert(_:after:)`` is false.
    ///
    /// - Parameters:
    ///   - item: The item to queue; with no current item it becomes current (and starts loading).
    ///   - afterItem: The item to follow; nil, or an item not queued, for the end of the queue.
    open func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        guard canInsert(item, after: afterItem) else { return }
        if currentItem == nil {
            replaceCurrentItem(with: item)
            return
        }
        upcoming.change { list in
            if let afterItem, afterItem !== currentItem, let index = list.firstIndex(where: { $0 === afterItem }) {
                list.insert(item, at: index + 1)
            } else if let afterItem, afterItem === currentItem {
                list.insert(item, at: 0)
            } else {
                list.append(item)
            }
        }
    }

    /// Takes `item` out of the queue.
    ///
    /// - Parameter item: A queued item; when it is the current one, the next becomes current (see
    ///   ``advanceToNextItem()``). An item not queued is ignored.
    open func remove(_ item: AVPlayerItem) {
        if item === currentItem {
            advanceToNextItem()
            return
        }
        upcoming.change { $0.removeAll { $0 === item } }
    }

    /// Empties the queue, the current item too.
    open func removeAllItems() {
        upcoming.change { $0 = [] }
        replaceCurrentItem(with: nil)
    }

    override func advanceAtEnd(of item: AVPlayerItem) {
        advanceToNextItem()
    }
}
