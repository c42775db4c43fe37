import Foundation

// The attachment keys of sample buffers, with Apple's raw values (the name after `Key_`): per-sample
// keys live in the dictionaries of `CMSampleBufferGetSampleAttachmentsArray`, buffer keys are set with
// `CMSetAttachment`. Constants of an immutable class, shared without a lock.

/// Per sample: true when the sample is not a sync sample (absent: it is one, a key frame).
nonisolated(unsafe) public let kCMSampleAttachmentKey_NotSync: CFString = "NotSync"
/// Per sample: true when the sample is a partial sync sample.
nonisolated(unsafe) public let kCMSampleAttachmentKey_PartialSync: CFString = "PartialSync"
/// Per sample: whether the sample has redundant coding.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HasRedundantCoding: CFString = "HasRedundantCoding"
/// Per sample: false when no other sample depends on this one (it may be dropped).
nonisolated(unsafe) public let kCMSampleAttachmentKey_IsDependedOnByOthers: CFString = "IsDependedOnByOthers"
/// Per sample: true when it depends on others (not an I-frame), false when it does not.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DependsOnOthers: CFString = "DependsOnOthers"
/// Per sample: later samples may be displayed before this one.
nonisolated(unsafe) public let kCMSampleAttachmentKey_EarlierDisplayTimesAllowed: CFString = "EarlierDisplayTimesAllowed"
/// Per sample: display at once, whatever its time.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DisplayImmediately: CFString = "DisplayImmediately"
/// Per sample: decode but do not display.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DoNotDisplay: CFString = "DoNotDisplay"
/// Per sample: the HEVC temporal level information.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCTemporalLevelInfo: CFString = "HEVCTemporalLevelInfo"
/// Per sample: an HEVC temporal sub-layer access picture.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCTemporalSubLayerAccess: CFString = "HEVCTemporalSubLayerAccess"
/// Per sample: an HEVC stepwise temporal sub-layer access picture.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCStepwiseTemporalSubLayerAccess: CFString = "HEVCStepwiseTemporalSubLayerAccess"
/// Per sample: the NAL unit type of an HEVC sync sample.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCSyncSampleNALUnitType: CFString = "HEVCSyncSampleNALUnitType"
/// Per sample: the count of samples an audio decoder needs before this one decodes alone.
nonisolated(unsafe) public let kCMSampleAttachmentKey_AudioIndependentSampleDecoderRefreshCount: CFString = "AudioIndependentSampleDecoderRefreshCount"
/// Buffer: the duration trimmed from the start (a ``CMTimeCopyAsDictionary(_:allocator:)`` dictionary;
/// 0 when absent).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_TrimDurationAtStart: CFString = "TrimDurationAtStart"
/// Buffer: the duration trimmed from the end (a ``CMTimeCopyAsDictionary(_:allocator:)`` dictionary;
/// 0 when absent).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_TrimDurationAtEnd: CFString = "TrimDurationAtEnd"
/// Buffer: the samples play in reverse (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_Reverse: CFString = "Reverse"
/// Buffer: the speed the samples play at (a number; 1 when absent).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_SpeedMultiplier: CFString = "SpeedMultiplier"
/// Buffer: reset the decoder before decoding these samples (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_ResetDecoderBeforeDecoding: CFString = "ResetDecoderBeforeDecoding"
/// Buffer: drain the decoder after decoding these samples (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DrainAfterDecoding: CFString = "DrainAfterDecoding"
/// Buffer: fill a gap before these samples with silence (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_FillDiscontinuitiesWithSilence: CFString = "FillDiscontinuitiesWithSilence"
/// Buffer: the buffer marks empty media (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_EmptyMedia: CFString = "EmptyMedia"
/// Buffer: the buffer marks empty media to the end (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_PermanentEmptyMedia: CFString = "PermanentEmptyMedia"
/// Buffer: the buffer ends the previous sample's duration (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_EndsPreviousSampleDuration: CFString = "EndsPreviousSampleDuration"
/// Buffer: encode this picture as a key frame (a boolean).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_ForceKeyFrame: CFString = "ForceKeyFrame"
/// Buffer: why a frame was dropped.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DroppedFrameReason: CFString = "DroppedFrameReason"
