import Foundation

/// Loops a time range of an item in an ``AVQueuePlayer``: replicas of a template item take turns in the
/// player's queue, each put back into it, at the range's start, when it has played to the range's end.
///
/// The looper makes its replicas (``loopingPlayerItems``) at once, with the template's `copy()`; then,
/// once the template's asset has loaded its duration (at once when it is loaded already), it gives
/// each replica the loop range (a seek to its start and ``AVPlayerItem/forwardPlaybackEndTime`` at its
/// end), queues them, sets the player's ``AVPlayer/actionAtItemEnd`` to
/// ``AVPlayer/ActionAtItemEnd-swift.enum/advance`` and becomes ``Status-swift.enum/ready``. Call
/// `play()` on the player, before or after: it plays when the first replica is ready. Keep the looper:
/// looping stops when it goes (the replicas not playing leave the queue and the player's action at an
/// item's end is restored at once; ``disableLooping()`` restores it when the replica playing ends).
///
/// Cost: three items, each with its own read-ahead of the media (kept between its turns); one plays at
/// a time. The looper's work runs on the thread that changes the player's current item (the
/// player's tick queue at an item's end) and, for setting up, on a background queue once the duration
/// has loaded. Observe ``status``, ``loopCount``, ``error`` and ``loopingPlayerItems`` with
/// `observe(_:options:changeHandler:)`; the changes are reported on those threads.
///
/// Avocet's replicas are queued, not loaded, until they play (Avocet's queue player loads an item when
/// it becomes current): a replica's first turn starts once it has loaded, later turns at once.
open class AVPlayerLooper: NSObject, _AVKeyValueObserving, KeyValueObservable, @unchecked Sendable {
    // @unchecked Sendable: the state sits behind a lock; the player and the items are Sendable.

    /// How many replicas take turns ("at least 3", says Apple).
    static let replicaCount = 3

    /// Where the looper stands in its work on the player's queue.
    enum Phase {
        /// Waiting for the template's duration.
        case loading
        /// Putting each replica that ends back into the queue.
        case looping
        /// Disabled while a replica plays: its end finishes the looping.
        case winding
        /// Nothing more to do.
        case done
    }

    struct State {
        var status = Status.unknown
        var error: (any Error)?
        var loopCount = 0
        var phase = Phase.loading
        /// The range looped, once the duration is known.
        var range = CMTimeRange.invalid
        /// The player's action at an item's end before the looper set `.advance` (nil: left as it was).
        var originalAction: AVPlayer.ActionAtItemEnd?
        /// The looper's observers of the player's current item and of the replicas' status.
        var playerObserver: Int?
        var replicaObservers: [Int] = []
        /// Whether the observers are gone and the action at an item's end restored.
        var finished = false
        /// The load of the template's duration, when it was not loaded at first.
        var loading: Task<Void, Never>?
    }

    let state = LockedState(State())
    let keyValueObservers = KeyValueObservers()
    private let player: AVQueuePlayer
    private let replicas: [AVPlayerItem]
    private let requestedRange: CMTimeRange
    private let ordering: ItemOrdering

