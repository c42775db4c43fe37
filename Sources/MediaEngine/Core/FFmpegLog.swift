internal import CAvocetLog
internal import CFFmpeg
import Foundation

/// Captures FFmpeg's error messages during Avocet's own operations, per thread, so an error can carry
/// FFmpeg's words ("moov atom not found") instead of them going to stderr.
///
/// Messages logged by FFmpeg's own threads working on Avocet's codec contexts (see `codecContext(for:)`) count as
/// Avocet's. Messages logged outside an Avocet operation (a host application's own FFmpeg use) go to FFmpeg's
/// default callback under the host's log level: Avocet never changes the process-wide level. Messages
/// from Avocet's operations are kept quiet unless `AVOCET_FFMPEG_LOG=1` is set. The filtering is done
/// in C before any message is formatted, so FFmpeg's many trace messages cost next to nothing. (A host
/// that installs its own FFmpeg log callback replaces this one; errors then lose FFmpeg's words.)
enum FFmpegLog {
    static let installed: Void = {
        avocet_install_log_callback(ProcessInfo.processInfo.environment["AVOCET_FFMPEG_LOG"] == "1" ? 1 : 0)
    }()

    /// Runs `body` with FFmpeg's messages on this thread captured (and the last error forgotten first).
    static func capturing<T>(_ body: () throws -> T) rethrows -> T {
        _ = installed
        let outer = avocet_log_capture_begin()
        defer { avocet_log_capture_end(outer) }
        return try body()
    }

    /// A new codec context for `codec` (nil when out of memory), marked as Avocet's so that what
    /// FFmpeg's own threads log while working on it (a frame-threaded decoder's "Invalid NAL unit
    /// size", an encoder's notes) stays as quiet as the rest of Avocet's messages. The mark takes the
    /// context's `opaque` field, which nothing else uses. Every codec context Avocet makes comes from here.
    static func codecContext(for codec: UnsafePointer<AVCodec>) -> UnsafeMutablePointer<AVCodecContext>? {
        _ = installed
        let context = avcodec_alloc_context3(codec)
        context?.pointee.opaque = avocet_log_codec_tag()
        return context
    }

    /// The last error-level message FFmpeg logged on the calling thread in the current capture.
    static var lastError: String? {
        var buffer = [CChar](repeating: 0, count: 512)
        avocet_log_copy_last_error(&buffer, Int32(buffer.count))
        let text = string(fromNullTerminated: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
