internal import MediaEngine
import Dispatch
import Foundation
internal import Locking
import Synchronization

/// Plays one item at a time against a clock: its time runs at ``rate`` on a timebase over the host clock
/// (or ``sourceClock``), time observers fire on their queues as the time passes marks, and
/// ``actionAtItemEnd`` acts at the end.
///
/// While it plays, the item's media is read ahead on the engine's threads
/// (``AVPlayerItem/loadedTimeRanges``); where nothing is read yet the player waits
/// (``TimeControlStatus-swift.enum/waitingToPlayAtSpecifiedRate``, a stall) and goes on when it is. The
/// sound of the item's first enabled audio track goes to the audio device from a thread of its own;
/// pictures go to the item's ``AVPlayerItemVideoOutput``s. Nothing here runs on Swift's cooperative
/// pool or blocks the caller: time observers and seek handlers are called on their queues (seek
/// handlers on a background queue). Observe ``status``, ``rate``, ``timeControlStatus`` and
/// ``currentItem`` with `observe(_:options:changeHandler:)`.
open class AVPlayer: NSObject, _AVKeyValueObserving, KeyValueObservable, @unchecked Sendable {
    // @unchecked Sendable: the state sits behind a lock; observers are called outside it.
    typealias Handler = @Sendable (Bool) -> Void

    struct State {
        /// Status, rate, whether time runs, seeks and prerolls: the decisions (see `PlayerStateMachine`).
        var machine = PlayerStateMachine<Handler>()
        var item: AVPlayerItem?
        var defaultRate: Float = 1
        var automaticallyWaitsToMinimizeStalling = true
        var appliesMediaSelectionCriteriaAutomatically = true
        var selectionCriteria: [AVMediaCharacteristic: AVPlayerMediaSelectionCriteria] = [:]
        var actionAtItemEnd = ActionAtItemEnd.pause
        var volume: Float = 1
        var isMuted = false
        var clock = CMClock.hostTimeClock
        var timebase = CMTimebase(sourceClock: .hostTimeClock)
        /// The rate the player runs its timebase at (0 unless playing). While sound plays on a device
        /// that keeps time, the timebase itself may stand still until the sound catches up.
        var runningRate: Float64 { machine.runningRate }
        var periodic: [PeriodicObserver] = []
        var boundary: [BoundaryObserver] = []
        /// The item time at the last tick, for crossing marks.
        var lastTick = CMTime.zero
        var clockListener: Int?
        var timer: DispatchSourceTimer?
        /// When the host clock's timer fires next (it fires once, and each tick sets the next).
        var nextTick = DispatchTime.distantFuture
        /// The sound, once the player first plays an item with audio (nil: no device, or not yet).
        var audio: AudioRenderer?
        var audioTried = false
        /// The audio device to use instead of the configured one (Avocet's tests: a file device).
        var audioDevice: (name: String, configuration: String?)?
    }

    /// A token ``addPeriodicTimeObserver(forInterval:queue:using:)`` and
    /// ``addBoundaryTimeObserver(forTimes:queue:using:)`` return.
    final class TimeObserver: NSObject, @unchecked Sendable {}

    struct PeriodicObserver {
        let token: TimeObserver
        let interval: CMTime
        let queue: DispatchQueue
        let block: @Sendable (CMTime) -> Void
        /// The number of whole intervals passed when it last fired.
        var lastMark: Int64
    }

    struct BoundaryObserver {
        let token: TimeObserver
        let times: [CMTime]
        let queue: DispatchQueue
        let block: @Sendable () -> Void
    }

    let state = LockedState(State())
    let keyValueObservers = KeyValueObservers()
    /// Serializes ticks and the host clock's timer.
    let tickQueue = DispatchQueue(label: "avocet.player.ticks")

    /// A player with no item.
    public override init() {
        super.init()
        tickQueue.setSpecific(key: AVPlayer.tickQueueKey, value: ObjectIdentifier(self))
    }

