internal import MediaEngine
import Foundation

/// What a composition track is: its segment table and the values an app may set. Pure values; the
/// track keeps them behind its lock and makes its `TrackFacts` from them on each read.
struct CompositionTrackState: Sendable {
    var table = SegmentTable()
    var preferredTransform = CGAffineTransform.identity
    var preferredVolume: Float
    /// 0: not set (the first media segment's, else 600).
    var naturalTimeScale: CMTimeScale = 0
    var languageCode: String?
    var extendedLanguageTag: String?
    var isEnabled = true

    init(mediaType: AVMediaType) {
        preferredVolume = mediaType == .audio ? 1 : 0
    }

    /// The property values as `load(_:)` and the synchronous getters give them. Values that describe
    /// the media (format descriptions, natural size, frame rate, data sizes) come from the file tracks
    /// the segments were inserted from; a segment made from a URL alone contributes nothing to them
    /// until it is read. Pure computation over the table: no I/O.
    func facts(mediaType: AVMediaType) -> TrackFacts {
        let media = table.segments.compactMap { segment in segment.source.map { (segment.target, $0) } }
        var sources: [AVAssetTrack] = []
        for (_, source) in media {
            if let track = source.track, !sources.contains(where: { $0 === track }) { sources.append(track) }
        }
        let sourceFacts = sources.map(\.facts)
        var descriptions: [CMFormatDescription] = []
        for description in sourceFacts.flatMap(\.formatDescriptions) where !descriptions.contains(description) {
            descriptions.append(description)
        }

        // Frames per second of composition time: the frames the media segments play over the time they
        // take (a segment scaled to twice its length plays half as many frames a second). Bytes count
        // the same way, in proportion to the source time each segment plays.
        var frames = 0.0, bytes = 0.0, seconds = 0.0
        for (target, source) in media {
            seconds += target.duration.seconds
            guard let facts = source.track?.facts else { continue }
            let played = source.range.duration.seconds
            frames += Double(facts.nominalFrameRate ?? 0) * played
            if let total = facts.totalSampleDataLength, let whole = facts.timeRange?.duration.seconds, whole > 0, whole.isFinite {
                bytes += Double(total) * played / whole
            }
        }
        let counted = seconds > 0 && seconds.isFinite
        let duration = table.duration
        let segments = table.segments.map(AVCompositionTrackSegment.init)
        let firstScale = sourceFacts.first?.naturalTimeScale ?? 0
        return TrackFacts(
            formatDescriptions: descriptions,
            isPlayable: sourceFacts.allSatisfy(\.isPlayable),
            isDecodable: sourceFacts.allSatisfy(\.isDecodable),
            isEnabled: isEnabled,
            isSelfContained: false,
            mediaCharacteristics: TrackFacts.characteristics(of: mediaType),
            naturalTimeScale: naturalTimeScale > 0 ? naturalTimeScale : (firstScale > 0 ? firstScale : 600),
            languageCode: languageCode,
            extendedLanguageTag: extendedLanguageTag,
            naturalSize: sourceFacts.first?.naturalSize ?? .zero,
            preferredTransform: preferredTransform,
            preferredVolume: preferredVolume,
            minFrameDuration: sourceFacts.map(\.minFrameDuration).filter(\.isNumeric).min() ?? .invalid,
            requiresFrameReordering: sourceFacts.contains(where: \.requiresFrameReordering),
            hasAudioSampleDependencies: sourceFacts.contains(where: \.hasAudioSampleDependencies),
            metadata: [], commonMetadata: [], availableMetadataFormats: [],
            timeRange: CMTimeRange(start: .zero, duration: duration),
            segments: segments,
            nominalFrameRate: counted ? Float(frames / seconds) : 0,
            totalSampleDataLength: bytes.isFinite ? max(0, Int64(saturating: bytes.rounded())) : 0,
            estimatedDataRate: counted ? Float(bytes * 8 / seconds) : 0)
    }
}
