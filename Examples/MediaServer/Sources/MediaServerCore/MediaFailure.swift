import AVFoundation
import Foundation

/// Turns what Avocet throws into the answer for the client: the status and the AVError's message,
/// with server paths replaced by the names the client used.
///
/// Bad media (not media, truncated, unsupported, no picture at the time, no video) is 422; a remote
/// source that could not be read is 502; one the URL policy refused (an address or redirect the server
/// does not reach) is 403; cancellation by the server's deadline is 504.
enum MediaFailure {
    static func apiError(_ error: any Error, source: MediaSource) -> APIError {
        if let api = error as? APIError { return api }
        if error is CancellationError {
            return APIError(.gatewayTimeout, "The work on \(source.displayName) was cancelled: it took longer than the server allows.")
        }
        guard let av = error as? AVError else {
            return APIError(.internalServerError, "The work on \(source.displayName) failed: \(sanitize(String(describing: error), source: source))")
        }
        let message = sanitize(av.localizedDescription, source: source)
        switch av.code {
        case .operationCancelled, .requestCancelled:
            return APIError(.gatewayTimeout, message)
        case .outOfMemory:
            return APIError(.serviceUnavailable, message)
        case .referenceForbiddenByReferencePolicy:
            // The URL policy refused a connection: the host, an address it resolves to, or a redirect.
            return APIError(.forbidden, message)
        case .failedToLoadMediaData where source.kind == .remote:
            return APIError(.badGateway, message)
        default:
            return APIError(.unprocessableContent, message)
        }
    }

    /// The message with the server's own paths (an upload's file, the media directory) replaced by
    /// the source's name.
    static func sanitize(_ message: String, source: MediaSource) -> String {
        guard source.url.isFileURL else { return message }
        return message.replacingOccurrences(of: source.url.path, with: source.displayName)
    }
}
