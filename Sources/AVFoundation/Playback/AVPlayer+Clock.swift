internal import MediaEngine
import Dispatch
import Foundation

// The clock: ticks on the tick queue, the device's heard time followed, the item's end acted on, and
// item times clamped to the item.
extension AVPlayer {
    /// Ticks while time runs: at every manual-clock move, or on the host clock when the next thing is
    /// due (see `nextTickDelay`), at most 50 ms apart. Called whenever the rate or the clock may have
    /// changed; `soon` when what ticks look at changed (the time restarted, an observer came): the next
    /// tick then comes within 10 ms.
    func updateTicking(soon: Bool = true) {
        // Decided and swapped under the lock; timers are started and stopped outside it, and set under
        // it (so that a tick setting its next cannot undo a sooner one set here).
        let (start, stop, listenTo) = change { s -> (DispatchSourceTimer?, DispatchSourceTimer?, CMClock?) in
            let running = s.runningRate != 0
            if s.clock.isManual {
                let stale = s.timer
                s.timer = nil
                return (nil, stale, s.clockListener == nil ? s.clock : nil)
            }
            if running && s.timer == nil {
                let timer = DispatchSource.makeTimerSource(queue: tickQueue)
                timer.setEventHandler { [weak self] in self?.tick() }
                s.timer = timer
                s.nextTick = .distantFuture
                AVPlayer.scheduleTick(in: AVPlayer.fineTick, &s)
                return (timer, nil, nil)
            }
            if !running, let timer = s.timer {
                s.timer = nil
                return (nil, timer, nil)
            }
            if running && soon { AVPlayer.scheduleTick(in: AVPlayer.fineTick, &s) }
            return (nil, nil, nil)
        }
        stop?.cancel()
        start?.resume()
        if let clock = listenTo {
            let number = clock.listen { [weak self] in self?.tickOnQueue() }
            let extra = change { s -> Int? in
                guard s.clockListener == nil, s.clock === clock else { return number }
                s.clockListener = number
                return nil
            }
            if let extra { clock.stopListening(extra) }
        }
    }

    /// Ticks on the tick queue, directly when already on it (a handler moving a manual clock).
    func tickOnQueue() {
        if DispatchQueue.getSpecific(key: AVPlayer.tickQueueKey) == ObjectIdentifier(self) {
            tick()
        } else {
            tickQueue.sync { tick() }
        }
    }

    static let tickQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// The host clock's finest and coarsest steps between ticks, in seconds.
    static let fineTick = 0.010
    static let coarseTick = 0.050

    /// Sets the host clock's timer to fire `seconds` from now, unless it fires sooner already (or
    /// `replacing`: the tick that fired sets the next). Under the state's lock. `now` is the host
    /// clock's time (given by tests, which must not depend on how fast the machine runs them).
    static func scheduleTick(in seconds: Double, replacing: Bool = false, now: DispatchTime = .now(), _ s: inout State) {
        guard let timer = s.timer else { return }
        let step = seconds.isFinite ? min(max(seconds, 0.001), coarseTick) : coarseTick
        let deadline = now + .nanoseconds(Int(step * 1e9))
        // A deadline passed is a tick on its way, which sets the next; another is harmless.
        guard replacing || deadline < s.nextTick || s.nextTick <= now else { return }
        s.nextTick = deadline
        timer.schedule(deadline: deadline, repeating: .never, leeway: .milliseconds(2))
    }

    /// Host seconds until the next thing a tick does is due, from the item time `now` (`raw`: before
    /// clamping to the item) at `rate`: a periodic observer's next mark, a boundary time, the item's
    /// end; at least `fineTick` (marks closer together are met as the 10 ms tick met them), at most
    /// `coarseTick` (the read-ahead and stalls are looked at that often), and `fineTick` while the time
    /// follows a device's sound, stands still for it, or an output asks for it.
    static func nextTickDelay(_ s: State, now: CMTime, raw: CMTime, fine: Bool) -> Double {
        let rate = s.runningRate
        // (The player does not play in reverse: a rate below zero is refused before it gets here.)
        guard !fine, s.timebase.rate != 0, rate.isFinite, rate > 0, now.isNumeric else { return fineTick }
        var item = coarseTick * rate   // item seconds until the next tick
        let seconds = now.seconds
        for observer in s.periodic {
            // The mark changes at the next whole interval.
            let next = (Double(observer.lastMark) + 1) * observer.interval.seconds - seconds
            if next.isFinite { item = min(item, next) }
        }
        for observer in s.boundary {
            for time in observer.times where time > now { item = min(item, time.seconds - seconds) }
        }
        if let end = s.item?.endTime, end.isNumeric, raw.isNumeric, end > raw { item = min(item, end.seconds - raw.seconds) }
        // Just after the time is due, so that the tick finds it passed.
        return min(max(item / rate + 0.0005, fineTick), coarseTick)
    }

