// The video settings keys of Apple's AVVideoSettings.h: the keys of the `[String: Any]` dictionaries
// that writer inputs take (compressed output) and that reader outputs take beside the
// `kCVPixelBuffer...` keys (uncompressed output). Raw values are Apple's.

/// The codec: an ``AVVideoCodecType`` such as ``AVVideoCodecType/h264``, or its raw value (`"avc1"`).
public let AVVideoCodecKey = "AVVideoCodecKey"
/// The encoded width in pixels (a positive integer, given with ``AVVideoHeightKey``).
public let AVVideoWidthKey = "AVVideoWidthKey"
/// The encoded height in pixels (a positive integer, given with ``AVVideoWidthKey``).
public let AVVideoHeightKey = "AVVideoHeightKey"
/// How pictures are fitted to the width and height: ``AVVideoScalingModeFit``,
/// ``AVVideoScalingModeResize``, ``AVVideoScalingModeResizeAspect`` or
/// ``AVVideoScalingModeResizeAspectFill``.
public let AVVideoScalingModeKey = "AVVideoScalingModeKey"
/// Colour properties: a dictionary of ``AVVideoColorPrimariesKey``, ``AVVideoTransferFunctionKey`` and
/// ``AVVideoYCbCrMatrixKey``.
public let AVVideoColorPropertiesKey = "AVVideoColorPropertiesKey"
/// Whether wide colour is allowed (a Boolean).
public let AVVideoAllowWideColorKey = "AVVideoAllowWideColorKey"
/// Compression properties: a dictionary of the keys below.
public let AVVideoCompressionPropertiesKey = "AVVideoCompressionPropertiesKey"
/// Pixel aspect ratio: a dictionary of the horizontal and vertical spacing keys.
public let AVVideoPixelAspectRatioKey = "AVVideoPixelAspectRatioKey"
/// The horizontal spacing of the pixel aspect ratio.
public let AVVideoPixelAspectRatioHorizontalSpacingKey = "HorizontalSpacing"
/// The vertical spacing of the pixel aspect ratio.
public let AVVideoPixelAspectRatioVerticalSpacingKey = "VerticalSpacing"
/// Clean aperture: a dictionary of the width, height and offset keys.
public let AVVideoCleanApertureKey = "AVVideoCleanApertureKey"
/// The clean aperture's width.
public let AVVideoCleanApertureWidthKey = "Width"
/// The clean aperture's height.
public let AVVideoCleanApertureHeightKey = "Height"
/// The clean aperture's horizontal offset (positive: right).
public let AVVideoCleanApertureHorizontalOffsetKey = "HorizontalOffset"
/// The clean aperture's vertical offset (positive: down).
public let AVVideoCleanApertureVerticalOffsetKey = "VerticalOffset"

/// Fit: crop the edges, keep the aspect ratio, never scale up.
public let AVVideoScalingModeFit = "AVVideoScalingModeFit"
/// Resize: crop the edges, stretch to the size.
public let AVVideoScalingModeResize = "AVVideoScalingModeResize"
/// Resize keeping the aspect ratio, with black bars.
public let AVVideoScalingModeResizeAspect = "AVVideoScalingModeResizeAspect"
/// Resize keeping the aspect ratio, filling the size and cropping.
public let AVVideoScalingModeResizeAspectFill = "AVVideoScalingModeResizeAspectFill"

/// The average bit rate in bits per second.
public let AVVideoAverageBitRateKey = "AverageBitRate"
/// The quality, 0.0 to 1.0 (JPEG and HEIC).
public let AVVideoQualityKey = "Quality"
/// The most frames between key frames (1: key frames only).
public let AVVideoMaxKeyFrameIntervalKey = "MaxKeyFrameInterval"
/// The most seconds between key frames (0: no limit).
public let AVVideoMaxKeyFrameIntervalDurationKey = "MaxKeyFrameIntervalDuration"
/// Whether frames may be reordered (B-frames); true by default.
public let AVVideoAllowFrameReorderingKey = "AllowFrameReordering"
/// The profile and level: one of the `AVVideoProfileLevel...` values, such as
/// ``AVVideoProfileLevelH264HighAutoLevel``.
public let AVVideoProfileLevelKey = "ProfileLevel"
/// The H.264 entropy coding: ``AVVideoH264EntropyModeCAVLC`` or ``AVVideoH264EntropyModeCABAC``.
public let AVVideoH264EntropyModeKey = "H264EntropyMode"
/// CAVLC entropy coding.
public let AVVideoH264EntropyModeCAVLC = "CAVLC"
/// CABAC entropy coding.
public let AVVideoH264EntropyModeCABAC = "CABAC"
/// The frame rate the source is expected to have.
public let AVVideoExpectedSourceFrameRateKey = "ExpectedFrameRate"
/// The average rate of frames that cannot be dropped.
public let AVVideoAverageNonDroppableFrameRateKey = "AverageNonDroppableFrameRate"

