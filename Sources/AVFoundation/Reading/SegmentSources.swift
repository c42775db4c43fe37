import Foundation
internal import Locking

/// Where a track's media is at a time: the file track that holds it, the time in that track, and the
/// span of the file track the segment plays (nil for a file's own track, which plays all of itself).
struct SourcePoint {
    let track: AVAssetTrack
    let time: CMTime
    /// The composition segment the time falls in.
    let segment: SegmentTable.Segment?

    /// The time on the track's own timeline (the composition's) of `sourceTime`, kept inside the
    /// segment (a picture that starts before the segment's cut shows from the cut).
    func trackTime(ofSource sourceTime: CMTime) -> CMTime {
        guard let segment, let source = segment.source else { return sourceTime }
        let mapped = CMTimeMapTimeFromRangeToRange(sourceTime, fromRange: source.range, toRange: segment.target)
        guard mapped.isNumeric else { return segment.target.start }
        return min(max(mapped, segment.target.start), segment.target.end)
    }
}

/// The file tracks behind a composition's segments: the tracks inserted, or, for segments given by
/// URL alone, the tracks of `AVURLAsset`s opened for those URLs (with the composition's
/// `urlAssetInitializationOptions`) and loaded before reading (`prepare`). One per reader of a
/// composition (an image generator, an export).
final class SegmentSources: Sendable {
    private struct Key: Hashable { let url: URL; let trackID: CMPersistentTrackID }
    private let options: UncheckedBox<[String: Any]>
    /// A loaded track, or why it could not be.
    private let resolved = Locked<[Key: Result<AVAssetTrack, any Error>]>([:])

    init(for asset: AVAsset) {
        options = UncheckedBox((asset as? AVComposition)?.urlAssetInitializationOptions ?? [:])
    }

    /// The URL-only segments of `tracks` not yet resolved.
    private func pending(in tracks: [AVAssetTrack]) -> [Key] {
        var keys: [Key] = []
        for case let track as AVCompositionTrack in tracks {
            for segment in track.snapshot.table.segments {
                guard let source = segment.source, source.track == nil, let url = source.url else { continue }
                let key = Key(url: url, trackID: source.trackID)
                if !keys.contains(key) && resolved.withLock({ $0[key] == nil }) { keys.append(key) }
            }
        }
        return keys
    }

    /// Loads the assets of `tracks`' URL-only segments (their headers, on the engine's threads). A
    /// source that fails is remembered and reported when its segment is read.
    func prepare(_ tracks: [AVAssetTrack]) async {
        for key in pending(in: tracks) {
            let asset = AVURLAsset(url: key.url, options: options.value)
            let result: Result<AVAssetTrack, any Error>
            do {
                result = try await asset.loadTrack(withTrackID: key.trackID).map { .success($0) } ?? .failure(SegmentSources.noTrack(key))
            } catch {
                result = .failure(AVError.converting(error))
            }
            resolved.withLock { $0[key] = result }
        }
    }

    /// The same, waiting on the calling thread.
    func blockingPrepare(_ tracks: [AVAssetTrack]) {
        for key in pending(in: tracks) {
            let asset = AVURLAsset(url: key.url, options: options.value)
            let result = asset.blockingFacts().mapError(AVError.converting).flatMap { facts -> Result<AVAssetTrack, any Error> in
                facts.tracks.first { $0.trackID == key.trackID }.map { .success($0) } ?? .failure(SegmentSources.noTrack(key))
            }
            resolved.withLock { $0[key] = result }
        }
    }

    private static func noTrack(_ key: Key) -> AVError {
        AVError(.noSourceTrack, userInfo: [NSLocalizedDescriptionKey: "\(key.url.lastPathComponent) has no track \(key.trackID)."])
    }

    /// The file track a segment's media comes from. Throws when it could not be loaded.
    func track(of source: SegmentTable.Source) throws -> AVAssetTrack {
        if let inserted = source.track { return inserted }
        guard let url = source.url else {
            throw AVError(.noSourceTrack, userInfo: [NSLocalizedDescriptionKey: "A composition segment names no source."])
        }
        guard let found = resolved.withLock({ $0[Key(url: url, trackID: source.trackID)] }) else {
            throw AVError(.noSourceTrack, userInfo: [NSLocalizedDescriptionKey: "\(url.lastPathComponent) was not loaded."])
        }
        return try found.get()
    }

    /// Where `track`'s media is at `time`: for a file's track, itself; for a composition's, through the
    /// segment holding the time. Nil where nothing plays (an empty segment, past the end). Throws when
    /// the segment's source could not be loaded.
    func locate(_ track: AVAssetTrack, at time: CMTime) throws -> SourcePoint? {
        guard let composed = track as? AVCompositionTrack else { return SourcePoint(track: track, time: time, segment: nil) }
        guard let segment = composed.snapshot.table.segment(at: time), let source = segment.source else { return nil }
        let fileTrack = try self.track(of: source)
        let mapped = CMTimeMapTimeFromRangeToRange(time, fromRange: segment.target, toRange: source.range)
        guard mapped.isNumeric else { return nil }
        return SourcePoint(track: fileTrack, time: mapped, segment: segment)
    }
}