    /// A player for an item of the asset at `URL`. The item starts loading at once, on the engine's
    /// threads.
    ///
    /// - Parameter URL: A URL as ``AVURLAsset/init(url:options:)`` takes it.
    public convenience init(url URL: URL) {
        self.init(playerItem: AVPlayerItem(url: URL))
    }

    /// A player for `item` (which starts loading).
    ///
    /// - Parameter item: The item to play, or nil for a player with no item yet.
    public init(playerItem item: AVPlayerItem?) {
        super.init()
        tickQueue.setSpecific(key: AVPlayer.tickQueueKey, value: ObjectIdentifier(self))
        replaceCurrentItem(with: item)
    }

    deinit {
        var s = state.value
        // Seeks and prerolls still on their way (a keyframe lookup) are reported unfinished.
        AVPlayer.unfinished(s.machine.abandonAll())
        s.audio?.shutDown()
        s.timer?.cancel()
        if let listener = s.clockListener { s.clock.stopListening(listener) }
    }

    class func observedName(of keyPath: AnyKeyPath) -> String? {
        let names: [AnyKeyPath: String] = [
        \AVPlayer.status: "status", \AVPlayer.rate: "rate", \AVPlayer.timeControlStatus: "timeControlStatus",
        \AVPlayer.currentItem: "currentItem", \AVPlayer.reasonForWaitingToPlay: "reasonForWaitingToPlay",
        \AVPlayer.volume: "volume", \AVPlayer.isMuted: "isMuted", \AVPlayer.defaultRate: "defaultRate",
        \AVPlayer.currentItem?.status: "currentItem.status", \AVPlayer.currentItem?.duration: "currentItem.duration",
        \AVPlayer.currentItem?.presentationSize: "currentItem.presentationSize",
        \AVPlayer.currentItem?.isPlaybackLikelyToKeepUp: "currentItem.isPlaybackLikelyToKeepUp",
        \AVPlayer.currentItem?.isPlaybackBufferEmpty: "currentItem.isPlaybackBufferEmpty",
        \AVPlayer.currentItem?.isPlaybackBufferFull: "currentItem.isPlaybackBufferFull",
        \AVPlayer.currentItem?.loadedTimeRanges: "currentItem.loadedTimeRanges",
        ]
        return names[keyPath] ?? (keyPath == \AVPlayer.error ? "error" : nil)
    }

    var snapshot: State { state.value }

    @discardableResult
    func change<T>(_ body: (inout State) -> T) -> T {
        state.change(body)
    }

    // MARK: - Properties

    /// ``Status-swift.enum/readyToPlay`` once an item of the player has been ready,
    /// ``Status-swift.enum/unknown`` before; observable.
    open var status: Status { snapshot.machine.status }
    /// Why the player failed (``status`` ``Status-swift.enum/failed``): its sound device stopped
    /// working (``AVError/Code-swift.enum/mediaServicesWereReset``); nil otherwise. An item that fails
    /// says so in its own ``AVPlayerItem/error``.
    open var error: (any Error)? { snapshot.machine.error }
    /// The item playing, or nil; observable.
    open var currentItem: AVPlayerItem? { snapshot.item }
    /// Whether the time is moving, paused, or waiting (see ``reasonForWaitingToPlay``); observable.
    open var timeControlStatus: TimeControlStatus { snapshot.machine.timeControlStatus }
    /// Why the player waits while ``timeControlStatus`` is
    /// ``TimeControlStatus-swift.enum/waitingToPlayAtSpecifiedRate``; nil otherwise.
    open var reasonForWaitingToPlay: WaitingReason? { snapshot.machine.waitingReason }

    /// The rate asked for: 0 paused, 1 normal speed. Setting it plays or pauses; while the item is not
    /// ready the player waits (``timeControlStatus``
    /// ``TimeControlStatus-swift.enum/waitingToPlayAtSpecifiedRate``). A negative rate (reverse play)
    /// counts as 0: Avocet's items cannot play in reverse.
    open var rate: Float {
        get { snapshot.machine.rate }
        set { setRate(newValue) }
    }

