import Foundation

extension AVAssetVariant {
    /// What a variant's video is.
    open class VideoAttributes: NSObject, @unchecked Sendable {
        // @unchecked Sendable: immutable after init.

        /// The dynamic range: `.pq` or `.hlg` where the stream's transfer function says so, else `.sdr`.
        public let videoRange: AVVideoRange
        /// The video codecs' four-character codes (`avc1`, `hvc1`, ...).
        public let codecTypes: [CMVideoCodecType]
        /// The picture size, in pixels as displayed.
        public let presentationSize: CGSize
        /// The frame rate, where the stream states one.
        public let nominalFrameRate: Double?

        init(videoRange: AVVideoRange, codecTypes: [CMVideoCodecType], presentationSize: CGSize, nominalFrameRate: Double?) {
            self.videoRange = videoRange
            self.codecTypes = codecTypes
            self.presentationSize = presentationSize
            self.nominalFrameRate = nominalFrameRate
            super.init()
        }
    }
}
