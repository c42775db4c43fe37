internal import MediaEngine
import Dispatch
import Foundation

// Periodic and boundary time observers: marks, firing and delivery on their queues.
extension AVPlayer {
    /// How many whole intervals `time` holds, exactly (no floating-point drift at 0.3 / 0.1).
    static func mark(_ time: CMTime, _ interval: CMTime) -> Int64 {
        guard time.isNumeric, interval.isNumeric, interval.value > 0, time.timescale > 0, interval.timescale > 0 else { return 0 }
        let numerator = Int128(time.value) * Int128(interval.timescale)
        let denominator = Int128(interval.value) * Int128(time.timescale)
        var quotient = numerator / denominator
        if numerator % denominator != 0 && numerator < 0 { quotient -= 1 }
        return Int64(clamping: quotient)
    }

    /// Fires the periodic observers whose next mark `time` reached (all of them when `all`).
    func firePeriodicObservers(at time: CMTime, all: Bool) {
        change { firePeriodicObservers(in: &$0, at: time, all: all) }
    }

    /// Fires the periodic observers whose next mark `time` reached (all of them when `all`), their
    /// marks moved on; called with the state's lock held. Their calls are queued before the lock is
    /// given up, so that a tick on another thread cannot reach an observer first and be followed by an
    /// earlier time.
    func firePeriodicObservers(in s: inout State, at time: CMTime, all: Bool) {
        for i in s.periodic.indices {
            let mark = AVPlayer.mark(time, s.periodic[i].interval)
            if all || mark != s.periodic[i].lastMark {
                s.periodic[i].lastMark = mark
                let observer = s.periodic[i]
                deliver(observer.token, on: observer.queue) { observer.block(time) }
            }
        }
    }

    /// Runs `work` on `queue` unless the observer was removed meanwhile.
    func deliver(_ token: TimeObserver, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.async { [weak self] in
            guard let self else { return }
            let live = self.snapshot.periodic.contains { $0.token === token } || self.snapshot.boundary.contains { $0.token === token }
            if live { work() }
        }
    }
}
