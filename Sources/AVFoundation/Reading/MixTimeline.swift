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

    /// The inputs of the mix of `audios` within `window`, each cut to its track's own time range
    /// (`span(of:in:fromFileStart:)`), and where the last of them ends, in seconds from the window's
    /// start: an export's sound and a reader's mix end there rather than at the window's end. Nil when
    /// no track has sound in the window.
    static func clippedMixInputs(_ audios: [AVAssetTrack], in window: CMTimeRange, audioMix: AVAudioMix?, sources: SegmentSources,
                                 fromFileStart: Bool) throws -> (inputs: [(track: AVAssetTrack, input: ExportPlan.EncodedAudio.Input)], end: Double)? {
        var mixed = try mixInputs(audios, in: window, audioMix: audioMix, sources: sources, fromFileStart: fromFileStart)
        var end = 0.0
        for (i, entry) in mixed.enumerated() {
            let span = span(of: entry.track, in: window, fromFileStart: fromFileStart)
            mixed[i].input.pieces = clip(entry.input.pieces, to: span)
            if !mixed[i].input.pieces.isEmpty { end = max(end, span.upperBound) }
        }
        mixed.removeAll { $0.input.pieces.isEmpty }
        guard !mixed.isEmpty, end > 0 else { return nil }
        return (mixed, end)
    }

    /// Where `track` plays within `window`, in seconds from the window's start: its own time range
    /// (a file's counted from where its first stream starts when `fromFileStart`, as its pieces then
    /// are; a composition's track runs from zero to its last segment's end), from the header or the
    /// packet scan the asset has made. The whole window when neither tells, or the range has no length.
    static func span(of track: AVAssetTrack, in window: CMTimeRange, fromFileStart: Bool = true) -> ClosedRange<Double> {
        let length = window.duration.seconds
        // A range of no length says nothing of where the media is (a header without durations).
        func known(_ range: CMTimeRange?) -> CMTimeRange? {
            guard let range, range.start.isNumeric, range.end.isNumeric, range.duration > .zero else { return nil }
            return range
        }
        var range = known(track.facts.timeRange)
        if range == nil, case .loaded(let stats) = track.packetScanStatus() { range = known(track.scanned(stats).timeRange) }
        guard let range else { return 0...length }
        let origin = track is AVCompositionTrack || !fromFileStart ? 0 : fileOrigin(of: track).seconds
        let offset = origin + window.start.seconds
        let start = range.start.seconds - offset, end = range.end.seconds - offset
        guard start.isFinite, end.isFinite else { return 0...length }
        let low = min(max(0, start), length)
        return low...min(max(low, end), length)
    }

    /// `pieces` cut to `span` (seconds from the window's start): a piece outside it is left out; one
    /// that crosses an end keeps the part inside, at its own speed.
    static func clip(_ pieces: [ExportPlan.Piece], to span: ClosedRange<Double>) -> [ExportPlan.Piece] {
        pieces.compactMap { piece in
            guard piece.targetStart < span.upperBound, piece.targetEnd > span.lowerBound else { return nil }
            var cut = piece
            let speed = piece.speed
            if piece.targetStart < span.lowerBound {
                cut.sourceStart = piece.sourceStart + (span.lowerBound - piece.targetStart) * speed
                cut.targetStart = span.lowerBound
            }
            if piece.targetEnd > span.upperBound {
                cut.sourceEnd = piece.sourceStart + (span.upperBound - piece.targetStart) * speed
                cut.targetEnd = span.upperBound
            }
            return cut
        }
    }

    static func pieceTracks(of track: AVAssetTrack, sources: SegmentSources) throws -> [AVAssetTrack] {
        guard let composed = track as? AVCompositionTrack else { return [track] }
        return try composed.snapshot.table.segments.compactMap(\.source).map { try sources.track(of: $0) }
    }
}
