import Foundation
internal import Locking

/// A timeline that runs against a clock at a rate: its time is the anchor time plus the clock's time
/// since the anchor, times the rate. What a player's item time is.
public final class CMTimebase: Sendable {
    private struct Anchor {
        var time: CMTime
        var clockTime: CMTime
        var rate: Float64
    }

    /// The clock the timebase runs against.
    public let sourceClock: CMClock
    private let anchor: Locked<Anchor>

    /// A timebase at time zero, stopped (rate 0), against `sourceClock`.
    public init(sourceClock: CMClock) {
        self.sourceClock = sourceClock
        anchor = Locked(Anchor(time: .zero, clockTime: sourceClock.time, rate: 0))
    }

    /// The timebase's time now.
    public var time: CMTime {
        let now = sourceClock.time
        return anchor.withLock { CMTimebase.time(of: $0, at: now) }
    }

    /// The timebase's time when its clock reads `sourceTime`.
    package func time(atSourceTime sourceTime: CMTime) -> CMTime {
        anchor.withLock { CMTimebase.time(of: $0, at: sourceTime) }
    }

    /// The rate: 0 stopped, 1 as fast as the clock, 2 twice as fast, negative backwards.
    public var rate: Float64 { anchor.withLock { $0.rate } }

    private static func time(of anchor: Anchor, at clockTime: CMTime) -> CMTime {
        guard anchor.rate != 0, anchor.rate.isFinite else { return anchor.time }
        let elapsed = (clockTime - anchor.clockTime).seconds * anchor.rate
        guard elapsed.isFinite else { return anchor.time }
        let timescale = max(anchor.time.timescale, 600)
        return anchor.time + CMTime(seconds: elapsed, preferredTimescale: min(timescale, 1_000_000_000))
    }

    /// Moves the timebase to `time`, keeping its rate.
    public func setTime(_ time: CMTime) {
        let now = sourceClock.time
        anchor.withLock { $0 = Anchor(time: time, clockTime: now, rate: $0.rate) }
    }

    /// Sets the rate from now on, keeping the time.
    public func setRate(_ rate: Float64) {
        let now = sourceClock.time
        anchor.withLock { $0 = Anchor(time: CMTimebase.time(of: $0, at: now), clockTime: now, rate: rate) }
    }

    /// Sets the rate, and that the timebase is at `anchorTime` when the clock is at `immediateSourceTime`.
    ///
    /// - Parameters:
    ///   - rate: The new rate: 0 stopped, 1 as fast as the clock, negative backwards.
    ///   - anchorTime: The timebase's time at `immediateSourceTime`.
    ///   - immediateSourceTime: A time of ``sourceClock``, usually its ``CMClock/time`` now; the
    ///     timebase's time runs from there at `rate`.
    public func setRateAndAnchorTime(rate: Float64, anchorTime: CMTime, immediateSourceTime: CMTime) {
        anchor.withLock { $0 = Anchor(time: anchorTime, clockTime: immediateSourceTime, rate: rate) }
    }
}

/// A timebase against `sourceClock` (Apple's function: `noErr`, and the timebase through the pointer;
/// the allocator is ignored).
///
/// - Parameters:
///   - allocator: Ignored.
///   - sourceClock: The clock, such as ``CMClockGetHostTimeClock()``.
///   - timebaseOut: Receives the timebase, at time zero and stopped (rate 0), as
///     ``CMTimebase/init(sourceClock:)`` makes it.
public func CMTimebaseCreateWithSourceClock(allocator: AnyObject?, sourceClock: CMClock,
                                            timebaseOut: UnsafeMutablePointer<CMTimebase?>) -> OSStatus {
    timebaseOut.pointee = CMTimebase(sourceClock: sourceClock)
    return 0
}

/// The timebase's time now (``CMTimebase/time``).
public func CMTimebaseGetTime(_ timebase: CMTimebase) -> CMTime { timebase.time }
/// The timebase's rate (``CMTimebase/rate``).
public func CMTimebaseGetRate(_ timebase: CMTimebase) -> Float64 { timebase.rate }

/// Moves the timebase to `time`, keeping its rate; returns `noErr` (0).
@discardableResult
public func CMTimebaseSetTime(_ timebase: CMTimebase, time: CMTime) -> OSStatus {
    timebase.setTime(time)
    return 0
}

/// Sets the rate from now on, keeping the time; returns `noErr` (0).
@discardableResult
public func CMTimebaseSetRate(_ timebase: CMTimebase, rate: Float64) -> OSStatus {
    timebase.setRate(rate)
    return 0
}

/// Sets the rate, and that the timebase is at `anchorTime` when its clock is at `immediateSourceTime`;
/// returns `noErr` (0).
///
/// - Parameters:
///   - timebase: The timebase.
///   - rate: The new rate: 0 stopped, 1 as fast as the clock, negative backwards.
///   - anchorTime: The timebase's time at `immediateSourceTime`.
///   - immediateSourceTime: A time of the timebase's ``CMTimebase/sourceClock``, usually its time now.
@discardableResult
public func CMTimebaseSetRateAndAnchorTime(_ timebase: CMTimebase, rate: Float64, anchorTime: CMTime, immediateSourceTime: CMTime) -> OSStatus {
    timebase.setRateAndAnchorTime(rate: rate, anchorTime: anchorTime, immediateSourceTime: immediateSourceTime)
    return 0
}