    /// One step of time: fires periodic observers whose mark passed and boundary observers whose time
    /// was crossed, and acts at the item's end.
    func tick() {
        // Read, compared and written in one step, so a seek in between cannot be undone or crossed.
        struct Step {
            var now = CMTime.zero
            var periodic: [PeriodicObserver] = []
            var boundary: [BoundaryObserver] = []
            var end: (AVPlayerItem, ActionAtItemEnd, Int)?
        }
        let host = CMClock.hostTimeClock.time
        let heard = snapshot.audio?.heardTime(atHost: host.seconds)
        let fine = heard != nil || (currentItem?.snapshot.outputs.contains { $0.wantsFineTicks } ?? false)
        let step = change { s -> Step? in
            guard s.runningRate != 0 else { return nil }
            if let heard, s.clock === CMClock.hostTimeClock, s.machine.timeControlStatus == .playing {
                AVPlayer.follow(heard: heard, at: host, &s)
            } else if s.timebase.rate == 0 {
                // Held for a sound that is gone (all written, or stopped): the clock drives again.
                s.timebase.setRateAndAnchorTime(rate: s.runningRate, anchorTime: s.timebase.time(atSourceTime: s.clock.time),
                                                immediateSourceTime: s.clock.time)
            }
            let raw = s.timebase.time
            var step = Step()
            step.now = clamp(raw, s.item)
            let last = s.lastTick
            s.lastTick = step.now
            for i in s.periodic.indices {
                let mark = AVPlayer.mark(step.now, s.periodic[i].interval)
                if mark != s.periodic[i].lastMark {
                    s.periodic[i].lastMark = mark
                    step.periodic.append(s.periodic[i])
                }
            }
            step.boundary = s.boundary.filter { $0.times.contains { $0 > last && $0 <= step.now } }
            if let item = s.item, case let end = item.endTime, end.isNumeric, raw >= end, let generation = s.machine.reachEnd() {
                step.end = (item, s.actionAtItemEnd, generation)
            }
            AVPlayer.scheduleTick(in: AVPlayer.nextTickDelay(s, now: step.now, raw: raw, fine: fine), replacing: true, &s)
            return step
        }
        guard let step else { return }
        // Reading goes on ahead of the time; where it has not got to yet, playing waits (a stall).
        if let item = currentItem, let buffer = item.snapshot.buffer {
            buffer.follow(step.now)
            if item.bufferFlags(at: step.now).empty { refreshPlayback(tickSoon: false) }
        }
        for output in currentItem?.snapshot.outputs ?? [] { output.itemTimeAdvanced(to: step.now) }
        for observer in step.periodic { deliver(observer.token, on: observer.queue) { observer.block(step.now) } }
        for observer in step.boundary { deliver(observer.token, on: observer.queue, observer.block) }
        if let (item, action, generation) = step.end { reachedEnd(of: item, action: action, generation: generation) }
    }

    /// Keeps the time on the audio device's clock (`heard`: the item time being heard at `host`): more
    /// than 40 ms ahead of the sound, the time stands still until the sound catches up (never going
    /// back); more than 40 ms behind it, the time moves on to it. A device that stops taking samples
    /// (suspended, unplugged) so holds the time, as it does on Apple's platforms.
    static func follow(heard: Double, at host: CMTime, _ s: inout State) {
        let predicted = s.timebase.time(atSourceTime: host)
        let error = heard - predicted.seconds
        guard error.isFinite else { return }
        let heardTime = CMTime(seconds: heard, preferredTimescale: 90_000)
        if s.timebase.rate == 0 ? error >= 0 : error > 0.04 {
            s.timebase.setRateAndAnchorTime(rate: s.runningRate, anchorTime: max(heardTime, predicted), immediateSourceTime: host)
        } else if s.timebase.rate != 0 && error < -0.04 {
            s.timebase.setRateAndAnchorTime(rate: 0, anchorTime: predicted, immediateSourceTime: host)
        }
    }

    func reachedEnd(of item: AVPlayerItem, action: ActionAtItemEnd, generation: Int) {
        NotificationCenter.default.post(name: AVPlayerItem.didPlayToEndTimeNotification, object: item)
        switch action {
        case .pause:
            // Unless a seek came meanwhile (a replay from the start), the time stays at the end.
            let still = change { s -> Bool in
                guard s.machine.isCurrent(generation), s.item === item else { return false }
                s.timebase.setTime(item.endTime)
                return true
            }
            if still { pause() }
        case .advance:
            advanceAtEnd(of: item)
        case .none:
            break
        }
    }

    func itemTime(of item: AVPlayerItem) -> CMTime {
        let s = snapshot
        guard s.item === item else { return item.snapshot.time }
        return clamp(s.timebase.time, item)
    }

    /// The item's time when the player's clock reads `sourceTime`.
    func itemTime(of item: AVPlayerItem, atSourceTime sourceTime: CMTime) -> CMTime {
        let s = snapshot
        guard s.item === item else { return item.snapshot.time }
        return clamp(s.timebase.time(atSourceTime: sourceTime), item)
    }

    func clamp(_ time: CMTime, _ item: AVPlayerItem?) -> CMTime {
        var t = time.isNumeric ? max(.zero, time) : .zero
        if let end = item?.endTime, end.isNumeric { t = min(t, end) }
        return t
    }
}
