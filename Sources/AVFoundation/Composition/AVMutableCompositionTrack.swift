import Foundation

/// A composition track an app edits: inserting media pushes what follows out, removing pulls it in,
/// scaling stretches the segments it covers, as Apple documents. Edits change the in-memory segment
/// table only (no I/O; source files are read when the composition is). Edit a track from one thread
/// at a time, as on Apple's platforms; reads from other threads see whole edits.
open class AVMutableCompositionTrack: AVCompositionTrack, @unchecked Sendable {
    /// Inserts `timeRange` of `track`'s media at `startTime`, at its natural duration, pushing what
    /// follows out. No I/O: the track's media is read when the composition is.
    ///
    /// - Parameters:
    ///   - timeRange: The part of `track`'s timeline to insert: it starts at or after zero and lasts a
    ///     positive time (it may run past the track's end).
    ///   - track: A file asset's track or another composition's (whose segments are inserted), of this
    ///     track's media type.
    ///   - startTime: Where the inserted media starts on this track: at or after zero.
    /// - Throws: ``AVError/Code-swift.enum/incompatibleAsset`` for a track of another media type;
    ///   ``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceStartTime`` or
    ///   ``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceDuration`` for a range that does
    ///   not start at or after zero or does not last a positive time;
    ///   ``AVError/Code-swift.enum/compositionTrackSegmentsNotContiguous`` for a `startTime` before
    ///   zero. Nothing changes then.
    open func insertTimeRange(_ timeRange: CMTimeRange, of track: AVAssetTrack, at startTime: CMTime) throws {
        let pieces = try CompositionEdit.pieces(of: track, in: timeRange, at: startTime, into: mediaType)
        state.withLock { $0.table.insert(pieces, at: startTime) }
    }

    /// Inserts each of `timeRanges` of the track at the same place in `tracks`, one after another from
    /// `startTime`. Checks them all first: nothing is inserted when one fails.
    ///
    /// - Parameters:
    ///   - timeRanges: `NSValue`s holding `CMTimeRange`s (`NSValue(timeRange:)`), one per track.
    ///   - tracks: The tracks the ranges come from, as ``insertTimeRange(_:of:at:)`` takes them.
    ///   - startTime: Where the first range starts on this track: at or after zero.
    /// - Throws: What ``insertTimeRange(_:of:at:)`` throws for any range;
    ///   ``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceDuration`` when the counts of
    ///   ranges and tracks differ.
    open func insertTimeRanges(_ timeRanges: [NSValue], of tracks: [AVAssetTrack], at startTime: CMTime) throws {
        guard timeRanges.count == tracks.count else {
            throw AVError(.invalidCompositionTrackSegmentSourceDuration, userInfo: [
                NSLocalizedDescriptionKey: "\(timeRanges.count) time ranges were given for \(tracks.count) tracks.",
            ])
        }
        var all: [SegmentTable.Segment] = []
        var at = CMTime.zero
        for (value, track) in zip(timeRanges, tracks) {
            let range = value.timeRangeValue
            for var piece in try CompositionEdit.pieces(of: track, in: range, at: startTime, into: mediaType) {
                piece.target.start = piece.target.start + at
                all.append(piece)
            }
            at = at + range.duration
        }
        state.withLock { $0.table.insert(all, at: startTime) }
    }

    /// Inserts empty time: what was at or after `timeRange.start` moves later by its duration. Empty
    /// time past the end of the track adds nothing.
    ///
    /// - Parameter timeRange: Where the empty time starts, and how long it lasts.
    open func insertEmptyTimeRange(_ timeRange: CMTimeRange) {
        state.withLock { $0.table.insert(nil, duration: timeRange.duration, at: timeRange.start) }
    }

    /// Removes what lies in `timeRange`; what followed moves earlier.
    ///
    /// - Parameter timeRange: The part of the track's timeline to remove.
    open func removeTimeRange(_ timeRange: CMTimeRange) {
        state.withLock { $0.table.remove(timeRange) }
    }

    /// Stretches or shrinks what lies in `timeRange` to last `duration` (its media plays slower or
    /// faster); what followed moves by the difference.
    ///
    /// - Parameters:
    ///   - timeRange: The part of the track's timeline to scale.
    ///   - duration: How long that part lasts afterwards.
    open func scaleTimeRange(_ timeRange: CMTimeRange, toDuration duration: CMTime) {
        state.withLock { $0.table.scale(timeRange, to: duration) }
    }

    /// Checks whether `trackSegments` can be the track's ``segments``. Changes nothing.
    ///
    /// - Parameter trackSegments: The segments to check, in order.
    /// - Throws: The error Apple gives, naming the segment at fault: segments not end to end from zero
    ///   (``AVError/Code-swift.enum/compositionTrackSegmentsNotContiguous``), a segment that does not
    ///   last a positive time (``AVError/Code-swift.enum/invalidCompositionTrackSegmentDuration``), or a
    ///   source that does not start at or after zero or does not last a positive time
    ///   (``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceStartTime``,
    ///   ``AVError/Code-swift.enum/invalidCompositionTrackSegmentSourceDuration``).
    open func validateSegments(_ trackSegments: [AVCompositionTrackSegment]) throws {
        do {
            try SegmentTable.validate(trackSegments.map(\.tableSegment))
        } catch {
            throw CompositionEdit.error(error)
        }
    }

    /// The segments, settable wholesale. Segments that ``validateSegments(_:)`` refuses are not set (the
    /// track keeps its segments; Apple raises an exception): validate first. Non-optional, where Apple
    /// declares `[AVCompositionTrackSegment]!`.
    open override var segments: [AVCompositionTrackSegment] {
        get { super.segments }
        set {
            guard let table = try? SegmentTable(validated: newValue.map(\.tableSegment)) else { return }
            state.withLock { $0.table = table }
        }
    }

    open override var preferredTransform: CGAffineTransform {
        get { super.preferredTransform }
        set { state.withLock { $0.preferredTransform = newValue } }
    }

    open override var preferredVolume: Float {
        get { super.preferredVolume }
        set { state.withLock { $0.preferredVolume = newValue } }
    }

    /// Set 0 to go back to the default (the first source track's, else 600).
    open override var naturalTimeScale: CMTimeScale {
        get { super.naturalTimeScale }
        set { state.withLock { $0.naturalTimeScale = max(0, newValue) } }
    }

    open override var languageCode: String? {
        get { super.languageCode }
        set { state.withLock { $0.languageCode = newValue } }
    }

    open override var extendedLanguageTag: String? {
        get { super.extendedLanguageTag }
        set { state.withLock { $0.extendedLanguageTag = newValue } }
    }

    open override var isEnabled: Bool {
        get { super.isEnabled }
        set { state.withLock { $0.isEnabled = newValue } }
    }
}