/// H.264 Baseline 3.0.
public let AVVideoProfileLevelH264Baseline30 = "H264_Baseline_3_0"
/// H.264 Baseline 3.1.
public let AVVideoProfileLevelH264Baseline31 = "H264_Baseline_3_1"
/// H.264 Baseline 4.1.
public let AVVideoProfileLevelH264Baseline41 = "H264_Baseline_4_1"
/// H.264 Baseline, level chosen by the encoder.
public let AVVideoProfileLevelH264BaselineAutoLevel = "H264_Baseline_AutoLevel"
/// H.264 Main 3.0.
public let AVVideoProfileLevelH264Main30 = "H264_Main_3_0"
/// H.264 Main 3.1.
public let AVVideoProfileLevelH264Main31 = "H264_Main_3_1"
/// H.264 Main 3.2.
public let AVVideoProfileLevelH264Main32 = "H264_Main_3_2"
/// H.264 Main 4.1.
public let AVVideoProfileLevelH264Main41 = "H264_Main_4_1"
/// H.264 Main, level chosen by the encoder.
public let AVVideoProfileLevelH264MainAutoLevel = "H264_Main_AutoLevel"
/// H.264 High 4.0.
public let AVVideoProfileLevelH264High40 = "H264_High_4_0"
/// H.264 High 4.1.
public let AVVideoProfileLevelH264High41 = "H264_High_4_1"
/// H.264 High, level chosen by the encoder.
public let AVVideoProfileLevelH264HighAutoLevel = "H264_High_AutoLevel"

/// The colour primaries inside ``AVVideoColorPropertiesKey``.
public let AVVideoColorPrimariesKey = "ColorPrimaries"
/// The transfer function inside ``AVVideoColorPropertiesKey``.
public let AVVideoTransferFunctionKey = "TransferFunction"
/// The YCbCr matrix inside ``AVVideoColorPropertiesKey``.
public let AVVideoYCbCrMatrixKey = "YCbCrMatrix"
/// ITU-R BT.709 primaries.
public let AVVideoColorPrimaries_ITU_R_709_2 = "ITU_R_709_2"
/// SMPTE-C primaries.
public let AVVideoColorPrimaries_SMPTE_C = "SMPTE_C"
/// Display P3 primaries.
public let AVVideoColorPrimaries_P3_D65 = "P3_D65"
/// ITU-R BT.2020 primaries.
public let AVVideoColorPrimaries_ITU_R_2020 = "ITU_R_2020"
/// ITU-R BT.709 transfer function.
public let AVVideoTransferFunction_ITU_R_709_2 = "ITU_R_709_2"
/// SMPTE ST 2084 (PQ) transfer function.
public let AVVideoTransferFunction_SMPTE_ST_2084_PQ = "SMPTE_ST_2084_PQ"
/// ITU-R BT.2100 HLG transfer function.
public let AVVideoTransferFunction_ITU_R_2100_HLG = "ITU_R_2100_HLG"
/// Linear transfer function.
public let AVVideoTransferFunction_Linear = "Linear"
/// ITU-R BT.709 YCbCr matrix.
public let AVVideoYCbCrMatrix_ITU_R_709_2 = "ITU_R_709_2"
/// ITU-R BT.601 YCbCr matrix.
public let AVVideoYCbCrMatrix_ITU_R_601_4 = "ITU_R_601_4"
/// ITU-R BT.2020 YCbCr matrix.
public let AVVideoYCbCrMatrix_ITU_R_2020 = "ITU_R_2020"

/// The H.264 codec's four-character code (deprecated by Apple for ``AVVideoCodecType/h264``).
@available(*, deprecated, renamed: "AVVideoCodecType.h264")
public let AVVideoCodecH264 = "avc1"
/// The JPEG codec's four-character code (deprecated by Apple for ``AVVideoCodecType/jpeg``).
@available(*, deprecated, renamed: "AVVideoCodecType.jpeg")
public let AVVideoCodecJPEG = "jpeg"
/// The HEVC codec's four-character code (deprecated by Apple for ``AVVideoCodecType/hevc``).
@available(*, deprecated, renamed: "AVVideoCodecType.hevc")
public let AVVideoCodecHEVC = "hvc1"
