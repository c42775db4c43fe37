import Foundation
internal import Locking
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A source of time that runs at its own pace: the host clock (the machine's monotonic clock, in
/// nanoseconds), or, for Avocet's tests and tools, a clock moved by hand.
public final class CMClock: Sendable {
    /// Whether the clock moves only when told (its time is then `manualTime`).
    package let isManual: Bool
    private let manualTime: Locked<CMTime>
    /// Handlers told when a manual clock moves.
    private let listeners = Locked<[Int: @Sendable () -> Void]>([:])
    private let counter = Atomic<Int>(0)

    private init(manualTime: CMTime?) {
        isManual = manualTime != nil
        self.manualTime = Locked(manualTime ?? .zero)
    }

    /// The host clock: monotonic, unaffected by changes of the wall clock.
    public static let hostTimeClock = CMClock(manualTime: nil)

    /// A clock that stands still until `advance(by:)` or `set(_:)` moves it (Avocet's: tests drive a
    /// player's time with one, exactly and fast).
    package static func manual(at time: CMTime = .zero) -> CMClock {
        CMClock(manualTime: time)
    }


    /// The clock's time now.
    public var time: CMTime {
        if isManual { return manualTime.withLock { $0 } }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return CMTime(value: Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec), timescale: 1_000_000_000)
    }

    /// Moves a manual clock on by `interval` and tells its listeners (on the calling thread).
    package func advance(by interval: CMTime) {
        guard isManual else { return }
        manualTime.withLock { $0 = $0 + interval }
        notify()
    }

    /// Sets a manual clock's time and tells its listeners.
    package func set(_ newTime: CMTime) {
        guard isManual else { return }
        manualTime.withLock { $0 = newTime }
        notify()
    }

    /// Calls `handler` each time a manual clock moves, until `stopListening` with the returned number.
    package func listen(_ handler: @escaping @Sendable () -> Void) -> Int {
        let number = counter.add(1, ordering: .relaxed).newValue
        listeners.withLock { $0[number] = handler }
        return number
    }

    package func stopListening(_ number: Int) {
        let removed = listeners.withLock { $0.removeValue(forKey: number) }
        _ = removed
    }

    private func notify() {
        let handlers = listeners.withLock { Array($0.values) }
        for handler in handlers { handler() }
    }
}

/// The host clock (Apple's function).
///
/// - Returns: ``CMClock/hostTimeClock``.
public func CMClockGetHostTimeClock() -> CMClock { .hostTimeClock }

/// `clock`'s time now.
///
/// - Returns: ``CMClock/time``: for the host clock, the monotonic clock's time in nanoseconds
///   (timescale 1,000,000,000).
public func CMClockGetTime(_ clock: CMClock) -> CMTime { clock.time }
