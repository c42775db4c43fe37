import Foundation

/// An AVFoundation error: Apple's domain (`AVFoundationErrorDomain`), codes and raw values.
///
/// Bridges to `NSError` (`error as NSError` keeps domain, code and user info). Catch by code with
/// `catch AVError.fileFormatNotRecognized` or `catch let error as AVError` and `error.code`.
/// Avocet's messages name the file, the operation and FFmpeg's reason.
public struct AVError: CustomNSError, LocalizedError, Hashable, @unchecked Sendable {
    // @unchecked Sendable: userInfo holds property-list values and NSErrors only, never mutated after init.
    public enum Code: Int, Sendable {
        case unknown = -11800
        case outOfMemory = -11801
        case sessionNotRunning = -11803
        case deviceAlreadyUsedByAnotherSession = -11804
        case noDataCaptured = -11805
        case sessionConfigurationChanged = -11806
        case diskFull = -11807
        case deviceWasDisconnected = -11808
        case mediaChanged = -11809
        case maximumDurationReached = -11810
        case maximumFileSizeReached = -11811
        case mediaDiscontinuity = -11812
        case maximumNumberOfSamplesForFileFormatReached = -11813
        case deviceNotConnected = -11814
        case deviceInUseByAnotherApplication = -11815
        case deviceLockedForConfigurationByAnotherProcess = -11817
        case sessionWasInterrupted = -11818
        case mediaServicesWereReset = -11819
        case exportFailed = -11820
        case decodeFailed = -11821
        case invalidSourceMedia = -11822
        case fileAlreadyExists = -11823
        case compositionTrackSegmentsNotContiguous = -11824
        case invalidCompositionTrackSegmentDuration = -11825
        case invalidCompositionTrackSegmentSourceStartTime = -11826
        case invalidCompositionTrackSegmentSourceDuration = -11827
        case fileFormatNotRecognized = -11828
        case fileFailedToParse = -11829
        case maximumStillImageCaptureRequestsExceeded = -11830
        case contentIsProtected = -11831
        case noImageAtTime = -11832
        case decoderNotFound = -11833
        case encoderNotFound = -11834
        case contentIsNotAuthorized = -11835
        case applicationIsNotAuthorized = -11836
        case deviceIsNotAvailableInBackground = -11837
        case operationNotSupportedForAsset = -11838
        case decoderTemporarilyUnavailable = -11839
        case encoderTemporarilyUnavailable = -11840
        case invalidVideoComposition = -11841
        case referenceForbiddenByReferencePolicy = -11842
        case invalidOutputURLPathExtension = -11843
        case screenCaptureFailed = -11844
        case displayWasDisabled = -11845
        case torchLevelUnavailable = -11846
        case operationInterrupted = -11847
        case incompatibleAsset = -11848
        case failedToLoadMediaData = -11849
        case serverIncorrectlyConfigured = -11850
        case applicationIsNotAuthorizedToUseDevice = -11852
        case failedToParse = -11853
        case fileTypeDoesNotSupportSampleReferences = -11854
        case undecodableMediaData = -11855
        case airPlayControllerRequiresInternet = -11856
        case airPlayReceiverRequiresInternet = -11857
        case videoCompositorFailed = -11858
        case recordingAlreadyInProgress = -11859
        case unsupportedOutputSettings = -11861
        case operationNotAllowed = -11862
        case contentIsUnavailable = -11863
        case formatUnsupported = -11864
        case malformedDepth = -11865
        case contentNotUpdated = -11866
        case noLongerPlayable = -11867
        case noCompatibleAlternatesForExternalDisplay = -11868
        case noSourceTrack = -11869
        case externalPlaybackNotSupportedForAsset = -11870
        case operationNotSupportedForPreset = -11871
        case sessionHardwareCostOverage = -11872
        case unsupportedDeviceActiveFormat = -11873
        case incorrectlyConfigured = -11875
        case segmentStartedWithNonSyncSample = -11876
        case rosettaNotInstalled = -11877
        case operationCancelled = -11878
        case requestCancelled = -11879
        case invalidSampleCursor = -11880
        case failedToLoadSampleData = -11881
        case airPlayReceiverTemporarilyUnavailable = -11882
        case encodeFailed = -11883
        case sandboxExtensionDenied = -11884
        case toneMappingFailed = -11885
        case mediaExtensionDisabled = -11886
        case mediaExtensionConflict = -11887
    }

    public static var errorDomain: String { "AVFoundationErrorDomain" }

    public let code: Code
    public let errorUserInfo: [String: Any]

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

    public var errorCode: Int { code.rawValue }
    public var userInfo: [String: Any] { errorUserInfo }

    /// The message in `NSLocalizedDescriptionKey`, or one derived from the code.
    public var errorDescription: String? {
        errorUserInfo[NSLocalizedDescriptionKey] as? String ?? "The operation could not be completed (AVFoundationErrorDomain error \(code.rawValue))."
    }

    public var failureReason: String? { errorUserInfo[NSLocalizedFailureReasonErrorKey] as? String }

    /// The underlying error (FFmpeg's, or the file system's), when there is one.
    public var underlyingError: (any Error)? { errorUserInfo[NSUnderlyingErrorKey] as? NSError }

    public static func == (lhs: AVError, rhs: AVError) -> Bool {
        lhs.code == rhs.code && lhs.errorDescription == rhs.errorDescription
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(errorDescription)
    }

    public static var unknown: Code { .unknown }
    public static var outOfMemory: Code { .outOfMemory }
    public static var exportFailed: Code { .exportFailed }
    public static var decodeFailed: Code { .decodeFailed }
    public static var invalidSourceMedia: Code { .invalidSourceMedia }
    public static var fileAlreadyExists: Code { .fileAlreadyExists }
    public static var fileFormatNotRecognized: Code { .fileFormatNotRecognized }
    public static var fileFailedToParse: Code { .fileFailedToParse }
    public static var contentIsProtected: Code { .contentIsProtected }
    public static var noImageAtTime: Code { .noImageAtTime }
    public static var decoderNotFound: Code { .decoderNotFound }
    public static var encoderNotFound: Code { .encoderNotFound }
    public static var operationNotSupportedForAsset: Code { .operationNotSupportedForAsset }
    public static var operationInterrupted: Code { .operationInterrupted }
    public static var incompatibleAsset: Code { .incompatibleAsset }
    public static var failedToLoadMediaData: Code { .failedToLoadMediaData }
    public static var failedToParse: Code { .failedToParse }
    public static var undecodableMediaData: Code { .undecodableMediaData }
    public static var formatUnsupported: Code { .formatUnsupported }
    public static var noSourceTrack: Code { .noSourceTrack }
    public static var operationCancelled: Code { .operationCancelled }
    public static var failedToLoadSampleData: Code { .failedToLoadSampleData }
    public static var encodeFailed: Code { .encodeFailed }
}

extension AVError.Code {
    /// Matches an error against a code in `catch AVError.fileFormatNotRecognized` and `case` patterns.
    public static func ~= (code: AVError.Code, error: any Error) -> Bool {
        (error as? AVError)?.code == code
    }
}