    /// The rate ``play()`` uses.
    open var defaultRate: Float {
        get { snapshot.defaultRate }
        set {
            let old = change { s -> Float in defer { s.defaultRate = newValue }; return s.defaultRate }
            keyValueObservers.didChange("defaultRate", from: old, to: newValue)
        }
    }

    /// Whether starting to play waits until enough media is read ahead (true by default); with false, play
    /// starts as soon as the media at the time is read.
    open var automaticallyWaitsToMinimizeStalling: Bool {
        get { snapshot.automaticallyWaitsToMinimizeStalling }
        set { change { $0.automaticallyWaitsToMinimizeStalling = newValue } }
    }

    /// What happens when the item plays to its end: ``ActionAtItemEnd-swift.enum/pause`` by default
    /// (``ActionAtItemEnd-swift.enum/advance`` for ``AVQueuePlayer``).
    open var actionAtItemEnd: ActionAtItemEnd {
        get { snapshot.actionAtItemEnd }
        set { change { $0.actionAtItemEnd = newValue } }
    }

    /// 0 to 1; kept for the audio output.
    open var volume: Float {
        get { snapshot.volume }
        set {
            let clamped = min(1, max(0, newValue.isFinite ? newValue : 0))
            let old = change { s -> Float in defer { s.volume = clamped }; return s.volume }
            updateGain()
            keyValueObservers.didChange("volume", from: old, to: clamped)
        }
    }

    /// Whether the sound is silenced (the volume is kept); observable.
    open var isMuted: Bool {
        get { snapshot.isMuted }
        set {
            let old = change { s -> Bool in defer { s.isMuted = newValue }; return s.isMuted }
            updateGain()
            keyValueObservers.didChange("isMuted", from: old, to: newValue)
        }
    }

    /// The clock the player's time runs against: nil for the host clock. Setting one keeps the
    /// current time. (Avocet's tests set a manual clock, so time moves exactly when they say.)
    open var sourceClock: CMClock? {
        get { let clock = snapshot.clock; return clock === CMClock.hostTimeClock ? nil : clock }
        set {
            let clock = newValue ?? .hostTimeClock
            let (old, time, rate, listener) = change { s -> (CMClock, CMTime, Float64, Int?) in
                let old = s.clock
                let time = s.timebase.time, rate = s.timebase.rate
                s.clock = clock
                s.timebase = CMTimebase(sourceClock: clock)
                s.timebase.setTime(time)
                s.timebase.setRate(rate)
                let listener = s.clockListener
                s.clockListener = nil
                return (old, time, rate, listener)
            }
            _ = (time, rate)
            if let listener { old.stopListening(listener) }
            updateTicking()
        }
    }

    // MARK: - Items

    /// Makes `item` the current item (it starts loading), at its own time, keeping the rate. Seeks
    /// still on their way for the old item report false; the old item keeps its time for when it is
    /// played again.
    ///
    /// - Parameter item: The item to play, or nil to play nothing.
    open func replaceCurrentItem(with item: AVPlayerItem?) {
        let (old, oldTime, unfinished) = change { s -> (AVPlayerItem?, CMTime, [Handler]) in
            let old = s.item
            let oldTime = clamp(s.timebase.time, old)
            s.item = item
            s.timebase.setTime(item?.snapshot.time ?? .zero)
            s.lastTick = item?.snapshot.time ?? .zero
            // Seeks and prerolls on their way were for the old item: they never land on the new one.
            return (old, oldTime, s.machine.replaceItem(changed: old !== item))
        }
        AVPlayer.unfinished(unfinished)
        if old !== item {
            // The item keeps its time for when it is played again.
            old?.change { $0.time = oldTime }
            if old?.player === self { old?.attach(to: nil) }
            keyValueObservers.didChange("currentItem", from: old, to: item)
            // Observers of `currentItem?.x` hear the new item's values, before the item is attached:
            // attaching starts its loading, whose changes it then forwards to the same observers, so
            // they come after these (a load finishing at once could otherwise be heard first).
            let (before, after) = (old?.snapshot, item?.snapshot)
            if before?.status != after?.status { keyValueObservers.didSet("currentItem.status", from: before?.status as Any, to: after?.status as Any) }
            if before?.duration != after?.duration { keyValueObservers.didSet("currentItem.duration", from: before?.duration as Any, to: after?.duration as Any) }
            item?.attach(to: self)
        }
        if let item { item.snapshot.buffer?.jump(to: item.snapshot.time) }
        if item?.status == .readyToPlay, let item { itemDidLoad(item) } else { refreshPlayback() }
    }

