import Foundation

/// The decisions of a player, as a plain value: its status and failure, the rate asked for, whether
/// time runs (``AVPlayer/TimeControlStatus-swift.enum``, the waiting reason, stalls), the seeks in
/// flight with their generations and handlers, the prerolls waiting, and whether the item's end was
/// acted on. `AVPlayer` holds it behind its lock, runs one method inside the lock and carries out what
/// the method returns (key-value notices, notifications, handlers called, the timebase re-anchored)
/// after releasing it. The clock stays outside: methods take the item's time as an argument, so the
/// machine is tested with times of a manual clock.
///
/// `Handler` is whatever answers a seek or a preroll (a completion handler; a string in tests).
struct PlayerStateMachine<Handler> {
    private(set) var status = AVPlayer.Status.unknown
    private(set) var error: (any Error)?
    /// The rate asked for (0: paused).
    private(set) var rate: Float = 0
    private(set) var timeControlStatus = AVPlayer.TimeControlStatus.paused
    private(set) var waitingReason: AVPlayer.WaitingReason?
    /// The rate the timebase runs at: the rate while playing, else 0.
    private(set) var runningRate: Float64 = 0
    /// Set by `playImmediately(atRate:)`: starting does not wait for the buffer (until paused).
    private(set) var immediately = false
    /// Whether the current item's end has been acted on (until a seek, a new item or playing again).
    private(set) var endHandled = false
    /// Bumped by each seek, a new current item and a cancellation: a seek lands only while its
    /// generation is the current one.
    private(set) var seekGeneration = 0
    private var pendingSeeks: [(generation: Int, handler: Handler)] = []
    private var prerolls: [Handler] = []

    /// What the player knows of its current item when it decides whether time runs.
    struct ItemFacts: Equatable {
        var present = false
        var ready = false
        /// Nothing is read at the item's time (the buffer ran dry).
        var empty = false
        var likelyToKeepUp = true
        /// Where the media read ends (a stall holds the time there).
        var readEnd: CMTime?
    }

    /// What changed when the machine decided whether time runs.
    struct Refresh {
        var oldStatus: AVPlayer.TimeControlStatus
        var oldReason: AVPlayer.WaitingReason?
        /// Playing stopped because the buffer ran dry: post `.AVPlayerItemPlaybackStalled`.
        var stalled = false
        /// The timebase now runs at `rate` from `anchor` (the item's time, or where the read media ends
        /// after a stall); nil when its rate did not change.
        var restart: (rate: Float64, anchor: CMTime)?
    }

    /// Decides whether time runs: paused at rate 0 (or after a failure); waiting without an item
    /// (`.noItemToPlay`), for an item not ready (`.evaluatingBufferingRate`), or where nothing is read
    /// at `itemTime` or, before starting, too little to keep up (`.toMinimizeStalls`, unless
    /// `waitsToMinimizeStalling` is false or playing started immediately); else playing. A buffer
    /// running dry while playing is a stall, except right after a seek (`jumped`).
    mutating func refresh(_ item: ItemFacts, at itemTime: CMTime, waitsToMinimizeStalling: Bool, jumped: Bool) -> Refresh {
        var change = Refresh(oldStatus: timeControlStatus, oldReason: waitingReason)
        if rate == 0 || status == .failed {
            (timeControlStatus, waitingReason) = (.paused, nil)
        } else if !item.present {
            (timeControlStatus, waitingReason) = (.waitingToPlayAtSpecifiedRate, .noItemToPlay)
        } else if !item.ready {
            (timeControlStatus, waitingReason) = (.waitingToPlayAtSpecifiedRate, .evaluatingBufferingRate)
        } else if item.empty || change.oldStatus != .playing && waitsToMinimizeStalling && !immediately && !item.likelyToKeepUp {
            change.stalled = change.oldStatus == .playing && !jumped
            (timeControlStatus, waitingReason) = (.waitingToPlayAtSpecifiedRate, .toMinimizeStalls)
        } else {
            (timeControlStatus, waitingReason) = (.playing, nil)
        }
        let running = timeControlStatus == .playing ? Float64(rate) : 0
        if running != runningRate {
            runningRate = running
            // Anchored at the item's time, so time spent past the end (or before the start) does not
            // carry over; a stall stops where the media read ends.
            var anchor = itemTime
            if change.stalled, let end = item.readEnd, end.isNumeric { anchor = min(anchor, end) }
            change.restart = (running, anchor)
        }
        return change
    }

