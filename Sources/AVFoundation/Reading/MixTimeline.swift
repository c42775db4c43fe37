internal import MediaEngine
import Foundation

/// The spans of files that tracks play within a window, and the inputs of their sound's mix: what an
/// export encodes, a player plays and a reader's audio outputs read. A file's track plays itself; a
/// composition's track, the media segments of its timeline (through `SegmentSources`). Plans only:
/// no file is opened here.
enum MixTimeline {
    /// The spans of files `track` plays within `window`, placed from zero: a file's track plays itself;
    /// a composition's track, its media segments (empty time is left out).
    static func pieces(of track: AVAssetTrack, in window: CMTimeRange, sources: SegmentSources,
                       fromFileStart: Bool = true) throws -> [ExportPlan.Piece] {
        func piece(_ file: AVAssetTrack, source: CMTimeRange, target: CMTimeRange) throws -> ExportPlan.Piece {
            guard let f = file.file else { throw AVError(.noSourceTrack, userInfo: [NSLocalizedDescriptionKey: "A track has no media of its own."]) }
            let bytes = f.source
            return ExportPlan.Piece(open: { try bytes.openUnchanged() }, options: bytes.options, streamIndex: f.stream.index,
                                    sourceStart: source.start.seconds, sourceEnd: source.end.seconds,
                                    targetStart: (target.start - window.start).seconds, targetEnd: (target.end - window.start).seconds)
        }
        guard let composed = track as? AVCompositionTrack else {
            // A file whose first audio or video sample comes after zero: the window counts from there
            // (MPEG streams already count from their start; see `ContainerFormat.countsFromItsStart`).
            let origin = fromFileStart ? fileOrigin(of: track) : .zero
            return [try piece(track, source: CMTimeRange(start: window.start + origin, duration: window.duration), target: window)]
        }
        var result: [ExportPlan.Piece] = []
        for segment in composed.snapshot.table.segments {
            guard let source = segment.source else { continue }
            let target = segment.target.intersection(window)
            guard !target.isEmpty, target.duration.isNumeric, target.duration > .zero else { continue }
            let from = CMTimeMapTimeFromRangeToRange(target.start, fromRange: segment.target, toRange: source.range)
            let to = CMTimeMapTimeFromRangeToRange(target.end, fromRange: segment.target, toRange: source.range)
            guard from.isNumeric, to.isNumeric else { continue }
            result.append(try piece(try sources.track(of: source), source: CMTimeRange(start: from, end: to), target: target))
        }
        return result
    }

    /// Where the file of `track` starts: the earliest start of its audio and video tracks, when later
    /// than zero.
    static func fileOrigin(of track: AVAssetTrack) -> CMTime {
        // The asset's facts are loaded by now (its tracks came from them): read without waiting.
        var tracks = [track]
        if let asset = track.asset, case .loaded(let facts) = asset.factsStatus() { tracks = facts.tracks }
        let starts = tracks
            .filter { [.audio, .video].contains($0.mediaType) }
            .compactMap { $0.facts.timeRange?.start }
            .filter(\.isNumeric)
        guard let first = starts.min(), first > .zero else { return .zero }
        return first
    }

    /// The inputs of the mix of `audios` within `window` (placed from zero), each at its volumes in
    /// `audioMix`: what an export encodes and a player plays. An export counts a file's time from where
    /// its first stream starts (`fromFileStart`); a player from the file's zero, as its pictures do.
    static func audioInputs(_ audios: [AVAssetTrack], in window: CMTimeRange, audioMix: AVAudioMix?,
                            sources: SegmentSources, fromFileStart: Bool = true) throws -> [ExportPlan.EncodedAudio.Input] {
        try mixInputs(audios, in: window, audioMix: audioMix, sources: sources, fromFileStart: fromFileStart).map(\.input)
    }

    /// The same, each with its track (tracks with nothing in the window are left out).
    static func mixInputs(_ audios: [AVAssetTrack], in window: CMTimeRange, audioMix: AVAudioMix?, sources: SegmentSources,
                                  fromFileStart: Bool) throws -> [(track: AVAssetTrack, input: ExportPlan.EncodedAudio.Input)] {
        var inputs: [(track: AVAssetTrack, input: ExportPlan.EncodedAudio.Input)] = []
        for track in audios {
            let pieces = try self.pieces(of: track, in: window, sources: sources, fromFileStart: fromFileStart)
            guard !pieces.isEmpty else { continue }
            let volumes = audioMix?.parameters(for: track.trackID)?.values.withLock { $0.volumes }
            let start = window.start.seconds
            inputs.append((track, ExportPlan.EncodedAudio.Input(pieces: pieces, gain: { t in
                guard let volumes else { return 1 }
                return volumes.value(at: CMTime(seconds: start + t, preferredTimescale: 48_000)) { a, b, f in a + (b - a) * Float(f) }
            })))
        }
        return inputs
    }

    static func pieceTracks(of track: AVAssetTrack, sources: SegmentSources) throws -> [AVAssetTrack] {
        guard let composed = track as? AVCompositionTrack else { return [track] }
        return try composed.snapshot.table.segments.compactMap(\.source).map { try sources.track(of: $0) }
    }
}
