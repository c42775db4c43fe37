import Foundation

/// One variant of an HTTP Live Streaming master playlist (an `EXT-X-STREAM-INF` entry): its bit rate
/// and what its video and sound are. ``AVURLAsset``'s `variants` lists them.
///
/// Avocet reads the attributes of the playlist's `EXT-X-STREAM-INF` entries (bit rates, resolution,
/// frame rate, `CODECS`, `VIDEO-RANGE`), as Apple does; what an entry leaves out comes from the
/// variant's streams as FFmpeg read them from its first segment while it opened the playlist, and the
/// channel count always does. Immutable; safe from any thread.
open class AVAssetVariant: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// The variant's peak bit rate (`BANDWIDTH`), in bits per second; nil when the playlist gives none.
    public let peakBitRate: Double?
    /// The variant's average bit rate (`AVERAGE-BANDWIDTH`), in bits per second; nil when the playlist
    /// gives none.
    public let averageBitRate: Double?
    /// What the variant's video is; nil for a variant without video.
    public let videoAttributes: VideoAttributes?
    /// What the variant's sound is; nil for a variant without sound.
    public let audioAttributes: AudioAttributes?

    init(peakBitRate: Double?, averageBitRate: Double?, videoAttributes: VideoAttributes?, audioAttributes: AudioAttributes?) {
        self.peakBitRate = peakBitRate
        self.averageBitRate = averageBitRate
        self.videoAttributes = videoAttributes
        self.audioAttributes = audioAttributes
        super.init()
    }

    open override var description: String {
        let size = videoAttributes.map { " \(Int(exactly: $0.presentationSize.width.rounded()) ?? 0)x\(Int(exactly: $0.presentationSize.height.rounded()) ?? 0)" } ?? ""
        return "<AVAssetVariant \(peakBitRate.map { "\(Int64(exactly: $0.rounded()) ?? 0) b/s" } ?? "no bit rate")\(size)>"
    }
}
