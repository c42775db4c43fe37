import Foundation

/// The loadable properties of a track. All but the scan-backed ones are loaded when the track exists.
extension AVPartialAsyncProperty where Root: AVAssetTrack {
    static func track<V>(_ key: String) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(
            key: key,
            loader: { track in
                try await track.properties.value(key) { () async throws -> V in
                    guard let value = try await track.scannedValue(key) as? V else {
                        preconditionFailure("track property \(key) has no value of type \(V.self)")
                    }
                    return value
                }
            },
            status: { track in AVAsyncProperty<Root, V>.typed(track.properties.status(key)) })
    }

    public static var formatDescriptions: AVAsyncProperty<Root, [CMFormatDescription]> { track("formatDescriptions") }
    /// A decoder exists and the track is audio, video or subtitles.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { track("playable") }
    public static var isDecodable: AVAsyncProperty<Root, Bool> { track("decodable") }
    /// The track header's enabled flag for MP4/MOV; true for other containers.
    public static var isEnabled: AVAsyncProperty<Root, Bool> { track("enabled") }
    public static var isSelfContained: AVAsyncProperty<Root, Bool> { track("selfContained") }
    /// Bytes of media data: from the MP4 sample index, else from one packet scan of the file.
    public static var totalSampleDataLength: AVAsyncProperty<Root, Int64> { track("totalSampleDataLength") }
    public static var mediaCharacteristics: AVAsyncProperty<Root, [AVMediaCharacteristic]> { track("mediaCharacteristics") }
    public static var timeRange: AVAsyncProperty<Root, CMTimeRange> { track("timeRange") }
    /// The track's time base denominator (the MP4 media timescale).
    public static var naturalTimeScale: AVAsyncProperty<Root, CMTimeScale> { track("naturalTimeScale") }
    /// Bits per second: the container's figure, else computed from the sample bytes.
    public static var estimatedDataRate: AVAsyncProperty<Root, Float> { track("estimatedDataRate") }
    /// ISO 639-2/T code ("eng"); nil when undetermined.
    public static var languageCode: AVAsyncProperty<Root, String?> { track("languageCode") }
    /// BCP 47 tag derived from the language ("en"); nil when undetermined.
    public static var extendedLanguageTag: AVAsyncProperty<Root, String?> { track("extendedLanguageTag") }
    /// Display size before the preferred transform: encoded size with the pixel aspect ratio applied.
    public static var naturalSize: AVAsyncProperty<Root, CGSize> { track("naturalSize") }
    /// The display matrix, translated so the transformed picture starts at the origin.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> { track("preferredTransform") }
    /// 1 for audio, 0 for other tracks: FFmpeg does not read the track header's volume.
    public static var preferredVolume: AVAsyncProperty<Root, Float> { track("preferredVolume") }
    /// Frames (or audio packets) per second: sample count over duration where both are known.
    public static var nominalFrameRate: AVAsyncProperty<Root, Float> { track("nominalFrameRate") }
    public static var minFrameDuration: AVAsyncProperty<Root, CMTime> { track("minFrameDuration") }
    /// True when the decoder reorders frames (B-frames).
    public static var requiresFrameReordering: AVAsyncProperty<Root, Bool> { track("requiresFrameReordering") }
    public static var hasAudioSampleDependencies: AVAsyncProperty<Root, Bool> { track("hasAudioSampleDependencies") }
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> { track("metadata") }
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> { track("commonMetadata") }
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> { track("availableMetadataFormats") }
    /// One segment covering the track (FFmpeg applies edit lists itself).
    public static var segments: AVAsyncProperty<Root, [AVAssetTrackSegment]> { track("segments") }
}
