import Foundation
internal import Locking

/// Delivers the timed metadata of the item's enabled metadata tracks to a push delegate as the item
/// plays: each group when the item's time (plus ``advanceIntervalForDelegateInvocation``) reaches its
/// start, one group a call, with the track it came from.
///
/// Reads timed ID3 (MPEG-TS and HLS metadata streams) and QuickTime timed metadata tracks (`mebx`,
/// as phones write them); other metadata tracks (GoPro's `gpmd`) are not read. Each track is read from
/// its start when the item loads or the track is enabled, through a reader of its own on the engine's
/// threads, its samples kept as they come (a live stream's as they arrive; at most 100,000 samples or
/// 16 MiB a track, the rest left out): a remote asset is read through once for it. A group whose time
/// has passed by the time it is read is not delivered. When playing starts, or a seek lands (after
/// ``AVPlayerItemOutputPushDelegate/outputSequenceWasFlushed(_:)``), the group in effect at that time
/// is delivered first, once the reading has got past it: the last sample to start before it, if its
/// time range has not ended and it holds items asked for (a group of indefinite duration, as a timed
/// ID3 tag, lasts until the next sample of its track). The delegate is called on its queue.
open class AVPlayerItemMetadataOutput: AVPlayerItemOutput, @unchecked Sendable {
    // @unchecked Sendable: the mutable state sits behind `state`; the delegate is called on its queue.

    /// One timed metadata sample of a track: its group with the items asked for, or nil when it has
    /// none (the sample still ends the one before it, so an older tag is not taken to be in effect).
    struct Entry {
        var start: CMTime
        var group: AVTimedMetadataGroup?
    }

    /// The samples of one metadata track read so far, sorted by start, with the item track they are
    /// delivered from, whether the reading is over, and the time they were delivered up to (nil after
    /// a flush, or before the first delivery: the group in effect comes first then, once the reading
    /// has got past the time or ended).
    struct TrackGroups {
        var id: CMPersistentTrackID
        var track: AVPlayerItemTrack
        var entries: [Entry]
        var finished = false
        var deliveredUpTo: CMTime?
    }

    /// A track's reading: numbered, so that a reading replaced by another installs nothing.
    struct Reading {
        var number: Int
        var task: Task<Void, Never>?
    }

    private struct State {
        weak var delegate: (any AVPlayerItemMetadataOutputPushDelegate)?
        var queue: DispatchQueue?
        var advance: TimeInterval = 0
        var tracks: [TrackGroups] = []
        /// Which tracks are being read or were read, so that a change that keeps them reads nothing again.
        var reading: [CMPersistentTrackID: Reading] = [:]
        var readings = 0
    }

    private let state = LockedState(State())
    private let identifiers: Set<String>?

    static let maximumGroups = 100_000
    static let maximumBytes = 16 << 20

    /// An output that delivers the items with these identifiers (raw values of
    /// ``AVMetadataIdentifier``, such as "id3/TIT2"); nil delivers every item. A group left without
    /// items is not delivered.
    ///
    /// - Parameter identifiers: The identifiers to deliver, or nil for all.
    public init(identifiers: [String]?) {
        self.identifiers = identifiers.map(Set.init)
        super.init()
    }

    deinit {
        for reading in state.value.reading.values { reading.task?.cancel() }
    }

    /// Sets the delegate (held weakly) and the queue its methods are called on.
    ///
    /// - Parameters:
    ///   - delegate: The delegate; nil for none.
    ///   - delegateQueue: The queue to call it on; a serial queue keeps the deliveries in order.
    open func setDelegate(_ delegate: (any AVPlayerItemMetadataOutputPushDelegate)?, queue delegateQueue: DispatchQueue?) {
        state.change { s in
            s.delegate = delegate
            s.queue = delegateQueue
        }
    }

    /// The delegate, if it is still alive.
    open var delegate: (any AVPlayerItemMetadataOutputPushDelegate)? { state.value.delegate }
    /// The queue the delegate is called on.
    open var delegateQueue: DispatchQueue? { state.value.queue }

    /// How many seconds ahead of the item's time groups are delivered; default 0.
    open var advanceIntervalForDelegateInvocation: TimeInterval {
        get { state.value.advance }
        set { state.change { $0.advance = newValue.isFinite ? max(0, newValue) : 0 } }
    }

    // MARK: - Following the item

    override func itemTracksChanged() {
        let enabled = (item?.tracks ?? []).compactMap { track -> (AVPlayerItemTrack, AVAssetTrack)? in
            guard track.isEnabled, let asset = track.assetTrack, asset.mediaType == .metadata,
                  let subtype = asset.facts.formatDescriptions.first?.mediaSubType.rawValue,
                  [kCMMetadataFormatType_ID3, kCMMetadataFormatType_Boxed].contains(subtype) else { return nil }
            return (track, asset)
        }
        let ids = Set(enabled.map(\.1.trackID))
        // Tracks no longer presented stop being read and delivered; new ones are read, each reading
        // numbered under the same lock that decides it, so that two changes at once start one.
        let started = state.change { s -> [(AVAssetTrack, Int)] in
            for (id, reading) in s.reading where !ids.contains(id) {
                reading.task?.cancel()
                s.reading[id] = nil
            }
            s.tracks.removeAll { !ids.contains($0.id) }
            var started: [(AVAssetTrack, Int)] = []
            for (itemTrack, track) in enabled where s.reading[track.trackID] == nil {
                s.readings += 1
                s.reading[track.trackID] = Reading(number: s.readings)
                s.tracks.append(TrackGroups(id: track.trackID, track: itemTrack, entries: []))
                started.append((track, s.readings))
            }
            return started
        }
        for (track, number) in started {
            guard let asset = track.asset else { continue }
            let id = track.trackID
            let task = Task { [weak self, identifiers] in
                await AVPlayerItemMetadataOutput.readEntries(of: track, in: asset, identifiers: identifiers) { chunk, finished in
                    guard let self else { return false }
                    // Installed only while this reading is the track's; what has begun is delivered at
                    // once (the group in effect first, for a track not delivered yet).
                    let installed = self.state.change { s -> Bool in
                        guard s.reading[id]?.number == number, let t = s.tracks.firstIndex(where: { $0.id == id }) else { return false }
                        let sorted = zip(chunk, chunk.dropFirst()).allSatisfy { $0.start <= $1.start }
                            && (s.tracks[t].entries.last.map { last in chunk.first.map { last.start <= $0.start } ?? true } ?? true)
                        s.tracks[t].entries += chunk
                        if !sorted { s.tracks[t].entries.sort { $0.start < $1.start } }
                        s.tracks[t].finished = finished
                        return true
                    }
                    if installed { self.deliver(flushing: false) }
                    return installed
                }
            }
            state.change { s in
                if s.reading[id]?.number == number { s.reading[id]?.task = task } else { task.cancel() }
            }
        }
    }

