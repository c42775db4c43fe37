internal import CFFmpeg
import Foundation

/// Captures FFmpeg's messages during Avocet's own operations, per thread, so an error can carry
/// FFmpeg's words ("moov atom not found") instead of them going to stderr.
///
/// Messages logged outside an Avocet operation (a host application's own FFmpeg use) go to FFmpeg's
/// default callback under the host's log level: Avocet never changes the process-wide level. Messages
/// from Avocet's operations are kept quiet unless `AVOCET_FFMPEG_LOG=1` is set. (A host that installs
/// its own FFmpeg log callback replaces this one; errors then lose FFmpeg's words, nothing else.)
enum FFmpegLog {
    private static let errorKey = "avocet.ffmpeg.lastError"
    private static let captureKey = "avocet.ffmpeg.capturing"
    static let verbose = ProcessInfo.processInfo.environment["AVOCET_FFMPEG_LOG"] == "1"

    static let installed: Void = {
        avocet_install_log_sink(avocetLogSink)
    }()

    /// Runs `body` with FFmpeg's messages on this thread captured (and the last error forgotten first).
    static func capturing<T>(_ body: () throws -> T) rethrows -> T {
        _ = installed
        let dictionary = Thread.current.threadDictionary
        let outer = dictionary[captureKey] != nil
        if !outer {
            dictionary.removeObject(forKey: errorKey)
            dictionary[captureKey] = true
        }
        defer { if !outer { dictionary.removeObject(forKey: captureKey) } }
        return try body()
    }

    /// The last error-level message FFmpeg logged on the calling thread in the current capture.
    static var lastError: String? {
        Thread.current.threadDictionary[errorKey] as? String
    }

    /// Takes a message when this thread is inside an Avocet operation; returns false to let FFmpeg's
    /// default callback print it.
    fileprivate static func record(_ level: Int32, _ message: String) -> Bool {
        let dictionary = Thread.current.threadDictionary
        guard dictionary[captureKey] != nil else { return false }
        if level <= AV_LOG_ERROR {
            let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { dictionary[errorKey] = trimmed }
        }
        if verbose && level <= AV_LOG_VERBOSE {
            FileHandle.standardError.write(Data(message.utf8))
        }
        return true
    }
}

private let avocetLogSink: @convention(c) (Int32, UnsafePointer<CChar>?) -> Int32 = { level, message in
    guard let message else { return 1 }
    return FFmpegLog.record(level, String(cString: message)) ? 1 : 0
}
