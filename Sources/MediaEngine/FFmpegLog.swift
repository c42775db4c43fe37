internal import CFFmpeg
import Foundation

/// Captures FFmpeg's error messages per thread, so an error can carry FFmpeg's own words
/// ("moov atom not found") instead of them going to stderr.
enum FFmpegLog {
    private static let key = "avocet.ffmpeg.lastError"

    static let installed: Void = {
        _ = FFmpeg.configured
        avocet_install_log_sink(avocetLogSink)
    }()

    /// Forgets the calling thread's last message; call before an operation.
    static func reset() {
        _ = installed
        Thread.current.threadDictionary.removeObject(forKey: key)
    }

    /// The last error-level message FFmpeg logged on the calling thread since `reset()`.
    static var lastError: String? {
        Thread.current.threadDictionary[key] as? String
    }

    fileprivate static func record(_ level: Int32, _ message: String) {
        if level <= AV_LOG_ERROR {
            let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { Thread.current.threadDictionary[key] = trimmed }
        }
        if av_log_get_level() >= level {
            FileHandle.standardError.write(Data(message.utf8))
        }
    }
}

private let avocetLogSink: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, message in
    guard let message else { return }
    FFmpegLog.record(level, String(cString: message))
}
