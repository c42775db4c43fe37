import Foundation
internal import MediaEngine

/// The errors AVFAudio's classes throw, as Apple's do: an `NSError` whose code is Core Audio's
/// `OSStatus` for the failure, in Apple's AVFAudio domain (audio files, the converter) or
/// `NSOSStatusErrorDomain` (the audio player's initializers), with a sentence for people and, where
/// the engine failed, its reason.
enum AudioError {
    /// Apple's domain for AVAudioFile and AVAudioConverter errors (Apple publishes no constant for it).
    static let domain = "com.apple.coreaudio.avfaudio"

    /// `kAudio_FileNotFoundError`: no such file, or a file that was closed.
    static let fileNotFound: OSStatus = -43
    /// `kAudio_FilePermissionError`.
    static let permission: OSStatus = -54
    /// `kAudio_ParamError`: an argument Apple's checks refuse (a buffer of another format, no room).
    static let parameter: OSStatus = -50
    /// `kAudioFileInvalidFileError` ('dta?'): the bytes are not a readable audio file, or are damaged.
    static let invalidFile: OSStatus = 1_685_348_671
    /// `kAudioFileUnsupportedFileTypeError` ('typ?'): a file type that cannot be read or written.
    static let unsupportedFileType: OSStatus = 1_954_115_647
    /// `kAudioFileUnsupportedDataFormatError` ('fmt?'): a data format the file type or codec lacks.
    static let unsupportedDataFormat: OSStatus = 1_718_449_215
    /// `kAudioFileEndOfFileError` ('eof '): reading past the end where the request needs more.
    static let endOfFile: OSStatus = -39
    /// `kAudioConverterErr_FormatNotSupported` ('fmt?'): a conversion the converter cannot make.
    static let formatNotSupported: OSStatus = 1_718_449_215
    /// `kAudioFileOperationNotSupportedError` ('op??'): an operation the file's mode does not allow
    /// (writing to a file opened for reading).
    static let operationNotSupported: OSStatus = 1_869_627_199

    /// An error of `status`: `reason` for people, and what was called, as Apple's "failed call" key.
    static func make(_ status: OSStatus, _ reason: String, failedCall: String? = nil, domain: String = AudioError.domain) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: reason]
        if let failedCall { info["failed call"] = failedCall }
        return NSError(domain: domain, code: Int(status), userInfo: info)
    }

    /// The error for an engine failure while doing `call` (`ExtAudioFileOpenURL`, ...): the engine's
    /// code mapped onto Core Audio's (a missing file is -43, garbage 'dta?', an unknown codec 'fmt?').
    static func make(_ error: any Error, failedCall: String, domain: String = AudioError.domain) -> NSError {
        guard let engine = error as? MediaEngineError else {
            if let ns = error as NSError?, ns.domain == domain { return ns }
            return make(invalidFile, "\(error)", failedCall: failedCall, domain: domain)
        }
        let status: OSStatus
        switch engine.code {
        case .fileNotFound, .notAFile: status = fileNotFound
        case .permissionDenied: status = permission
        case .notMedia, .truncated, .decodeFailed, .readFailed, .failed, .noFrameAtTime: status = invalidFile
        case .unsupported: status = unsupportedDataFormat
        case .invalidArgument, .refused: status = parameter
        case .cancelled: status = -128  // userCanceledErr
        case .outOfMemory: status = -108  // memFullErr
        }
        return make(status, engine.description, failedCall: failedCall, domain: domain)
    }
}
