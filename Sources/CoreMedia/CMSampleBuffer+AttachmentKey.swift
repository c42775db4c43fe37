import Foundation

extension CMSampleBuffer {
    /// A sample buffer's own attachment key (`kCMSampleBufferAttachmentKey_...`), for
    /// ``CMSampleBuffer/attachments``.
    public struct AttachmentKey: RawRepresentable, Hashable, @unchecked Sendable {
        // @unchecked Sendable: the raw value is an immutable string.
        /// The key's string.
        public let rawValue: CFString
        /// A key from its string.
        public init(rawValue: CFString) { self.rawValue = rawValue }

        /// The duration trimmed from the start (a ``CMTimeCopyAsDictionary(_:allocator:)`` dictionary).
        public static let trimDurationAtStart = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_TrimDurationAtStart)
        /// The duration trimmed from the end.
        public static let trimDurationAtEnd = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_TrimDurationAtEnd)
        /// The samples play in reverse.
        public static let reverse = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_Reverse)
        /// The speed the samples play at.
        public static let speedMultiplier = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_SpeedMultiplier)
        /// Reset the decoder before these samples.
        public static let resetDecoderBeforeDecoding = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_ResetDecoderBeforeDecoding)
        /// Drain the decoder after these samples.
        public static let drainAfterDecoding = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_DrainAfterDecoding)
        /// Fill a gap before these samples with silence.
        public static let fillDiscontinuitiesWithSilence = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_FillDiscontinuitiesWithSilence)
        /// The buffer marks empty media.
        public static let emptyMedia = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_EmptyMedia)
        /// The buffer marks empty media to the end.
        public static let permanentEmptyMedia = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_PermanentEmptyMedia)
        /// The buffer ends the previous sample's duration.
        public static let endsPreviousSampleDuration = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_EndsPreviousSampleDuration)
        /// Encode this picture as a key frame.
        public static let forceKeyFrame = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_ForceKeyFrame)
        /// Why a frame was dropped.
        public static let droppedFrameReason = AttachmentKey(rawValue: kCMSampleBufferAttachmentKey_DroppedFrameReason)
    }
}
