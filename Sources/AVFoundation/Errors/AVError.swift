import Foundation

/// An AVFoundation error: Apple's domain (`AVFoundationErrorDomain`, ``errorDomain``), codes and raw
/// values.
///
/// Bridges to `NSError` (`error as NSError` keeps domain, code and user info). Catch by code with
/// `catch AVError.fileFormatNotRecognized` or `catch let error as AVError` and `error.code`.
/// Avocet's messages name the file, the operation and FFmpeg's reason.
public struct AVError: CustomNSError, LocalizedError, Hashable, @unchecked Sendable {
    // @unchecked Sendable: userInfo holds property-list values and NSErrors only, never mutated after init.
    /// Apple's error codes, with Apple's raw values (-11800 and down).
    ///
    /// Codes for capture, AirPlay and devices exist so that code written for Apple's platforms compiles;
    /// Avocet has none of those features and does not raise them.
    public enum Code: Int, Sendable {
        /// An error with no more specific code; also an engine failure of no known kind.
        case unknown = -11800
        /// Memory could not be allocated for the operation.
        case outOfMemory = -11801
        /// Capture: the session is not running.
        case sessionNotRunning = -11803
        /// Capture: the device is used by another session.
        case deviceAlreadyUsedByAnotherSession = -11804
        /// Capture: no data was captured.
        case noDataCaptured = -11805
        /// Capture: the session's configuration changed while recording.
        case sessionConfigurationChanged = -11806
        /// The disk is full.
        case diskFull = -11807
        /// Capture: the device was disconnected.
        case deviceWasDisconnected = -11808
        /// The media changed while it was in use.
        case mediaChanged = -11809
        /// Recording stopped at its maximum duration.
        case maximumDurationReached = -11810
        /// Recording stopped at its maximum file size.
        case maximumFileSizeReached = -11811
        /// The media has a discontinuity.
        case mediaDiscontinuity = -11812
        /// The file format can hold no more samples.
        case maximumNumberOfSamplesForFileFormatReached = -11813
        /// Capture: the device is not connected.
        case deviceNotConnected = -11814
        /// Capture: another application uses the device.
        case deviceInUseByAnotherApplication = -11815
        /// Capture: another process has locked the device's configuration.
        case deviceLockedForConfigurationByAnotherProcess = -11817
        /// Capture: the session was interrupted.
        case sessionWasInterrupted = -11818
        /// The system's media services were reset.
        case mediaServicesWereReset = -11819
        /// An export failed, such as one with no file URL or file type to write, a directory that cannot be
        /// written, or an empty time range.
        case exportFailed = -11820
        /// Media could not be decoded, or a decoded picture had no pixels.
        case decodeFailed = -11821
        /// The source media is not valid for the operation.
        case invalidSourceMedia = -11822
        /// A file already exists at the output URL (an export never overwrites one).
        case fileAlreadyExists = -11823
        /// Composition track segments are not contiguous; Avocet also raises it for media inserted before zero.
        case compositionTrackSegmentsNotContiguous = -11824
        /// A composition track segment has an invalid duration.
        case invalidCompositionTrackSegmentDuration = -11825
        /// A composition track segment's source start time is invalid, or a range to insert starts before zero.
        case invalidCompositionTrackSegmentSourceStartTime = -11826
        /// A composition track segment's source duration is invalid, or a range to insert does not last a
        /// positive time.
        case invalidCompositionTrackSegmentSourceDuration = -11827
        /// The data is not in a format Avocet opens: not media at all, or a playlist or manifest where a
        /// media file was expected.
        case fileFormatNotRecognized = -11828
        /// The file is media but could not be read through, such as a truncated MP4.
        case fileFailedToParse = -11829
        /// Capture: too many still-image requests are outstanding.
        case maximumStillImageCaptureRequestsExceeded = -11830
        /// The content is protected (encrypted).
        case contentIsProtected = -11831
        /// An image generator has no picture at the time asked, within its tolerances.
        case noImageAtTime = -11832
        /// No decoder exists for the media's codec.
        case decoderNotFound = -11833
        /// No encoder exists for the requested codec.
        case encoderNotFound = -11834
        /// The user is not authorised to play the content.
        case contentIsNotAuthorized = -11835
        /// The application is not authorised to play the content.
        case applicationIsNotAuthorized = -11836
        /// Capture: the device is not available in the background.
        case deviceIsNotAvailableInBackground = -11837
        /// The operation does not apply to this asset, such as images from an asset with no video.
        case operationNotSupportedForAsset = -11838
        /// The decoder is temporarily unavailable.
        case decoderTemporarilyUnavailable = -11839
        /// The encoder is temporarily unavailable.
        case encoderTemporarilyUnavailable = -11840
        /// A video composition is not valid for the asset, or cannot be rendered.
        case invalidVideoComposition = -11841
        /// A reference to external media was refused by the asset's reference restrictions.
        case referenceForbiddenByReferencePolicy = -11842
        /// The output URL's path extension does not match the output file type.
        case invalidOutputURLPathExtension = -11843
        /// Capture: screen capture failed.
        case screenCaptureFailed = -11844
        /// Capture: the display was disabled.
        case displayWasDisabled = -11845
        /// Capture: the torch level is unavailable.
        case torchLevelUnavailable = -11846
        /// The operation was interrupted.
        case operationInterrupted = -11847
        /// An asset or track does not fit the operation, such as a track of another media type.
        case incompatibleAsset = -11848
        /// Media data could not be loaded: a missing or unreadable file, a failed read, a server or resource
        /// loader delegate that failed; the underlying error says which.
        case failedToLoadMediaData = -11849
        /// The server is not configured correctly for the request.
        case serverIncorrectlyConfigured = -11850
        /// Capture: the application may not use the device.
        case applicationIsNotAuthorizedToUseDevice = -11852
        /// Data could not be parsed.
        case failedToParse = -11853
        /// The file type cannot hold sample references.
        case fileTypeDoesNotSupportSampleReferences = -11854
        /// The media data cannot be decoded.
        case undecodableMediaData = -11855
        /// AirPlay: the controller needs an internet connection.
        case airPlayControllerRequiresInternet = -11856
        /// AirPlay: the receiver needs an internet connection.
        case airPlayReceiverRequiresInternet = -11857
        /// The video compositor failed to make a picture.
        case videoCompositorFailed = -11858
        /// Capture: a recording is already in progress.
        case recordingAlreadyInProgress = -11859
        /// The output settings are not supported.
        case unsupportedOutputSettings = -11861
        /// The operation is not allowed.
        case operationNotAllowed = -11862
        /// The content is not available.
        case contentIsUnavailable = -11863
        /// The format is not supported.
        case formatUnsupported = -11864
        /// The depth data is malformed.
        case malformedDepth = -11865
        /// The content was not updated.
        case contentNotUpdated = -11866
        /// The content can no longer be played.
        case noLongerPlayable = -11867
        /// No alternate of the content suits the external display.
        case noCompatibleAlternatesForExternalDisplay = -11868
        /// A composition segment or export names a track that has no media of its own, or that its asset lacks.
        case noSourceTrack = -11869
        /// The asset cannot be played externally.
        case externalPlaybackNotSupportedForAsset = -11870
        /// The export cannot be done with this preset: an HTTP Live Streaming asset, a file type Avocet cannot
        /// write, passthrough with a video composition or audio mix, or an asset without the media the preset needs.
        case operationNotSupportedForPreset = -11871
        /// Capture: the session exceeds the hardware's capacity.
        case sessionHardwareCostOverage = -11872
        /// Capture: the device's active format is not supported.
        case unsupportedDeviceActiveFormat = -11873
        /// An object is not configured correctly for the operation.
        case incorrectlyConfigured = -11875
        /// A segment started with a sample that is not a keyframe.
        case segmentStartedWithNonSyncSample = -11876
        /// Rosetta is not installed (Apple silicon Macs).
        case rosettaNotInstalled = -11877
        /// The operation was cancelled, such as by ``AVAsset/cancelLoading()``,
        /// ``AVAssetExportSession/cancelExport()`` or
        /// ``AVAssetImageGenerator/cancelAllCGImageGeneration()``.
        case operationCancelled = -11878
        /// The request was cancelled.
        case requestCancelled = -11879
        /// The sample cursor is not valid.
        case invalidSampleCursor = -11880
        /// Sample data could not be loaded.
        case failedToLoadSampleData = -11881
        /// AirPlay: the receiver is temporarily unavailable.
        case airPlayReceiverTemporarilyUnavailable = -11882
        /// Media could not be encoded.
        case encodeFailed = -11883
        /// The sandbox denied access.
        case sandboxExtensionDenied = -11884
        /// Tone mapping failed.
        case toneMappingFailed = -11885
        /// A media extension is disabled.
        case mediaExtensionDisabled = -11886
        /// Media extensions conflict.
        case mediaExtensionConflict = -11887
    }

