import Foundation
internal import Locking

/// Delivers the timed metadata of the item's enabled metadata tracks to a push delegate as the item
/// plays: each group when the item's time (plus ``advanceIntervalForDelegateInvocation``) reaches its
/// start, one group a call, with the track it came from.
///
/// Reads timed ID3 (MPEG-TS and HLS metadata streams) and QuickTime timed metadata tracks (`mebx`,
/// as phones write them). The tracks are read whole when the item loads
/// or a metadata track is enabled, through a reader of their own on the engine's threads (at most
/// 100,000 groups or 16 MiB of samples a track; the rest is left out): a remote asset is read through
/// once for it. When playing starts, or a seek lands (after
/// ``AVPlayerItemOutputPushDelegate/outputSequenceWasFlushed(_:)``), the group in effect at that time
/// is delivered first: the last to start before it whose time range has not ended (a group of
/// indefinite duration, as a timed ID3 tag, lasts until the next one of its track). The delegate is
/// called on its queue.
open class AVPlayerItemMetadataOutput: AVPlayerItemOutput, @unchecked Sendable {
    // @unchecked Sendable: the mutable state sits behind `state`; the delegate is called on its queue.

    /// The groups of one metadata track, sorted by start, with the item track they are delivered from.
    struct TrackGroups {
        var id: CMPersistentTrackID
        var track: AVPlayerItemTrack
        var groups: [AVTimedMetadataGroup]
    }

    private struct State {
        weak var delegate: (any AVPlayerItemMetadataOutputPushDelegate)?
        var queue: DispatchQueue?
        var advance: TimeInterval = 0
        var tracks: [TrackGroups] = []
        /// Which tracks are being read or were read, so that a change that keeps them reads nothing again.
        var reading: [CMPersistentTrackID: Task<Void, Never>] = [:]
        /// The time delivered up to; nil after a flush, when the groups in effect are delivered first.
        var deliveredUpTo: CMTime?
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
        for task in state.value.reading.values { task.cancel() }
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
            guard track.isEnabled, let asset = track.assetTrack, asset.mediaType == .metadata else { return nil }
            return (track, asset)
        }
        let ids = Set(enabled.map(\.1.trackID))
        // Tracks no longer presented stop being read and delivered; new ones are read.
        let new = state.change { s -> [(AVPlayerItemTrack, AVAssetTrack)] in
            for (id, task) in s.reading where !ids.contains(id) {
                task.cancel()
                s.reading[id] = nil
            }
            s.tracks.removeAll { !ids.contains($0.id) }
            return enabled.filter { s.reading[$0.1.trackID] == nil }
        }
        for (itemTrack, track) in new {
            guard let asset = track.asset else { continue }
            let task = Task { [weak self, identifiers] in
                let groups = await AVPlayerItemMetadataOutput.readGroups(of: track, in: asset, identifiers: identifiers)
                guard let self, !Task.isCancelled else { return }
                let installed = self.state.change { s -> Bool in
                    guard s.reading[track.trackID] != nil else { return false }
                    s.tracks.append(TrackGroups(id: track.trackID, track: itemTrack, groups: groups))
                    return true
                }
                // What is in effect now, without waiting for the next tick.
                if installed { self.deliver(flushing: false, newTrack: track.trackID) }
            }
            state.change { s in s.reading[track.trackID] = task }
        }
    }

    override func itemTimeAdvanced(to time: CMTime) {
        deliver(flushing: false)
    }

    override func itemTimeJumped(to time: CMTime) {
        deliver(flushing: true)
    }

    /// Delivers the groups that started since the last delivery, up to the item's time now plus the
    /// advance interval; after a flush (or for a track just read, `newTrack`) the group in effect is
    /// delivered first. The time is read, and the deliveries queued, under the output's lock, so they
    /// reach the queue in the order of the times they are for.
    private func deliver(flushing: Bool, newTrack: CMPersistentTrackID? = nil) {
        let output = self
        state.change { s in
            guard let delegate = s.delegate, let queue = s.queue, let item = output.item else { return }
            let time = item.player?.itemTime(of: item) ?? item.currentTime()
            guard time.isNumeric else { return }
            let look = time + CMTime(seconds: s.advance, preferredTimescale: 90_000)
            let after = flushing ? nil : s.deliveredUpTo
            var deliveries: [(AVTimedMetadataGroup, AVPlayerItemTrack)] = []
            for track in s.tracks {
                let since = track.id == newTrack ? nil : after
                for group in AVPlayerItemMetadataOutput.due(track.groups, after: since, upTo: look) {
                    deliveries.append((group, track.track))
                }
            }
            deliveries.sort { $0.0.timeRange.start < $1.0.timeRange.start }
            s.deliveredUpTo = look
            guard flushing || !deliveries.isEmpty else { return }
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

    /// The groups of a track (sorted by start) to deliver for the span (`after`, `upTo`]: those starting
    /// in it; with no `after` (a flush, or the first delivery), the group in effect at `upTo` and
    /// none before it.
    static func due(_ groups: [AVTimedMetadataGroup], after: CMTime?, upTo: CMTime) -> [AVTimedMetadataGroup] {
        // The first group starting after `upTo`.
        var low = 0, high = groups.count
        while low < high {
            let mid = low + (high - low) / 2
            if groups[mid].timeRange.start <= upTo { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return [] }
        if let after {
            var first = low
            while first > 0, groups[first - 1].timeRange.start > after { first -= 1 }
            return Array(groups[first..<low])
        }
        // In effect: the last group to start, unless its stated duration has run out.
        let last = groups[low - 1]
        let duration = last.timeRange.duration
        if duration.isNumeric, last.timeRange.start + duration <= upTo { return [] }
        return [last]
    }

    /// The groups of `track`'s samples with the items whose identifiers are wanted (nil: all), sorted
    /// by start; groups left empty are dropped.
    private static func readGroups(of track: AVAssetTrack, in asset: AVAsset, identifiers: Set<String>?) async -> [AVTimedMetadataGroup] {
        var groups: [AVTimedMetadataGroup] = []
        var bytes = 0
        await readStoredSamples(of: track, in: asset) { sample in
            bytes += max(0, CMSampleBufferGetTotalSampleSize(sample))
            if let group = AVTimedMetadataGroup(sampleBuffer: sample) {
                if let identifiers {
                    let items = group.items.filter { $0.identifier.map { identifiers.contains($0.rawValue) } == true }
                    if !items.isEmpty { groups.append(AVTimedMetadataGroup(items: items, timeRange: group.timeRange)) }
                } else if !group.items.isEmpty {
                    groups.append(group)
                }
            }
            return groups.count < maximumGroups && bytes < maximumBytes
        }
        return groups.sorted { $0.timeRange.start < $1.timeRange.start }
    }
}
