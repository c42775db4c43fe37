import Foundation
internal import Locking
import Synchronization

/// Seconds of the host clock (CoreFoundation's type on Apple's platforms).
public typealias CFTimeInterval = Double

/// The base of the outputs a player item hands media to (``AVPlayerItemVideoOutput``): it converts the
/// host clock's times to the item's.
open class AVPlayerItemOutput: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the item reference sits behind a lock.
    private let owner = Locked<WeakBox<AVPlayerItem>?>(nil)
    private let suppresses = Atomic<Bool>(false)

    override init() {
        super.init()
    }

    var item: AVPlayerItem? { owner.withLock { $0?.value } }

    func attach(to item: AVPlayerItem?) {
        owner.withLock { $0 = item.map { WeakBox($0) } }
        itemTracksChanged()
    }

    // What the item and its player tell every output; the outputs that care override these.

    /// The item's time moved on to `time` as it plays (the player's tick, on its tick queue).
    func itemTimeAdvanced(to time: CMTime) {}
    /// Whether the output needs the player's ticks at their finest (every 10 ms of the host clock)
    /// rather than only when an observer's mark, the item's end or the read-ahead is due: outputs
    /// that deliver at times of their own (cues, metadata groups). (A video output starting over asks
    /// for its next tick itself, through `updateTicking()`.)
    var wantsFineTicks: Bool { false }
    /// The item's time jumped to `time` (a seek landed).
    func itemTimeJumped(to time: CMTime) {}
    /// The item's tracks loaded, or which of them are presented changed (a media selection).
    func itemTracksChanged() {}

    /// The item's time now (its player's, or its own without one) and where an output delivering
    /// `advance` seconds ahead looks; nil without an item or a numeric time.
    func itemTime(ahead advance: TimeInterval) -> (now: CMTime, ahead: CMTime)? {
        guard let item else { return nil }
        let time = item.player?.itemTime(of: item) ?? item.currentTime()
        guard time.isNumeric else { return nil }
        return (time, time + CMTime(seconds: advance, preferredTimescale: 90_000))
    }

    /// Reads `track`'s stored samples from the start through a reader of its own (on the engine's
    /// threads; waiting holds no thread), handing each to `take` until it returns false or the track
    /// ends. Reads nothing when the track cannot be read; stops early when the task is cancelled.
    static func readStoredSamples(of track: AVAssetTrack, in asset: AVAsset, _ take: (CMSampleBuffer) -> Bool) async {
        guard let reader = try? AVAssetReader(asset: asset) else { return }
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        guard reader.canAdd(output) else { return }
        reader.add(output)
        guard reader.startReading() else { return }
        defer { reader.cancelReading() }
        do {
            for try await sample in output.sampleBuffers where !take(sample) { break }
        } catch {
            return
        }
    }

    /// The item's time when the host clock reads `hostTimeInSeconds`, as the player's timebase maps it.
    ///
    /// - Parameter hostTimeInSeconds: A time of the host clock, in seconds (`CMClock.hostTimeClock`).
    /// - Returns: The item's time then; `.invalid` when the output's item is not the current item of a
    ///   player.
    open func itemTime(forHostTime hostTimeInSeconds: CFTimeInterval) -> CMTime {
        itemTime(atHost: CMTime(seconds: hostTimeInSeconds, preferredTimescale: 1_000_000_000))
    }

    /// The same as ``itemTime(forHostTime:)`` for a host time in nanoseconds.
    ///
    /// - Parameter machAbsoluteTime: Apple's mach absolute time; on Linux, the host clock's nanoseconds.
    /// - Returns: The item's time then; `.invalid` when the output's item is not the current item of a
    ///   player.
    open func itemTime(forMachAbsoluteTime machAbsoluteTime: Int64) -> CMTime {
        itemTime(atHost: CMTime(value: machAbsoluteTime, timescale: 1_000_000_000))
    }

    private func itemTime(atHost hostTime: CMTime) -> CMTime {
        guard let item, let player = item.player, player.currentItem === item else { return .invalid }
        return player.itemTime(of: item, atSourceTime: hostTime)
    }

    /// Recorded: Avocet's player renders nothing itself.
    open var suppressesPlayerRendering: Bool {
        get { suppresses.load(ordering: .relaxed) }
        set { suppresses.store(newValue, ordering: .relaxed) }
    }
}
