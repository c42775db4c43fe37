internal import MediaEngine
import Foundation

/// The loadable properties of a track, each defined over its typed facts. All but the scan-backed ones
/// are loaded when the track exists.
extension AVPartialAsyncProperty where Root: AVAssetTrack {
    /// A property the header always gives: loaded with the track.
    static func fact<V>(_ key: String, _ read: @escaping @Sendable (TrackFacts) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(key: key, loader: { read($0.facts) }, blocking: { .success(read($0.facts)) }, status: { .loaded(read($0.facts)) })
    }

    /// A property from the header where it tells, else from the asset's one packet scan.
    static func scanned<V>(_ key: String, _ header: @escaping @Sendable (TrackFacts) -> V?,
                           _ scanned: @escaping @Sendable (ScannedTrackFacts) -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { track in
                if let value = header(track.facts) { return value }
                return scanned(track.scanned(try await track.packetStatistics()))
            },
            blocking: { track in
                if let value = header(track.facts) { return .success(value) }
                return track.blockingPacketStatistics().map { scanned(track.scanned($0)) }
            },
            status: { track in
                if let value = header(track.facts) { return .loaded(value) }
                return track.packetScanStatus().map { scanned(track.scanned($0)) }
            })
    }

    /// One format description of the track's codec, with its sample rate and channels or its dimensions.
    public static var formatDescriptions: AVAsyncProperty<Root, [CMFormatDescription]> { fact("formatDescriptions", \.formatDescriptions) }
    /// A decoder exists and the track is audio, video or subtitles.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { fact("playable", \.isPlayable) }
    /// A decoder exists for the track's codec.
    public static var isDecodable: AVAsyncProperty<Root, Bool> { fact("decodable", \.isDecodable) }
    /// The track header's enabled flag for MP4/MOV; true for other containers.
    public static var isEnabled: AVAsyncProperty<Root, Bool> { fact("enabled", \.isEnabled) }
    /// True for a file's track (Avocet reads no references to media in other files); false for a
    /// composition's track.
    public static var isSelfContained: AVAsyncProperty<Root, Bool> { fact("selfContained", \.isSelfContained) }
    /// Bytes of media data: from the MP4 sample index, else from one packet scan of the file.
    public static var totalSampleDataLength: AVAsyncProperty<Root, Int64> { scanned("totalSampleDataLength", \.totalSampleDataLength, \.totalSampleDataLength) }
    /// Visual and frame-based for video, audible for audio, legible for text; plus the accessibility,
    /// forced-subtitle, dubbed and original flags the container sets.
    public static var mediaCharacteristics: AVAsyncProperty<Root, [AVMediaCharacteristic]> { fact("mediaCharacteristics", \.mediaCharacteristics) }
    /// The track's start and duration from the header, or from one packet scan where the header only
    /// estimates and the asset asked for precise timing.
    public static var timeRange: AVAsyncProperty<Root, CMTimeRange> { scanned("timeRange", \.timeRange, \.timeRange) }
    /// The track's time base denominator (the MP4 media timescale).
    public static var naturalTimeScale: AVAsyncProperty<Root, CMTimeScale> { fact("naturalTimeScale", \.naturalTimeScale) }
    /// Bits per second: the container's figure, else computed from the sample bytes.
    public static var estimatedDataRate: AVAsyncProperty<Root, Float> { scanned("estimatedDataRate", \.estimatedDataRate, \.estimatedDataRate) }
    /// ISO 639-2/T code ("eng"); nil when undetermined.
    public static var languageCode: AVAsyncProperty<Root, String?> { fact("languageCode", \.languageCode) }
    /// BCP 47 tag derived from the language ("en"); nil when undetermined.
    public static var extendedLanguageTag: AVAsyncProperty<Root, String?> { fact("extendedLanguageTag", \.extendedLanguageTag) }
    /// Display size before the preferred transform: MP4's track header size where it states one, else the
    /// encoded size with the pixel aspect ratio applied.
    public static var naturalSize: AVAsyncProperty<Root, CGSize> { fact("naturalSize", \.naturalSize) }
    /// The display matrix, translated so the transformed picture starts at the origin.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> { fact("preferredTransform", \.preferredTransform) }
    /// 1 for audio, 0 for other tracks: FFmpeg does not read the track header's volume.
    public static var preferredVolume: AVAsyncProperty<Root, Float> { fact("preferredVolume", \.preferredVolume) }
    /// Frames (or audio packets) per second: sample count over duration where both are known.
    public static var nominalFrameRate: AVAsyncProperty<Root, Float> { scanned("nominalFrameRate", \.nominalFrameRate, \.nominalFrameRate) }
    /// One frame at the stream's base rate for video, one packet for audio; `.invalid` otherwise.
    public static var minFrameDuration: AVAsyncProperty<Root, CMTime> { fact("minFrameDuration", \.minFrameDuration) }
    /// True when the decoder reorders frames (B-frames).
    public static var requiresFrameReordering: AVAsyncProperty<Root, Bool> { fact("requiresFrameReordering", \.requiresFrameReordering) }
    /// False for a file's track; a composition track's is true when one of its sources' is.
    public static var hasAudioSampleDependencies: AVAsyncProperty<Root, Bool> { fact("hasAudioSampleDependencies", \.hasAudioSampleDependencies) }
    /// The track's own tags, in the container's key space.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> { fact("metadata", \.metadata) }
    /// The track's tags that map onto the common key space.
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> { fact("commonMetadata", \.commonMetadata) }
    /// The formats of the track's metadata items.
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> { fact("availableMetadataFormats", \.availableMetadataFormats) }
    /// One segment covering the track (FFmpeg applies edit lists itself).
    public static var segments: AVAsyncProperty<Root, [AVAssetTrackSegment]> { scanned("segments", \.segments, \.segments) }
}