    /// An item of this player finished loading.
    // MARK: - Media selection

    /// Whether the player chooses its items' options by their media selection criteria when they load
    /// (and when ``AVPlayerItem/selectMediaOptionAutomatically(in:)`` asks); default true. Without
    /// criteria for a group's characteristic it chooses the group's default option (Avocet's: Apple's
    /// also follows the system's language and accessibility settings, which Linux does not have).
    open var appliesMediaSelectionCriteriaAutomatically: Bool {
        get { snapshot.appliesMediaSelectionCriteriaAutomatically }
        set { change { $0.appliesMediaSelectionCriteriaAutomatically = newValue } }
    }

    /// Sets the criteria the player chooses by in its items' groups of `mediaCharacteristic`; they
    /// apply to items that load afterwards and to ``AVPlayerItem/selectMediaOptionAutomatically(in:)``.
    ///
    /// - Parameters:
    ///   - criteria: The criteria; nil removes them.
    ///   - mediaCharacteristic: `.audible`, `.legible` or `.visual`.
    open func setMediaSelectionCriteria(_ criteria: AVPlayerMediaSelectionCriteria?, forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) {
        change { $0.selectionCriteria[mediaCharacteristic] = criteria }
    }

    /// The criteria set for `mediaCharacteristic`.
    ///
    /// - Parameter mediaCharacteristic: `.audible`, `.legible` or `.visual`.
    /// - Returns: The criteria; nil when none are set.
    open func mediaSelectionCriteria(forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> AVPlayerMediaSelectionCriteria? {
        snapshot.selectionCriteria[mediaCharacteristic]
    }

    /// The option the player would choose in `group` by itself: by its criteria for the group's
    /// characteristic when it applies them, else the group's default.
    func automaticOption(in group: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        let s = snapshot
        guard s.appliesMediaSelectionCriteriaAutomatically, let criteria = s.selectionCriteria[group.characteristic] else {
            return group.defaultOption
        }
        return criteria.choice(in: group)
    }

    /// The current item's selection changed: its sound starts again with the tracks now enabled.
    func mediaSelectionDidChange(_ item: AVPlayerItem) {
        guard snapshot.item === item else { return }
        updateSound()
    }

    func itemDidLoad(_ item: AVPlayerItem) {
        if item.status == .readyToPlay, let old = change({ $0.machine.itemBecameReady() }) {
            keyValueObservers.didChange("status", from: old, to: Status.readyToPlay)
        }
        refreshPlayback()
    }

    // MARK: - Rate

    /// Plays at ``defaultRate``.
    open func play() { setRate(defaultRate) }

    /// Pauses (rate 0).
    open func pause() { setRate(0) }

    /// Plays at `rate` at once, without waiting for more to be read ahead (it still waits where nothing
    /// is read yet), whatever ``automaticallyWaitsToMinimizeStalling`` says, until paused.
    ///
    /// - Parameter rate: The rate, 1 for normal speed; 0 or less pauses.
    open func playImmediately(atRate rate: Float) {
        setRate(rate, immediately: true)
    }

    /// Plays at `rate` with the item at `itemTime` when the clock reads `hostClockTime`.
    ///
    /// - Parameters:
    ///   - rate: The rate, 1 for normal speed; 0 or less pauses.
    ///   - itemTime: The item's time at `hostClockTime`; an invalid time keeps the current time.
    ///   - hostClockTime: A time of the player's clock (the host clock, or ``sourceClock``); an invalid
    ///     time means now.
    open func setRate(_ rate: Float, time itemTime: CMTime, atHostTime hostClockTime: CMTime) {
        change { s in
            let hostTime = hostClockTime.isNumeric ? hostClockTime : s.clock.time
            let time = itemTime.isNumeric ? itemTime : s.timebase.time
            s.timebase.setRateAndAnchorTime(rate: 0, anchorTime: time, immediateSourceTime: hostTime)
            s.lastTick = time
        }
        setRate(rate)
        change { s in
            let hostTime = hostClockTime.isNumeric ? hostClockTime : s.clock.time
            let time = itemTime.isNumeric ? itemTime : s.lastTick
            if s.machine.timeControlStatus == .playing {
                s.timebase.setRateAndAnchorTime(rate: Float64(s.machine.rate), anchorTime: time, immediateSourceTime: hostTime)
            }
        }
    }

    /// Negative rates (reverse play) count as 0: Avocet's items cannot play in reverse
    /// (`canPlayReverse` is false).
    /// A failed player stays paused.
    private func setRate(_ newRate: Float, immediately: Bool = false) {
        let (old, rate, interrupted) = change { $0.machine.setRate(newRate, immediately: immediately) }
        AVPlayer.unfinished(interrupted)
        if old != rate {
            keyValueObservers.didChange("rate", from: old, to: rate)
            NotificationCenter.default.post(name: AVPlayer.rateDidChangeNotification, object: self)
        }
        refreshPlayback()
    }

    /// Runs the timebase at the rate when the item is ready and its media is read ahead, and says why
    /// not when it is not: an item still loading is `.evaluatingBufferingRate`; one whose buffer ran
    /// dry (a stall: `.AVPlayerItemPlaybackStalled` is posted) or, before starting, holds less than a
    /// second is `.toMinimizeStalls` (unless `automaticallyWaitsToMinimizeStalling` is false or
    /// `playImmediately(atRate:)` started it).
    /// After a seek (`jumped`), waiting for media there is not a stall: nothing is posted.
    /// `tickSoon`: the next tick comes within 10 ms (false when only the buffer changed, or from a tick:
    /// unless the time restarted, the ticks' schedule stands).
    func refreshPlayback(jumped: Bool = false, tickSoon: Bool = true) {
        let (change, newStatus, newReason, stalled) = self.change { s -> (PlayerStateMachine<Handler>.Refresh, TimeControlStatus, WaitingReason?, AVPlayerItem?) in
            let now = s.clock.time
            let itemNow = clamp(s.timebase.time(atSourceTime: now), s.item)
            let flags = s.item?.bufferFlags(at: itemNow)
            var facts = PlayerStateMachine<Handler>.ItemFacts()
            facts.present = s.item != nil
            facts.ready = s.item?.status == .readyToPlay
            if let flags {
                (facts.empty, facts.likelyToKeepUp, facts.readEnd) = (flags.empty, flags.likelyToKeepUp, flags.loaded.last?.end)
            }
            let change = s.machine.refresh(facts, at: itemNow, waitsToMinimizeStalling: s.automaticallyWaitsToMinimizeStalling, jumped: jumped)
            if let restart = change.restart {
                s.timebase.setRateAndAnchorTime(rate: restart.rate, anchorTime: restart.anchor, immediateSourceTime: now)
                if restart.anchor < s.lastTick { s.lastTick = restart.anchor }
                // Periodic observers hear of starts and stops, with the time playback starts or stops at.
                firePeriodicObservers(in: &s, at: restart.anchor, all: true)
            }
            return (change, s.machine.timeControlStatus, s.machine.waitingReason, change.stalled ? s.item : nil)
        }
        let (oldStatus, oldReason, restarted) = (change.oldStatus, change.oldReason, change.restart != nil)
        keyValueObservers.didChange("timeControlStatus", from: oldStatus, to: newStatus)
        keyValueObservers.didChange("reasonForWaitingToPlay", from: oldReason, to: newReason)
        if let stalled { NotificationCenter.default.post(name: AVPlayerItem.playbackStalledNotification, object: stalled) }
        if restarted { updateSound() }
        updateTicking(soon: tickSoon || restarted)
    }

    /// The current item's buffer changed: it may play now, or must wait.
    func bufferDidChange(_ item: AVPlayerItem) {
        guard currentItem === item else { return }
        refreshPlayback(tickSoon: false)
        finishPrerolls()
    }

    /// The current item failed while playing: the player pauses.
    func itemDidFail(_ item: AVPlayerItem) {
        guard currentItem === item else { return }
        pause()
    }

    // MARK: - Time

    /// The current item's time, never past its end.
    ///
    /// - Returns: The time on the item's timeline; zero without an item.
    open func currentTime() -> CMTime {
        let s = snapshot
        return clamp(s.timebase.time, s.item)
    }

    // MARK: - Seeking

    /// Moves to `time` with the default (unbounded) tolerances: the nearest keyframe where the index knows one.
    ///
    /// - Parameter time: A time on the item's timeline; clamped to the item.
    open func seek(to time: CMTime) {
        seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity, completionHandler: { _ in })
    }

