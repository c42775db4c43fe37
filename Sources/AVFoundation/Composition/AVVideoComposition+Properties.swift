import Foundation

extension AVVideoComposition {
    /// A video composition that presents `asset`'s video tracks as they are: one instruction per time
    /// range where the same tracks have media, each with a layer instruction per track (the first
    /// track on top) applying its preferred transform. Loads the asset's tracks without blocking (for
    /// a file: its header, on the engine's threads). Called on ``AVMutableVideoComposition``, gives one.
    ///
    /// As Apple documents: with one video track, its timing (``sourceTrackIDForFrameTiming``, and a
    /// ``frameDuration`` of one frame at its nominal rate); with more, one frame at the greatest nominal
    /// rate, else 30 a second. ``renderSize`` is a composition's ``AVComposition/naturalSize``, else the
    /// box that holds every video track as its preferred transform shows it. ``renderScale`` 1.
    /// A file's video track counts as showing from time zero to its end (a first picture a few
    /// milliseconds late is a decoding delay, not a gap); a composition track, over its non-empty
    /// segments.
    ///
    /// - Parameter asset: A file's asset or a composition.
    /// - Returns: A new composition; a mutable one when called on ``AVMutableVideoComposition``.
    /// - Throws: The asset's loading error, as ``AVAsynchronousKeyValueLoading/load(_:)`` throws it.
    public class func videoComposition(withPropertiesOf asset: AVAsset) async throws -> Self {
        let (tracks, duration) = try await asset.load(.tracks, .duration)
        return Self(VideoCompositionPlanner.values(tracks: tracks, duration: duration,
                                                   compositionSize: (asset as? AVComposition)?.naturalSize))
    }

    /// The same, calling `completionHandler` when done (see ``videoComposition(withPropertiesOf:)``).
    ///
    /// - Parameters:
    ///   - asset: A file's asset or a composition.
    ///   - completionHandler: Gets the composition and nil, or nil and the loading error, once, on a
    ///     background queue.
    public class func videoComposition(withPropertiesOf asset: AVAsset,
                                       completionHandler: @escaping @Sendable (AVVideoComposition?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await videoComposition(withPropertiesOf: asset) }
    }

    /// The same as ``videoComposition(withPropertiesOf:)``, synchronously: loads the asset's tracks if
    /// needed, waiting on the calling thread.
    ///
    /// - Parameter asset: A file's asset or a composition. One that fails to load gives an empty
    ///   composition (no instructions), as Apple's gives one.
    @available(*, deprecated, message: "Use videoComposition(withPropertiesOf:) instead")
    public convenience init(propertiesOf asset: AVAsset) {
        guard let tracks = try? AVPartialAsyncProperty<AVAsset>.tracks.blockingLoader(asset).get(),
              let duration = try? AVPartialAsyncProperty<AVAsset>.duration.blockingLoader(asset).get() else {
            self.init(Values())
            return
        }
        self.init(VideoCompositionPlanner.values(tracks: tracks, duration: duration,
                                                 compositionSize: (asset as? AVComposition)?.naturalSize))
    }
}

/// How `propertiesOf` lays out an asset's video tracks. Pure computation over the tracks' facts.
enum VideoCompositionPlanner {
    static func values(tracks: [AVAssetTrack], duration: CMTime, compositionSize: CGSize?) -> AVVideoComposition.Values {
        let videos = tracks.filter { $0.mediaType == .video }
        var values = AVVideoComposition.Values()
        values.renderScale = 1
        let rates = videos.compactMap { $0.facts.nominalFrameRate }.filter { $0 > 0 && $0.isFinite }
        values.frameDuration = frameDuration(rate: rates.max() ?? 30)
        if videos.count == 1, let only = videos.first { values.sourceTrackIDForFrameTiming = only.trackID }
        values.renderSize = compositionSize ?? boundingSize(of: videos)

        // Where each track has media, then the spans over which the same tracks do.
        let spans: [(AVAssetTrack, [CMTimeRange])] = videos.map { track in
            if let composed = track as? AVCompositionTrack {
                return (track, composed.snapshot.table.segments.filter { $0.source != nil }.map(\.target))
            }
            let end = track.facts.timeRange.map(\.end) ?? duration
            return (track, end.isNumeric && end > .zero ? [CMTimeRange(start: .zero, end: end)] : [])
        }
        var cuts = Set<CMTime>([.zero])
        let end = duration.isNumeric ? duration : (spans.flatMap(\.1).map(\.end).max() ?? .zero)
        cuts.insert(end)
        for range in spans.flatMap(\.1) { cuts.insert(range.start); cuts.insert(range.end) }
        let times = cuts.filter { $0 >= .zero && $0 <= end }.sorted()

        var instructions: [AVMutableVideoCompositionInstruction] = []
        var previous: [CMPersistentTrackID]?
        for (start, stop) in zip(times, times.dropFirst()) where start < stop {
            let showing = spans.filter { _, ranges in ranges.contains { $0.containsTime(start) } }.map(\.0)
            let ids = showing.map(\.trackID)
            if ids == previous, let last = instructions.last {
                last.timeRange = CMTimeRange(start: last.timeRange.start, end: stop)
                continue
            }
            let instruction = AVMutableVideoCompositionInstruction()
            instruction.timeRange = CMTimeRange(start: start, end: stop)
            instruction.layerInstructions = showing.map { track in
                let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
                layer.setTransform(track.facts.preferredTransform, at: start)
                return layer
            }
            instructions.append(instruction)
            previous = ids
        }
        values.instructions = instructions
        return values
    }

    /// One frame at `rate` a second, in 1/90000 s (exact for the common rates, 29.97 included).
    static func frameDuration(rate: Float) -> CMTime {
        // Rates outside 1/1000 to 1000 a second are clamped: a header can claim anything.
        let clamped = min(1000, max(0.001, Double(rate.isFinite ? rate : 30)))
        return CMTime(value: Int64((90_000 / clamped).rounded()), timescale: 90_000)
    }

    /// The box that holds every track's picture as its preferred transform places it.
    static func boundingSize(of tracks: [AVAssetTrack]) -> CGSize {
        var box = CGRect.null
        for track in tracks {
            let size = track.facts.naturalSize
            guard size.width > 0, size.height > 0 else { continue }
            box = box.union(CGRect(origin: .zero, size: size).applying(track.facts.preferredTransform))
        }
        return box.isNull ? .zero : CGSize(width: box.maxX.rounded(), height: box.maxY.rounded())
    }
}
