internal import MediaEngine
import Foundation

/// The domain of the underlying errors that carry FFmpeg's error codes (Avocet's).
public let AVErrorFFmpegDomain = "org.ffmpeg.error"

extension AVError {
    /// The AVError for an engine failure: Apple's nearest code, the one-line message naming the file as
    /// `NSLocalizedDescriptionKey`, the reason, the path, and FFmpeg's code as the underlying error.
    init(engineError e: MediaEngineError) {
        var code: Code
        var underlying: NSError?
        switch e.code {
        case .fileNotFound:
            code = .failedToLoadMediaData
            underlying = NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileReadNoSuchFile.rawValue)
        case .permissionDenied:
            code = .failedToLoadMediaData
            underlying = NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileReadNoPermission.rawValue)
        case .notAFile, .readFailed: code = .failedToLoadMediaData
        case .notMedia: code = .fileFormatNotRecognized
        case .truncated: code = .fileFailedToParse
        case .unsupported: code = .decoderNotFound
        case .cancelled: code = .operationCancelled
        case .outOfMemory: code = .outOfMemory
        case .decodeFailed: code = .decodeFailed
        case .noFrameAtTime: code = .noImageAtTime
        case .refused: code = .referenceForbiddenByReferencePolicy
        case .invalidArgument, .failed: code = .unknown
        }
        // A write refused for want of room (a full disk, a file-size limit): Apple's disk-full code.
        if let rc = e.ffmpegCode, rc == -ENOSPC || rc == -EFBIG || rc == -EDQUOT { code = .diskFull }
        if let cause = e.underlying { underlying = cause }
        if underlying == nil, let ffmpeg = e.ffmpegCode {
            underlying = NSError(domain: AVErrorFFmpegDomain, code: Int(ffmpeg),
                                 userInfo: [NSLocalizedDescriptionKey: e.reason])
        }
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: e.description,
            NSLocalizedFailureReasonErrorKey: e.reason,
        ]
        if e.source.hasPrefix("/") { info[NSFilePathErrorKey] = e.source } else if let url = URL(string: e.source), url.scheme != nil {
            info[NSURLErrorKey] = url
        }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        self.init(code, userInfo: info)
    }
}

extension AVError {
    /// `error` as callers of the public API see it: an engine failure becomes its AVError; any other
    /// error (already an AVError, a cancellation) is returned as it is.
    static func converting(_ error: any Error) -> any Error {
        (error as? MediaEngineError).map { AVError(engineError: $0) } ?? error
    }

    /// Runs `body`, turning an engine failure into its AVError. The one place the public API crosses
    /// into MediaEngine's errors.
    static func converting<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw converting(error) }
    }

    static func converting<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw converting(error) }
    }
}
