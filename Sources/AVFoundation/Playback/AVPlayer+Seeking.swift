internal import MediaEngine
import Dispatch
import Foundation

// Seeks (keyframe landings found in the container's index, generations) and prerolls.
extension AVPlayer {
    /// The seek behind `seek(to:toleranceBefore:toleranceAfter:completionHandler:)` (see there).
    func startSeek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
                   completionHandler: @escaping @Sendable (Bool) -> Void) {
        guard time.isNumeric else {
            AVPlayer.unfinished([completionHandler])
            return
        }
        let (generation, item, interrupted) = change { s -> (Int, AVPlayerItem?, [Handler]) in
            let (generation, interrupted) = s.machine.beginSeek(completionHandler)
            return (generation, s.item, interrupted)
        }
        AVPlayer.unfinished(interrupted)
        // A seek to the end or past it lands at the end, whatever the tolerances.
        let atEnd = item.map { $0.endTime.isNumeric && time >= $0.endTime } ?? false
        let exact = toleranceBefore == .zero && toleranceAfter == .zero || atEnd
        guard !exact, let item, item.status == .readyToPlay,
              let video = item.snapshot.tracks.lazy.compactMap(\.assetTrack).first(where: { $0.mediaType == .video && $0.file != nil }),
              let file = video.file else {
            return land(at: time, generation: generation)
        }
        var settings = ImageSettings()
        (settings.toleranceBefore, settings.toleranceAfter) = (toleranceBefore, toleranceAfter)
        let request = try? PictureSource.request(at: time, settings: settings)
        // Meanwhile the time reads as the time asked for (as Apple's does while seeking), without
        // crossing boundaries on the way, and reading ahead starts there.
        let interim = change { s -> CMTime? in
            guard s.machine.isCurrent(generation) else { return nil }
            let interim = clamp(time, s.item)
            s.timebase.setTime(interim)
            s.lastTick = interim
            return interim
        }
        if let interim { item.snapshot.buffer?.jump(to: interim) }
        /// Where the seek lands by `reader`'s index: the keyframe it finds, else the time asked for.
        @Sendable func landing(_ reader: VideoFrameReader?) -> CMTime {
            guard let request, let key = reader?.keyframeTime(for: request) else { return time }
            let keyTime = CMTime(ticks: key.value, timeBase: key.timeBase)
            return keyTime.isNumeric ? keyTime : time
        }
        // A file's item looks in the index of the container its read-ahead reads: here when it is free
        // (microseconds, without waiting for an engine thread, which may all be decoding), else on an
        // engine thread once the read in flight is done.
        if let demuxer = item.snapshot.buffer?.demuxer, demuxer.reads(file.stream.index), let request {
            @Sendable func landing(_ answer: ItemDemuxer.KeyframeAnswer?) -> CMTime {
                guard case .keyframe(let key) = answer else { return time }
                let keyTime = CMTime(ticks: key.value, timeBase: key.timeBase)
                return keyTime.isNumeric ? keyTime : time
            }
            let index = file.stream.index
            let now = try? demuxer.keyframeTime(streamIndex: index, for: request, waiting: false, CancellationToken())
            if now != .busy {
                let landed = landing(now)
                tickQueue.async { [weak self] in self?.land(at: landed, generation: generation) }
                return
            }
            IOExecutor.shared.submit { [weak self] in
                let landed = landing(try? demuxer.keyframeTime(streamIndex: index, for: request, waiting: true, CancellationToken()))
                guard let self else { return }
                self.tickQueue.async { self.land(at: landed, generation: generation) }
            }
            return
        }
        // Else a reader of its own, kept: with the index open already, looking in it costs microseconds
        // and is done here. The first time, the header is read on an engine thread.
        if let reader = item.openKeyframeIndex(file) {
            let landed = landing(reader)
            tickQueue.async { [weak self] in self?.land(at: landed, generation: generation) }
            return
        }
        IOExecutor.shared.submit { [weak self] in
            let landed = landing(item.keyframeIndex(file))
            guard let self else { return }
            self.tickQueue.async { self.land(at: landed, generation: generation) }
        }
    }

    /// Lands the seek numbered `generation` at `time` (clamped to the item), unless a newer one came.
    func land(at time: CMTime, generation: Int) {
        let landing = change { s -> (AVPlayerItem?, CMTime)? in
            guard s.machine.land(generation) else { return nil }
            let landed = clamp(time, s.item)
            s.timebase.setTime(landed)
            s.lastTick = landed
            return (s.item, landed)
        }
        guard let (item, landed) = landing else { return }
        item?.change { $0.time = landed }
        if let item { NotificationCenter.default.post(name: AVPlayerItem.timeJumpedNotification, object: item) }
        for output in item?.snapshot.outputs ?? [] { output.itemTimeJumped(to: landed) }
        // Reading starts over there unless it was read; playing waits until it is.
        item?.snapshot.buffer?.jump(to: landed)
        refreshPlayback(jumped: true)
        if snapshot.machine.timeControlStatus == .playing { updateSound() }
        firePeriodicObservers(at: landed, all: true)
        // Reported from the tick queue, unless a newer seek reports it false first.
        tickQueue.async { [weak self] in
            guard let self else { return }
            let handler = self.change { $0.machine.finishSeek(generation) }
            if let handler { DispatchQueue.global().async { handler(true) } }
        }
    }

    /// Tells seek handlers, on a background queue, that their seeks did not finish.
    static func unfinished(_ handlers: [Handler]) {
        guard !handlers.isEmpty else { return }
        DispatchQueue.global().async { for handler in handlers { handler(false) } }
    }

    func cancelPendingSeeks() {
        AVPlayer.unfinished(change { $0.machine.cancelSeeks() })
    }

    /// The preroll behind `preroll(atRate:completionHandler:)` (see there).
    func startPreroll(_ handler: @escaping Handler) {
        let item = change { s -> AVPlayerItem? in
            guard let item = s.item, s.machine.beginPreroll(handler, itemReady: item.status == .readyToPlay) else { return nil }
            return item
        }
        guard let item else { return AVPlayer.unfinished([handler]) }
        let now = currentTime()
        item.snapshot.buffer?.jump(to: now)
        for case let output as AVPlayerItemVideoOutput in item.snapshot.outputs {
            output.prepare(at: now) { [weak self] in self?.finishPrerolls() }
        }
        finishPrerolls()
    }

    /// Reports the prerolls waiting as finished when the current item is ready to start at its time.
    func finishPrerolls() {
        let s = snapshot
        guard s.machine.prerolling, let item = s.item, item.status == .readyToPlay else { return }
        let now = clamp(s.timebase.time, item)
        let flags = item.bufferFlags(at: now)
        let outputs = item.snapshot.outputs.compactMap { $0 as? AVPlayerItemVideoOutput }
        guard flags.likelyToKeepUp || flags.full, outputs.allSatisfy({ $0.holds(now) }) else { return }
        // Only if nothing moved meanwhile (a seek or a new item: prerolls asked for since are for
        // another place, and are checked again when their media comes).
        let generation = s.machine.seekGeneration
        let done = change { s -> [Handler] in
            guard s.machine.isCurrent(generation), s.item === item else { return [] }
            return s.machine.finishPrerolls()
        }
        guard !done.isEmpty else { return }
        DispatchQueue.global().async { for handler in done { handler(true) } }
    }
}
