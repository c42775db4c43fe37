import Foundation

/// What went wrong inside the engine, in plain Swift: which operation, on which source, and FFmpeg's
/// reason when FFmpeg gave one. AVFoundation maps `code` onto `AVError.Code`.
package struct MediaEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Code: String, Sendable, Equatable {
        case fileNotFound
        case permissionDenied
        case notAFile
        case notMedia
        case truncated
        case readFailed
        case unsupported
        case cancelled
        case invalidArgument
        case outOfMemory
        /// The codec could not decode the media data (damaged or not what the header says).
        case decodeFailed
        /// The stream has no picture at the time asked for, within the tolerances given.
        case noFrameAtTime
        /// A rule of the caller's refused the operation (an asset's URL policy refusing a connection).
        case refused
        case failed
    }

    package var code: Code
    /// The file path or URL the operation was about.
    package var source: String
    /// What the engine was doing ("open", "read stream information", ...).
    package var operation: String
    /// A sentence for people: what failed and why.
    package var reason: String
    /// FFmpeg's error code, when the failure came from FFmpeg.
    package var ffmpegCode: Int32?
    /// The error that caused this one outside the engine: a resource loader delegate's, an HTTP
    /// client's. AVFoundation gives it as the underlying error.
    package var underlying: NSError?

    package init(_ code: Code, source: String, operation: String, reason: String, ffmpegCode: Int32? = nil,
                 underlying: NSError? = nil) {
        self.code = code
        self.source = source
        self.operation = operation
        self.reason = reason
        self.ffmpegCode = ffmpegCode
        self.underlying = underlying
    }

    /// One line naming the source: `<source>: cannot <operation>: <reason>`.
    package var description: String { "\(source): cannot \(operation): \(reason)" }
}