    /// `"AVFoundationErrorDomain"`, Apple's domain.
    public static var errorDomain: String { "AVFoundationErrorDomain" }

    /// The error's code.
    public let code: Code
    /// The user info: `NSLocalizedDescriptionKey`, and where known the failure reason, the file path or
    /// URL, and the underlying error.
    public let errorUserInfo: [String: Any]

    /// An error with `code` and `userInfo`.
    ///
    /// - Parameters:
    ///   - code: Apple's code, such as ``Code-swift.enum/fileFormatNotRecognized``.
    ///   - userInfo: `NSLocalizedDescriptionKey` and the like; property-list values and `NSError`s only.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.errorUserInfo = userInfo
    }

    /// The AVError an `NSError` of AVFoundation's domain stands for (Linux has no automatic bridging);
    /// any other error becomes `.unknown` with it as the underlying error.
    init(bridging error: NSError) {
        if error.domain == AVError.errorDomain, let code = Code(rawValue: error.code) {
            self.init(code, userInfo: error.userInfo)
        } else {
            self.init(.unknown, userInfo: [NSLocalizedDescriptionKey: error.localizedDescription, NSUnderlyingErrorKey: error])
        }
    }

    /// The code's raw value, as `NSError.code` has it.
    public var errorCode: Int { code.rawValue }
    /// The same as ``errorUserInfo``.
    public var userInfo: [String: Any] { errorUserInfo }

    /// The message in `NSLocalizedDescriptionKey`, or one derived from the code.
    public var errorDescription: String? {
        errorUserInfo[NSLocalizedDescriptionKey] as? String ?? "The operation could not be completed (AVFoundationErrorDomain error \(code.rawValue))."
    }

    /// The reason in `NSLocalizedFailureReasonErrorKey`, such as FFmpeg's words; nil when absent.
    public var failureReason: String? { errorUserInfo[NSLocalizedFailureReasonErrorKey] as? String }

    /// The underlying error (FFmpeg's, or the file system's), when there is one.
    public var underlyingError: (any Error)? { errorUserInfo[NSUnderlyingErrorKey] as? NSError }

    /// Whether both have the same code and description.
    public static func == (lhs: AVError, rhs: AVError) -> Bool {
        lhs.code == rhs.code && lhs.errorDescription == rhs.errorDescription
    }

    /// Hashes the code and description, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(errorDescription)
    }

    /// The `Code.unknown` code, for `catch AVError.unknown`.
    public static var unknown: Code { .unknown }
    /// The `Code.outOfMemory` code, for `catch AVError.outOfMemory`.
    public static var outOfMemory: Code { .outOfMemory }
    /// The `Code.exportFailed` code, for `catch AVError.exportFailed`.
    public static var exportFailed: Code { .exportFailed }
    /// The `Code.decodeFailed` code, for `catch AVError.decodeFailed`.
    public static var decodeFailed: Code { .decodeFailed }
    /// The `Code.invalidSourceMedia` code, for `catch AVError.invalidSourceMedia`.
    public static var invalidSourceMedia: Code { .invalidSourceMedia }
    /// The `Code.fileAlreadyExists` code, for `catch AVError.fileAlreadyExists`.
    public static var fileAlreadyExists: Code { .fileAlreadyExists }
    /// The `Code.fileFormatNotRecognized` code, for `catch AVError.fileFormatNotRecognized`.
    public static var fileFormatNotRecognized: Code { .fileFormatNotRecognized }
    /// The `Code.fileFailedToParse` code, for `catch AVError.fileFailedToParse`.
    public static var fileFailedToParse: Code { .fileFailedToParse }
    /// The `Code.contentIsProtected` code, for `catch AVError.contentIsProtected`.
    public static var contentIsProtected: Code { .contentIsProtected }
    /// The `Code.noImageAtTime` code, for `catch AVError.noImageAtTime`.
    public static var noImageAtTime: Code { .noImageAtTime }
    /// The `Code.decoderNotFound` code, for `catch AVError.decoderNotFound`.
    public static var decoderNotFound: Code { .decoderNotFound }
    /// The `Code.encoderNotFound` code, for `catch AVError.encoderNotFound`.
    public static var encoderNotFound: Code { .encoderNotFound }
    /// The `Code.operationNotSupportedForAsset` code, for `catch AVError.operationNotSupportedForAsset`.
    public static var operationNotSupportedForAsset: Code { .operationNotSupportedForAsset }
    /// The `Code.operationInterrupted` code, for `catch AVError.operationInterrupted`.
    public static var operationInterrupted: Code { .operationInterrupted }
    /// The `Code.incompatibleAsset` code, for `catch AVError.incompatibleAsset`.
    public static var incompatibleAsset: Code { .incompatibleAsset }
    /// The `Code.failedToLoadMediaData` code, for `catch AVError.failedToLoadMediaData`.
    public static var failedToLoadMediaData: Code { .failedToLoadMediaData }
    /// The `Code.failedToParse` code, for `catch AVError.failedToParse`.
    public static var failedToParse: Code { .failedToParse }
    /// The `Code.undecodableMediaData` code, for `catch AVError.undecodableMediaData`.
    public static var undecodableMediaData: Code { .undecodableMediaData }
    /// The `Code.formatUnsupported` code, for `catch AVError.formatUnsupported`.
    public static var formatUnsupported: Code { .formatUnsupported }
    /// The `Code.noSourceTrack` code, for `catch AVError.noSourceTrack`.
    public static var noSourceTrack: Code { .noSourceTrack }
    /// The `Code.operationCancelled` code, for `catch AVError.operationCancelled`.
    public static var operationCancelled: Code { .operationCancelled }
    /// The `Code.failedToLoadSampleData` code, for `catch AVError.failedToLoadSampleData`.
    public static var failedToLoadSampleData: Code { .failedToLoadSampleData }
    /// The `Code.encodeFailed` code, for `catch AVError.encodeFailed`.
    public static var encodeFailed: Code { .encodeFailed }
}

extension AVError.Code {
    /// Matches an error against a code in `catch AVError.fileFormatNotRecognized` and `case` patterns.
    ///
    /// - Parameters:
    ///   - code: The code to match.
    ///   - error: Any error.
    /// - Returns: True when `error` is an ``AVError`` with `code`; false for any other error.
    public static func ~= (code: AVError.Code, error: any Error) -> Bool {
        (error as? AVError)?.code == code
    }
}