    /// Moves to `time` with the default tolerances (see
    /// ``seek(to:toleranceBefore:toleranceAfter:completionHandler:)``).
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline; clamped to the item.
    ///   - completionHandler: Gets true on a background queue once the seek has landed, false when a
    ///     newer seek came first.
    open func seek(to time: CMTime, completionHandler: @escaping @Sendable (Bool) -> Void) {
        seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity, completionHandler: completionHandler)
    }

    /// Moves to `time` with the default tolerances, awaiting the landing without holding a thread.
    ///
    /// - Parameter time: A time on the item's timeline; clamped to the item.
    /// - Returns: True once the seek has landed; false when a newer seek came first, or `time` is not
    ///   numeric.
    open func seek(to time: CMTime) async -> Bool {
        await withHandOffContinuation { done in seek(to: time) { done.resume(returning: $0) } }
    }

    /// Moves to `time` within the tolerances (zero ones: exactly); see
    /// ``seek(to:toleranceBefore:toleranceAfter:completionHandler:)``.
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline; clamped to the item.
    ///   - toleranceBefore: How far before `time` the landing may be.
    ///   - toleranceAfter: How far after `time` the landing may be.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) {
        seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completionHandler: { _ in })
    }

    /// Moves to `time` within the tolerances, awaiting the landing without holding a thread.
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline; clamped to the item.
    ///   - toleranceBefore: How far before `time` the landing may be.
    ///   - toleranceAfter: How far after `time` the landing may be.
    /// - Returns: True once the seek has landed; false when a newer seek came first, or `time` is not
    ///   numeric.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) async -> Bool {
        await withHandOffContinuation { done in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { done.resume(returning: $0) }
        }
    }

    /// Moves the current item to `time` (clamped to the item). Periodic observers and
    /// ``AVPlayerItem/timeJumpedNotification`` report the jump.
    ///
    /// Zero tolerances land on `time` exactly. Wider ones land on the keyframe nearest `time` within
    /// them when the item's video is a file's whose index knows its keyframes (MP4, MOV, Matroska, AVI):
    /// the picture there decodes alone, so showing it is quickest. Finding it opens the file's header
    /// on an engine thread (nothing is decoded); until then the time reads from the time asked for.
    ///
    /// - Parameters:
    ///   - time: A time on the item's timeline; a seek to the end or past it lands at the end.
    ///   - toleranceBefore: How far before `time` the landing may be.
    ///   - toleranceAfter: How far after `time` the landing may be.
    ///   - completionHandler: Gets true on a background queue once the seek has landed, or false when a
    ///     newer seek, a new current item or the item's ``AVPlayerItem/cancelPendingSeeks()`` came
    ///     first, or when `time` is not numeric.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
                     completionHandler: @escaping @Sendable (Bool) -> Void) {
        startSeek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completionHandler: completionHandler)
    }

    /// Does nothing: Avocet's items have no dates.
    ///
    /// - Parameter date: Ignored.
    open func seek(to date: Date) {}

    /// Calls `completionHandler` with false on a background queue: Avocet's items have no dates.
    ///
    /// - Parameters:
    ///   - date: Ignored.
    ///   - completionHandler: Gets false.
    open func seek(to date: Date, completionHandler: @escaping @Sendable (Bool) -> Void) {
        AVPlayer.unfinished([completionHandler])
    }

    /// Readies the current item to start at its current time without a wait: reads its media ahead
    /// (as far as starting to play waits for) and has each ``AVPlayerItemVideoOutput`` decode the
    /// picture showing then, on the engine's threads, then calls `completionHandler` with true on a
    /// background queue. A rate change to playing, a seek, a new current item or
    /// ``cancelPendingPrerolls()`` first calls it with false.
    ///
    /// Apple's raises an exception when the player is not ready or its rate is not 0; Avocet's calls
    /// `completionHandler` with false at once instead.
    ///
    /// - Parameters:
    ///   - rate: The rate playing will start at (Avocet reads ahead the same at every rate).
    ///   - completionHandler: Gets true once the item is ready to start, false when the preroll was
    ///     interrupted or could not begin.
    open func preroll(atRate rate: Float, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        startPreroll(completionHandler ?? { _ in })
    }

    /// Calls the completion handlers of prerolls still waiting with false, on a background queue.
    open func cancelPendingPrerolls() {
        AVPlayer.unfinished(change { $0.machine.cancelPrerolls() })
    }

    // MARK: - Time observers

    /// Calls `block` every `interval` of item time while playing, and when playback starts, stops or
    /// jumps.
    ///
    /// - Parameters:
    ///   - interval: The item time between calls; an interval that is not a positive time makes an
    ///     observer that is never called.
    ///   - queue: Where `block` runs; nil for the main queue.
    ///   - block: Gets the item's current time.
    /// - Returns: A token to keep and pass to ``removeTimeObserver(_:)``.
    open func addPeriodicTimeObserver(forInterval interval: CMTime, queue: DispatchQueue?,
                                       using block: @escaping @Sendable (CMTime) -> Void) -> Any {
        let token = TimeObserver()
        guard interval.isNumeric, interval > .zero else { return token }
        let now = currentTime()
        change { $0.periodic.append(PeriodicObserver(token: token, interval: interval, queue: queue ?? .main, block: block,
                                                     lastMark: AVPlayer.mark(now, interval))) }
        updateTicking()
        return token
    }

    /// Calls `block` whenever playback crosses one of `times`; not for seeks that jump over them.
    ///
    /// - Parameters:
    ///   - times: `NSValue`s of `CMTime`s (`NSValue(time:)`) on the item's timeline; times that are not
    ///     numeric are ignored.
    ///   - queue: Where `block` runs; nil for the main queue.
    ///   - block: Runs once for each time crossed.
    /// - Returns: A token to keep and pass to ``removeTimeObserver(_:)``.
    open func addBoundaryTimeObserver(forTimes times: [NSValue], queue: DispatchQueue?,
                                       using block: @escaping @Sendable () -> Void) -> Any {
        let token = TimeObserver()
        let marks = times.map(\.timeValue).filter(\.isNumeric)
        change { $0.boundary.append(BoundaryObserver(token: token, times: marks, queue: queue ?? .main, block: block)) }
        updateTicking()
        return token
    }

    /// Stops the observer: its block is not called again (a call already queued is dropped).
    ///
    /// - Parameter observer: A token ``addPeriodicTimeObserver(forInterval:queue:using:)`` or
    ///   ``addBoundaryTimeObserver(forTimes:queue:using:)`` returned; anything else is ignored.
    open func removeTimeObserver(_ observer: Any) {
        guard let token = observer as? TimeObserver else { return }
        let removed = change { s -> ([PeriodicObserver], [BoundaryObserver]) in
            let gone = (s.periodic.filter { $0.token === token }, s.boundary.filter { $0.token === token })
            s.periodic.removeAll { $0.token === token }
            s.boundary.removeAll { $0.token === token }
            return gone
        }
        _ = removed
        updateTicking(soon: false)
    }

    /// What `.advance` does at an item's end: a plain player has no next item, so it lets the item go.
    func advanceAtEnd(of item: AVPlayerItem) {
        replaceCurrentItem(with: nil)
    }
}
