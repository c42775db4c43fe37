import Foundation
internal import Locking
import Synchronization

/// A track of a composition: segments of other assets' tracks laid end to end, held in memory.
///
/// Every property is known without I/O, so the synchronous getters are not deprecated (as on Apple's
/// platforms) and ``AVAsynchronousKeyValueLoading/load(_:)`` returns at once; both read the same
/// values. Values that describe the media (format descriptions, natural size, frame rate, data length)
/// come from the source tracks the segments were inserted from; a segment made from a URL alone adds
/// nothing to them. ``AVMutableCompositionTrack`` is the form an app edits.
open class AVCompositionTrack: AVAssetTrack, @unchecked Sendable {
    // @unchecked Sendable: the state sits behind a lock.
    let state: Locked<CompositionTrackState>

    init(composition: AVComposition, trackID: CMPersistentTrackID, mediaType: AVMediaType, state: CompositionTrackState) {
        self.state = Locked(state)
        super.init(asset: composition, trackID: trackID, mediaType: mediaType, facts: state.facts(mediaType: mediaType))
    }

    /// Made anew from the segment table and settings at each read.
    override var facts: TrackFacts { snapshot.facts(mediaType: mediaType) }

    var snapshot: CompositionTrackState { state.withLock { $0 } }

    /// The track's class, ID, media type and segment count.
    open override var description: String {
        "<\(type(of: self)) trackID=\(trackID) mediaType=\(mediaType.rawValue) segments=\(snapshot.table.segments.count)>"
    }

    /// The segments, end to end from time zero; empty segments are spans where nothing plays.
    open var segments: [AVCompositionTrackSegment] { snapshot.table.segments.map(AVCompositionTrackSegment.init) }

    /// The segment whose target time range holds `trackTime`; in memory.
    ///
    /// - Parameter trackTime: A time on the track's timeline.
    /// - Returns: The segment, empty or not; nil when `trackTime` lies outside every segment.
    open func segment(forTrackTime trackTime: CMTime) -> AVCompositionTrackSegment? {
        snapshot.table.segment(at: trackTime).map(AVCompositionTrackSegment.init)
    }

    // MARK: - The values, synchronously (in memory)

    /// The format descriptions of the source tracks, typed `[Any]` as Apple's (each a `CMFormatDescription`).
    open var formatDescriptions: [Any] { facts.formatDescriptions }
    /// Whether every source track can be played.
    open var isPlayable: Bool { facts.isPlayable }
    /// Whether a decoder exists for every source track's codec.
    open var isDecodable: Bool { facts.isDecodable }
    /// Default true.
    open var isEnabled: Bool { snapshot.isEnabled }
    /// False: a composition's media lives in other files.
    open var isSelfContained: Bool { false }
    /// An estimate: each source track's bytes in proportion to the part of it the segments play.
    open var totalSampleDataLength: Int64 { facts.totalSampleDataLength ?? 0 }
    /// The characteristics every track of its media type has: visual and frame-based for video, audible
    /// for audio, legible for text.
    open var mediaCharacteristics: [AVMediaCharacteristic] { facts.mediaCharacteristics }
    /// From zero to the end of the last segment.
    open var timeRange: CMTimeRange { CMTimeRange(start: .zero, duration: snapshot.table.duration) }
    /// The value set, else the first source track's, else 600.
    open var naturalTimeScale: CMTimeScale { facts.naturalTimeScale }
    /// Bits per second of composition time, from the source tracks' bytes in proportion to what the
    /// segments play; 0 when unknown.
    open var estimatedDataRate: Float { facts.estimatedDataRate ?? 0 }
    /// Nil unless set.
    open var languageCode: String? { snapshot.languageCode }
    /// Nil unless set.
    open var extendedLanguageTag: String? { snapshot.extendedLanguageTag }
    /// The first source track's natural size.
    open var naturalSize: CGSize { facts.naturalSize }
    /// Identity unless set (`AVMutableComposition.insertTimeRange(_:of:at:)` sets it from the source
    /// track when it adds the track).
    open var preferredTransform: CGAffineTransform { snapshot.preferredTransform }
    /// 1 for audio, 0 for other tracks, unless set.
    open var preferredVolume: Float { snapshot.preferredVolume }
    /// Frames a second of composition time (scaled segments count at the rate they play).
    open var nominalFrameRate: Float { facts.nominalFrameRate ?? 0 }
    /// The shortest frame duration among the source tracks; `.invalid` when none is known.
    open var minFrameDuration: CMTime { facts.minFrameDuration }
    /// Whether a source track's decoder reorders frames (B-frames).
    open var requiresFrameReordering: Bool { facts.requiresFrameReordering }
    /// Whether a source track's audio samples depend on others.
    open var hasAudioSampleDependencies: Bool { facts.hasAudioSampleDependencies }
    /// Empty: insertion does not copy metadata.
    open var metadata: [AVMetadataItem] { [] }
    /// Empty: insertion does not copy metadata.
    open var commonMetadata: [AVMetadataItem] { [] }
    /// Empty.
    open var availableMetadataFormats: [AVMetadataFormat] { [] }

    /// Whether the track has `mediaCharacteristic`; in memory.
    ///
    /// - Parameter mediaCharacteristic: The characteristic, such as ``AVMediaCharacteristic/visual``.
    /// - Returns: True when the track's media characteristics contain it.
    open func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        mediaCharacteristics.contains(mediaCharacteristic)
    }

    /// Empty: a composition track has no metadata.
    ///
    /// - Parameter format: Ignored.
    /// - Returns: An empty array.
    open func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] { [] }

    /// A copy of this track (same ID, same segments and settings) belonging to `composition`, as an
    /// immutable or a mutable track.
    func copy(into composition: AVComposition, mutable: Bool) -> AVCompositionTrack {
        mutable
            ? AVMutableCompositionTrack(composition: composition, trackID: trackID, mediaType: mediaType, state: snapshot)
            : AVCompositionTrack(composition: composition, trackID: trackID, mediaType: mediaType, state: snapshot)
    }
}