    override func itemTimeAdvanced(to time: CMTime) {
        deliver(flushing: false)
    }

    /// Metadata groups start at times of their own: the player ticks at its finest.
    override var wantsFineTicks: Bool { true }

    override func itemTimeJumped(to time: CMTime) {
        deliver(flushing: true)
    }

    /// Delivers, track by track, the groups that started since the track's last delivery, up to the
    /// item's time now plus the advance interval; after a flush (or for a track not delivered yet) the
    /// group in effect comes first. The marks move on whether or not a delegate is set (one set later
    /// hears what comes from then on), and never back but by a flush. The time is read, and the
    /// deliveries queued, under the output's lock, so they reach the queue in the order of the times
    /// they are for.
    private func deliver(flushing: Bool) {
        let output = self
        state.change { s in
            guard let look = output.itemTime(ahead: s.advance)?.ahead else { return }
            var deliveries: [(AVTimedMetadataGroup, AVPlayerItemTrack)] = []
            for t in s.tracks.indices {
                let after = flushing ? nil : s.tracks[t].deliveredUpTo
                // Which group is in effect is known once the reading has got past the time, or ended.
                guard after != nil || s.tracks[t].finished || (s.tracks[t].entries.last.map { $0.start > look } ?? false) else {
                    s.tracks[t].deliveredUpTo = nil
                    continue
                }
                for group in AVPlayerItemMetadataOutput.due(s.tracks[t].entries, after: after, upTo: look) {
                    deliveries.append((group, s.tracks[t].track))
                }
                s.tracks[t].deliveredUpTo = flushing ? look : max(look, s.tracks[t].deliveredUpTo ?? look)
            }
            guard let delegate = s.delegate, let queue = s.queue, flushing || !deliveries.isEmpty else { return }
            deliveries.sort { $0.0.timeRange.start < $1.0.timeRange.start }
            let box = UncheckedBox((delegate, deliveries))
            queue.async {
                let (delegate, deliveries) = box.value
                if flushing { delegate.outputSequenceWasFlushed(output) }
                for (group, track) in deliveries {
                    delegate.metadataOutput(output, didOutputTimedMetadataGroups: [group], from: track)
                }
            }
        }
    }

    /// The groups of a track's entries (sorted by start) to deliver for the span (`after`, `upTo`]:
    /// those starting in it; with no `after` (a flush, or the first delivery), the group in effect at
    /// `upTo` and none before it: the last entry to start, unless its stated duration has run out or
    /// it has no group asked for.
    static func due(_ entries: [Entry], after: CMTime?, upTo: CMTime) -> [AVTimedMetadataGroup] {
        // The first entry starting after `upTo`.
        var low = 0, high = entries.count
        while low < high {
            let mid = low + (high - low) / 2
            if entries[mid].start <= upTo { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return [] }
        if let after {
            var first = low
            while first > 0, entries[first - 1].start > after { first -= 1 }
            return entries[first..<low].compactMap(\.group)
        }
        guard let last = entries[low - 1].group else { return [] }
        let duration = last.timeRange.duration
        if duration.isNumeric, last.timeRange.start + duration <= upTo { return [] }
        return [last]
    }

    /// Reads `track`'s samples in order, handing each to `install` as it is read (a live stream's as
    /// they come), with its group of the items whose identifiers are wanted (nil: all) or none, until
    /// `install` returns false, the track ends, or `maximumGroups` samples or `maximumBytes` are read;
    /// then tells `install` the reading is over.
    private static func readEntries(of track: AVAssetTrack, in asset: AVAsset, identifiers: Set<String>?,
                                    install: @escaping ([Entry], _ finished: Bool) -> Bool) async {
        var count = 0
        var bytes = 0
        var going = true
        await readStoredSamples(of: track, in: asset) { sample in
            bytes += max(0, CMSampleBufferGetTotalSampleSize(sample))
            count += 1
            if let group = AVTimedMetadataGroup(sampleBuffer: sample) {
                var kept: AVTimedMetadataGroup? = group.items.isEmpty ? nil : group
                if let identifiers, let found = kept {
                    let items = found.items.filter { $0.identifier.map { identifiers.contains($0.rawValue) } == true }
                    kept = items.isEmpty ? nil : AVTimedMetadataGroup(items: items, timeRange: found.timeRange)
                }
                going = install([Entry(start: group.timeRange.start, group: kept)], false)
            }
            return going && count < maximumGroups && bytes < maximumBytes
        }
        if going { _ = install([], true) }
    }
}