    /// The rate asked for changes (`newRate`: 0 or less, or not a number, pauses; a failed player stays
    /// paused). Playing again forgets that the end was reached; pausing ends an immediate start.
    /// Returns the old and new rate, and the prerolls a change to playing interrupts.
    mutating func setRate(_ newRate: Float, immediately now: Bool = false) -> (old: Float, new: Float, interrupted: [Handler]) {
        let wanted = newRate.isFinite && newRate > 0 && status != .failed ? newRate : 0
        let old = rate
        rate = wanted
        if now && wanted != 0 { immediately = true }
        var interrupted: [Handler] = []
        if wanted != 0 {
            endHandled = false
            interrupted = prerolls
            prerolls = []
        } else {
            immediately = false
        }
        return (old, wanted, interrupted)
    }

    /// The current item became ready: the player is ready too (a failed one stays failed). Returns the
    /// old status when it changed.
    mutating func itemBecameReady() -> AVPlayer.Status? {
        guard status == .unknown else { return nil }
        status = .readyToPlay
        return .unknown
    }

    /// The player can no longer play (its sound device failed): `.failed` with `error`, paused, and
    /// every seek and preroll waiting interrupted. Returns the old status and rate and those handlers;
    /// nil when it had already failed.
    mutating func fail(_ failure: any Error) -> (oldStatus: AVPlayer.Status, oldRate: Float, interrupted: [Handler])? {
        guard status != .failed else { return nil }
        let old = (status, rate)
        status = .failed
        error = failure
        rate = 0
        immediately = false
        seekGeneration += 1
        let interrupted = pendingSeeks.map(\.handler) + prerolls
        (pendingSeeks, prerolls) = ([], [])
        return (old.0, old.1, interrupted)
    }

    // MARK: - Items

    /// The current item changes (`changed`: to another item). Seeks and prerolls under way were for
    /// the old item: they are returned to be told false.
    mutating func replaceItem(changed: Bool) -> [Handler] {
        endHandled = false
        guard changed else { return [] }
        seekGeneration += 1
        let interrupted = pendingSeeks.map(\.handler) + prerolls
        (pendingSeeks, prerolls) = ([], [])
        return interrupted
    }

    /// Time reached the item's end: returns the seek generation to act in, once (nil when already acted on).
    mutating func reachEnd() -> Int? {
        guard !endHandled else { return nil }
        endHandled = true
        return seekGeneration
    }

    // MARK: - Seeks

    /// A seek starts: returns its generation, and the seeks and prerolls it interrupts.
    mutating func beginSeek(_ handler: Handler) -> (generation: Int, interrupted: [Handler]) {
        seekGeneration += 1
        let interrupted = pendingSeeks.map(\.handler) + prerolls
        pendingSeeks = [(seekGeneration, handler)]
        prerolls = []
        return (seekGeneration, interrupted)
    }

    /// Whether `generation` is still the latest seek (nothing newer came).
    func isCurrent(_ generation: Int) -> Bool { generation == seekGeneration }

    /// The seek of `generation` lands, unless a newer one came: the end may be reached again.
    mutating func land(_ generation: Int) -> Bool {
        guard generation == seekGeneration else { return false }
        endHandled = false
        return true
    }

    /// The handler of the seek of `generation`, to tell it true (nil when it was told false already).
    mutating func finishSeek(_ generation: Int) -> Handler? {
        guard let index = pendingSeeks.firstIndex(where: { $0.generation == generation }) else { return nil }
        return pendingSeeks.remove(at: index).handler
    }

    /// Every seek under way is abandoned (`cancelPendingSeeks`): their handlers, to tell false.
    mutating func cancelSeeks() -> [Handler] {
        seekGeneration += 1
        defer { pendingSeeks = [] }
        return pendingSeeks.map(\.handler)
    }

    // MARK: - Prerolls

    /// A preroll is asked for: registered and true when the player can preroll (ready, paused, with a
    /// ready item); false when it cannot (the handler is to be told false at once).
    mutating func beginPreroll(_ handler: Handler, itemReady: Bool) -> Bool {
        guard status == .readyToPlay, rate == 0, itemReady else { return false }
        prerolls.append(handler)
        return true
    }

    /// Whether prerolls wait.
    var prerolling: Bool { !prerolls.isEmpty }

    /// The item is ready to start: the prerolls waiting, to tell true.
    mutating func finishPrerolls() -> [Handler] {
        defer { prerolls = [] }
        return prerolls
    }

    /// The prerolls waiting, to tell false (`cancelPendingPrerolls`, or the player going away).
    mutating func cancelPrerolls() -> [Handler] {
        defer { prerolls = [] }
        return prerolls
    }

    /// Every handler still waiting (the player going away): to tell false.
    mutating func abandonAll() -> [Handler] {
        defer { (pendingSeeks, prerolls) = ([], []) }
        return pendingSeeks.map(\.handler) + prerolls
    }
}
