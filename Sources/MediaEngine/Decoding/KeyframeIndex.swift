internal import CFFmpeg

/// The keyframes a container's index knows for one stream, by when each is estimated to show
/// (demuxers seek by presentation time; MP4's converts to its decode-time index itself), read again
/// when the index has grown (demuxers add entries as they read). Where a tolerant seek lands, from the
/// index alone: nothing is read or decoded. Used under its container's lock.
struct KeyframeIndex {
    /// Stream ticks, sorted.
    private(set) var keyframes: [Int64] = []
    private var indexedEntries = -1
    /// Whether the container's keyframe index grows from the start as it is read, with no gaps (MP4's
    /// sample tables, Matroska's cues or its reading in order, AVI's index), so that keyframes on both
    /// sides of a time are its nearest ones. MPEG-TS and FLV add entries wherever a seek lands.
    let hasNoGaps: Bool

    init(format: ContainerFormat) {
        hasNoGaps = [.quickTime, .matroska, .avi].contains(format)
    }

    /// Forgets what was read (the container was opened again).
    mutating func reset() {
        indexedEntries = -1
        keyframes = []
    }

    /// Re-reads `stream`'s index when it has grown.
    mutating func refresh(_ stream: UnsafeMutablePointer<AVStream>) {
        let count = Int(avformat_index_get_entries_count(stream))
        guard count != indexedEntries else { return }
        indexedEntries = count
        var found: [Int64] = []
        for i in 0..<max(0, count) {
            guard let entry = avformat_index_get_entry(stream, Int32(i)) else { continue }
            let flags = Int32(entry.pointee.flags)
            if flags & AVINDEX_KEYFRAME != 0 && flags & AVINDEX_DISCARD_FRAME == 0 { found.append(entry.pointee.timestamp) }
        }
        found.sort()
        // MP4 indexes decode times; a keyframe shows later by the reordering delay, the same for every
        // keyframe of a regular group of pictures: the first keyframe shows at the stream's start.
        let start = stream.pointee.start_time
        let shift = start != avocet_nopts_value() ? max(0, start.subtractingSaturating(found.first ?? start)) : 0
        keyframes = found.map { $0.addingSaturating(shift) }
    }

    /// Whether the index holds every frame of `stream` (MP4's sample tables): it then knows the last
    /// keyframe too.
    func isWhole(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        stream.pointee.nb_frames > 0 && Int64(indexedEntries) >= stream.pointee.nb_frames
    }

    /// The keyframe between `low` and `high` nearest `target` (stream ticks), when the index knows
    /// keyframes on both sides of it and has no gaps (or holds every frame: `indexIsWhole`); else nil.
    /// `trusted` false (seeks were seen to fail) answers nil unless the index is whole.
    func nearest(to target: Int64, low: Int64, high: Int64, indexIsWhole: Bool = false, trusted: Bool = true) -> Int64? {
        guard indexIsWhole || hasNoGaps && trusted && keyframes.contains(where: { $0 <= target })
                && keyframes.contains(where: { $0 >= target }) else { return nil }
        // The first of equally near ones: the earlier.
        func distance(_ a: Int64) -> Int64 { a > target ? a.subtractingSaturating(target) : target.subtractingSaturating(a) }
        return keyframes.filter { $0 >= low && $0 <= high }.min { distance($0) < distance($1) }
    }

    /// Where a tolerant seek for `request` lands by `stream`'s index (item time), after reading the
    /// index again if it grew; nil when the index cannot say. `origin`: the stream's item time zero in
    /// its ticks.
    mutating func keyframeTime(for request: PictureRequest, in stream: UnsafeMutablePointer<AVStream>, origin: Int64,
                               trusted: Bool = true) -> MediaTimestamp? {
        refresh(stream)
        let tb = stream.pointee.time_base
        guard tb.num > 0, tb.den > 0 else { return nil }
        func ticks(_ t: MediaTimestamp) -> Int64 {
            guard t.timeBase.numerator > 0, t.timeBase.denominator > 0 else { return 0 }
            return origin.addingSaturating(av_rescale_q_rnd(t.value, AVRational(num: t.timeBase.numerator, den: t.timeBase.denominator), tb,
                                                            AVRounding(rawValue: AV_ROUND_DOWN.rawValue | AV_ROUND_PASS_MINMAX.rawValue)))
        }
        let target = ticks(request.time)
        let low = request.earliest.map { min(target, ticks($0)) } ?? .min
        let high = request.latest.map { max(target, ticks($0)) } ?? .max
        guard let key = nearest(to: target, low: low, high: high, indexIsWhole: isWhole(stream) && trusted, trusted: trusted) else { return nil }
        return MediaTimestamp(value: key.subtractingSaturating(origin), timeBase: Rational(tb.num, tb.den))
    }
}