    /// A looper of `loopRange` of `itemToLoop` in `player`, placing its replicas as `itemOrdering` says.
    ///
    /// Makes the replicas on the calling thread (no I/O). When the template's asset has its duration
    /// loaded already, the replicas are queued before this returns and ``status`` is
    /// ``Status-swift.enum/ready`` (or ``Status-swift.enum/failed``); otherwise the duration loads on the
    /// engine's threads and the replicas are queued from a background queue. While the replicas go in,
    /// a player that is playing an item is paused, and its rate restored afterwards.
    ///
    /// Where Apple raises an exception (a template of no duration, a range of no time or outside the
    /// item), Avocet's looper fails instead: ``status`` becomes ``Status-swift.enum/failed`` with an
    /// ``AVError`` in ``error``. A range reaching past the item's end is cut at the end (Apple raises).
    ///
    /// - Parameters:
    ///   - player: The queue player to loop in.
    ///   - itemToLoop: The template: its asset, its automatically loaded keys, its preferred forward
    ///     buffer duration, video composition, audio mix, pitch algorithm and media selection go to the
    ///     replicas, as they are now; it is not played itself.
    ///   - loopRange: The range of the item's time to loop; `CMTimeRange.invalid` (or an end that is
    ///     not numeric, such as `.positiveInfinity`) loops to the item's end; a start that is not numeric,
    ///     or before zero, starts at zero.
    ///   - itemOrdering: Whether the replicas go before the items already queued (the current one too)
    ///     or after them.
    public init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem, timeRange loopRange: CMTimeRange,
                existingItemsOrdering itemOrdering: ItemOrdering) {
        self.player = player
        replicas = (0..<AVPlayerLooper.replicaCount).map { _ in AVPlayerLooper.replica(of: itemToLoop) }
        requestedRange = loopRange
        ordering = itemOrdering
        super.init()
        let asset = itemToLoop.asset
        if case let .loaded(duration) = asset.status(of: .duration), case let .loaded(playable) = asset.status(of: .isPlayable) {
            durationLoaded(.success((duration, playable)))
            return
        }
        let task = Task.detached { [weak self] in
            let result: Result<(CMTime, Bool), any Error>
            do { result = .success(try await asset.load(.duration, .isPlayable)) } catch { result = .failure(error) }
            guard let self else { return }
            // Set up from a dispatch queue, not the cooperative pool: observers of the player and of the
            // looper run there, and might block.
            DispatchQueue.global().async { self.durationLoaded(result) }
        }
        let stale = state.change { s -> Task<Void, Never>? in
            guard s.phase == .loading else { return task }
            s.loading = task
            return nil
        }
        stale?.cancel()
    }

    /// A looper of `loopRange` of `itemToLoop` in `player`, its replicas before the items already queued
    /// (see ``init(player:templateItem:timeRange:existingItemsOrdering:)``).
    ///
    /// - Parameters:
    ///   - player: The queue player to loop in.
    ///   - itemToLoop: The template item.
    ///   - loopRange: The range of the item's time to loop; `CMTimeRange.invalid` for all of it.
    public convenience init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem, timeRange loopRange: CMTimeRange) {
        self.init(player: player, templateItem: itemToLoop, timeRange: loopRange, existingItemsOrdering: .loopingItemsPrecedeExistingItems)
    }

    /// A looper of all of `itemToLoop` in `player`, its replicas before the items already queued (see
    /// ``init(player:templateItem:timeRange:existingItemsOrdering:)``, with `CMTimeRange.invalid`).
    ///
    /// - Parameters:
    ///   - player: The queue player to loop in.
    ///   - itemToLoop: The template item.
    public convenience init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem) {
        self.init(player: player, templateItem: itemToLoop, timeRange: .invalid)
    }

    deinit {
        let s = state.value
        s.loading?.cancel()
        // The player's queue is its own again: the replica playing plays to its end, the others go.
        if !s.finished, s.phase == .looping || s.phase == .winding {
            let current = player.currentItem
            for replica in replicas where replica !== current { player.remove(replica) }
        }
        finish()
    }

    class func observedName(of keyPath: AnyKeyPath) -> String? {
        let names: [AnyKeyPath: String] = [
            \AVPlayerLooper.status: "status", \AVPlayerLooper.loopCount: "loopCount",
            \AVPlayerLooper.loopingPlayerItems: "loopingPlayerItems",
        ]
        return names[keyPath] ?? (keyPath == \AVPlayerLooper.error ? "error" : nil)
    }

    // MARK: - Properties

    /// Whether the looper loops: ``Status-swift.enum/unknown`` until the template's duration is known,
    /// then ``Status-swift.enum/ready``, ``Status-swift.enum/failed`` or, after ``disableLooping()``,
    /// ``Status-swift.enum/cancelled``; observable. Cheap: reads state.
    open var status: Status { state.value.status }

    /// Why the looper failed (an ``AVError``: the template's asset's load error, why it cannot be
    /// looped, or the error of a replica that failed to load or play, which stops the looping and leaves
    /// the queue as it is); nil unless ``status`` is ``Status-swift.enum/failed``; observable.
    open var error: (any Error)? { state.value.error }

    /// How many times a replica has started playing the range again: 0 at first, one more each time the
    /// player goes on from a replica at its end to the next; observable (reported on the thread that
    /// ended the replica, the player's tick queue).
    open var loopCount: Int { state.value.loopCount }

    /// The replicas of the template item that take turns in the player's queue, made when the looper
    /// was; observable. Add outputs (``AVPlayerItem/add(_:)``) to each of them, as the template's are not
    /// copied; do not seek them or change their ``AVPlayerItem/forwardPlaybackEndTime``.
    open var loopingPlayerItems: [AVPlayerItem] { replicas }

    // MARK: - Disabling

    /// Stops looping: the replica playing plays to its end, the other replicas leave the queue, and the
    /// player's ``AVPlayer/actionAtItemEnd`` is restored at that end (at once when no replica plays);
    /// ``status`` becomes ``Status-swift.enum/cancelled`` (and ``error`` nil). Items queued before the
    /// looper play on. Runs on the calling thread; calling it again does nothing.
    open func disableLooping() {
        let change = state.change { s -> (before: Status, error: (any Error)?, phase: Phase, loading: Task<Void, Never>?)? in
            guard s.status != .cancelled else { return nil }
            let before = (before: s.status, error: s.error, phase: s.phase, loading: s.loading)
            (s.status, s.error, s.loading) = (.cancelled, nil, nil)
            switch s.phase {
            case .loading: s.phase = .done
            case .looping: s.phase = .winding
            case .winding, .done: break
            }
            return before
        }
        guard let change else { return }
        change.loading?.cancel()
        if let error = change.error {
            keyValueObservers.didSet("error", from: Optional(error) as Any, to: Optional<any Error>.none as Any)
        }
        keyValueObservers.didChange("status", from: change.before, to: Status.cancelled)
        if change.phase == .looping { windDown() }
    }

    // MARK: - Setting up

    /// A replica of `template`: a copy, with the settings an app gives an item before it plays.
    private static func replica(of template: AVPlayerItem) -> AVPlayerItem {
        let keys: [String] = template.automaticallyLoadedAssetKeys
        let replica = template.copy() as? AVPlayerItem ?? AVPlayerItem(asset: template.asset, automaticallyLoadedAssetKeys: keys)
        let settings = template.snapshot
        replica.preferredForwardBufferDuration = settings.preferredForwardBufferDuration
        replica.reversePlaybackEndTime = settings.reversePlaybackEndTime
        replica.videoComposition = settings.videoComposition
        replica.audioMix = settings.audioMix
        replica.audioTimePitchAlgorithm = settings.audioTimePitchAlgorithm
        // The options chosen by hand hold when the replica loads; the others the player chooses again.
        replica.change { $0.selection = settings.selection }
        return replica
    }

    /// The range looped: `requested` within the item's `duration`. Pure; any thread.
    ///
    /// - Parameters:
    ///   - requested: The range asked for; invalid for all of the item.
    ///   - duration: The asset's duration; indefinite for media that states none.
    /// - Returns: The range from the requested start (zero when not numeric or before zero) to the
    ///   requested end (the duration when not numeric or after it); a failure when that range holds no
    ///   time, or has no end (no numeric end asked for, and no duration known).
    package static func loopRange(_ requested: CMTimeRange, in duration: CMTime) -> Result<CMTimeRange, AVError> {
        if duration.isNumeric && duration <= .zero {
            return .failure(AVError(.operationNotAllowed, userInfo: [NSLocalizedDescriptionKey: "The template item has no duration to loop."]))
        }
        let start = requested.isValid && requested.start.isNumeric ? max(.zero, requested.start) : .zero
        let wanted = requested.isValid ? requested.end : .invalid
        let end: CMTime
        switch (wanted.isNumeric, duration.isNumeric) {
        case (true, true): end = min(wanted, duration)
        case (true, false): end = wanted
        case (false, true): end = duration
        case (false, false):
            return .failure(AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "The template item's media states no duration, and the loop range no end.",
            ]))
        }
        guard start < end else {
            return .failure(AVError(.operationNotAllowed, userInfo: [
                NSLocalizedDescriptionKey: "The loop range holds no time of the template item (from \(start.seconds) s to \(end.seconds) s).",
            ]))
        }
        return .success(CMTimeRange(start: start, end: end))
    }

    /// The template's duration loaded (or failed to): the looper sets up or fails.
    private func durationLoaded(_ result: Result<(CMTime, Bool), any Error>) {
        guard state.value.phase == .loading else { return }
        switch result {
        case let .failure(error):
            fail(AVError.converting(error))
        case .success((_, false)):
            fail(AVError(.fileFormatNotRecognized, userInfo: [NSLocalizedDescriptionKey: "The template item's asset has no track Avocet can play."]))
        case let .success((duration, true)):
            switch AVPlayerLooper.loopRange(requestedRange, in: duration) {
            case let .success(range): start(range)
            case let .failure(error): fail(error)
            }
        }
    }

    /// Gives the replicas the range, queues them and starts looping.
    private func start(_ range: CMTimeRange) {
        for replica in replicas {
            replica.forwardPlaybackEndTime = range.end
            // No player runs a replica yet: this only sets where it starts.
            replica.seek(to: range.start, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
        }
        let claimed = state.change { s -> Bool in
            guard s.phase == .loading else { return false }
            (s.phase, s.range, s.loading) = (.looping, range, nil)
            return true
        }
        guard claimed else { return }
        observe()
        // Paused while the queue changes under a playing item (as Apple's looper does), then going on.
        let rate = player.rate
        let paused = rate != 0 && player.currentItem != nil
        if paused { player.pause() }
        let action = player.actionAtItemEnd
        if action != .advance {
            state.change { $0.originalAction = action }
            player.actionAtItemEnd = .advance
        }
        let existing = player.items()
        if ordering == .loopingItemsPrecedeExistingItems, !existing.isEmpty {
            // Before the current item too: the queue is made again, the items keeping their times.
            player.removeAllItems()
            for replica in replicas { player.insert(replica, after: nil) }
            for item in existing { player.insert(item, after: nil) }
        } else {
            for replica in replicas { player.insert(replica, after: nil) }
        }
        if paused { player.rate = rate }
        let (ready, winding) = state.change { s -> (Bool, Bool) in
            let ready = s.status == .unknown
            if ready { s.status = .ready }
            return (ready, s.phase == .winding)
        }
        if ready { keyValueObservers.didChange("status", from: Status.unknown, to: Status.ready) }
        // Disabled while the replicas went in: they go out again.
        if winding { windDown() }
    }

    /// Starts observing the player's current item (each replica's end) and the replicas' status.
    private func observe() {
        let playerObserver = player.keyValueObservers.add(name: "currentItem") { [weak self] old, new in
            self?.currentItemChanged(from: old as? AVPlayerItem, to: new as? AVPlayerItem)
        }
        let replicaObservers = replicas.map { replica in
            let box = WeakBox(replica)
            return replica.keyValueObservers.add(name: "status") { [weak self] _, new in
                guard (new as? AVPlayerItem.Status) == .failed, let replica = box.value else { return }
                self?.fail(replica.error ?? AVError(.unknown, userInfo: [NSLocalizedDescriptionKey: "A looping item failed."]))
            }
        }
        state.change { ($0.playerObserver, $0.replicaObservers) = (playerObserver, replicaObservers) }
    }

    // MARK: - Looping

    private func isReplica(_ item: AVPlayerItem) -> Bool {
        replicas.contains { $0 === item }
    }

    /// The player went on from `old` to `new`. A replica that left goes back into the queue, at the
    /// range's start, after the other replicas; going on to a replica is one more loop. Runs on the
    /// thread that changed the item, before the new item is taken up.
    private func currentItemChanged(from old: AVPlayerItem?, to new: AVPlayerItem?) {
        guard let old, isReplica(old) else { return }
        enum Step { case nothing, requeue, finish }
        let nextIsReplica = new.map(isReplica) ?? false
        let (step, count) = state.change { s -> (Step, (Int, Int)?) in
            switch s.phase {
            case .looping:
                guard nextIsReplica, s.loopCount < Int.max else { return (.requeue, nil) }
                s.loopCount += 1
                return (.requeue, (s.loopCount - 1, s.loopCount))
            case .winding:
                return (.finish, nil)
            case .loading, .done:
                return (.nothing, nil)
            }
        }
        if let (before, after) = count { keyValueObservers.didChange("loopCount", from: before, to: after) }
        switch step {
        case .requeue: requeue(old, current: new)
        case .finish: finish()
        case .nothing: break
        }
    }

    /// Puts `item` back into the queue at the range's start: after the last replica queued (or, with
    /// none queued, after `current` when replicas go first, at the end when they follow).
    private func requeue(_ item: AVPlayerItem, current: AVPlayerItem?) {
        // An emptied queue is the app's doing (`removeAllItems()`): the looper does not fill it again.
        guard let current else { return }
        item.seek(to: state.value.range.start, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
        guard player.canInsert(item, after: nil) else { return }
        let queue = player.items()
        let anchor = queue.last(where: isReplica) ?? (ordering == .loopingItemsPrecedeExistingItems ? current : queue.last)
        player.insert(item, after: anchor)
        // Disabled meanwhile (after the check above): out again, unless it is playing already.
        if state.value.phase != .looping, item !== player.currentItem { player.remove(item) }
    }

    /// Disabled while looping: the replicas not playing leave the queue; with none playing the looping
    /// finishes now, else at the end of the one playing.
    private func windDown() {
        for replica in replicas where replica !== player.currentItem { player.remove(replica) }
        if let current = player.currentItem, isReplica(current) { return }
        finish()
    }

    /// The looper fails with `error` (unless it failed or was disabled before): it stops looping.
    private func fail(_ error: any Error) {
        let before = state.change { s -> Status? in
            guard s.status == .unknown || s.status == .ready else { return nil }
            let before = s.status
            (s.status, s.error) = (.failed, error)
            return before
        }
        guard let before else { return }
        finish()
        keyValueObservers.didSet("error", from: Optional<any Error>.none as Any, to: Optional(error) as Any)
        keyValueObservers.didChange("status", from: before, to: Status.failed)
    }

    /// Ends the looper's work on the player, once: its observers go, and the player's action at an
    /// item's end is restored (unless the app changed it meanwhile).
    private func finish() {
        let taken = state.change { s -> (Int?, [Int], AVPlayer.ActionAtItemEnd?)? in
            guard !s.finished else { return nil }
            s.finished = true
            s.phase = .done
            defer { (s.playerObserver, s.replicaObservers, s.originalAction) = (nil, [], nil) }
            return (s.playerObserver, s.replicaObservers, s.originalAction)
        }
        guard let (playerObserver, replicaObservers, action) = taken else { return }
        if let playerObserver { player.keyValueObservers.remove(playerObserver) }
        for (replica, number) in zip(replicas, replicaObservers) { replica.keyValueObservers.remove(number) }
        if let action, player.actionAtItemEnd == .advance { player.actionAtItemEnd = action }
    }
}
