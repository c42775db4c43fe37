import Foundation

/// A value that a layer instruction sets over time (a transform, an opacity, a crop rectangle): fixed
/// values from a time on, and ramps that interpolate linearly across a time range. A plain value type;
/// its owner keeps it behind a lock.
///
/// Before the first entry the default holds; a fixed value holds until the next entry; after a ramp
/// ends, its end value holds until the next entry. Setting an entry at a start time that one already
/// has replaces it.
struct RampTimeline<Value: Sendable & Equatable>: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var start: Value
        var end: Value
        /// A ramp's range; a fixed value's starts at its time and has an indefinite duration.
        var range: CMTimeRange
        var isRamp: Bool
    }

    private(set) var entries: [Entry] = []
    let defaultValue: Value

    init(defaultValue: Value) {
        self.defaultValue = defaultValue
    }

    /// `value` from `time` on. Ignored for a time that is not a number.
    mutating func set(_ value: Value, at time: CMTime) {
        guard time.isNumeric else { return }
        add(Entry(start: value, end: value, range: CMTimeRange(start: time, duration: .indefinite), isRamp: false))
    }

    /// A ramp from `start` to `end` across `range`. Ignored for a range that is not numeric and positive.
    mutating func setRamp(from start: Value, to end: Value, range: CMTimeRange) {
        guard range.start.isNumeric, range.duration.isNumeric, range.duration > .zero else { return }
        add(Entry(start: start, end: end, range: range, isRamp: true))
    }

    private mutating func add(_ entry: Entry) {
        entries.removeAll { $0.range.start == entry.range.start }
        let index = entries.firstIndex { $0.range.start > entry.range.start } ?? entries.count
        entries.insert(entry, at: index)
    }

    /// The entry in effect at `time`, with the range it is in effect for (a fixed value's runs to the
    /// next entry, or on without end); else the first entry starting after `time`. Nil when neither
    /// exists (Apple's getters then return false).
    func ramp(at time: CMTime) -> (start: Value, end: Value, range: CMTimeRange)? {
        guard time.isNumeric else { return nil }
        for (i, entry) in entries.enumerated() {
            var range = entry.range
            if !entry.isRamp {
                let next = i + 1 < entries.count ? entries[i + 1].range.start : nil
                range = next.map { CMTimeRange(start: entry.range.start, end: $0) }
                    ?? CMTimeRange(start: entry.range.start, duration: .positiveInfinity)
            }
            if entry.range.start > time || range.containsTime(time) { return (entry.start, entry.end, range) }
        }
        return nil
    }

    /// The value at `time`: `interpolate(start, end, fraction)` inside a ramp.
    func value(at time: CMTime, interpolate: (Value, Value, Double) -> Value) -> Value {
        guard time.isNumeric, let current = entries.last(where: { $0.range.start <= time }) else { return defaultValue }
        guard current.isRamp else { return current.start }
        if time >= current.range.end { return current.end }
        let fraction = (time - current.range.start).seconds / current.range.duration.seconds
        return interpolate(current.start, current.end, min(1, max(0, fraction)))
    }
}
