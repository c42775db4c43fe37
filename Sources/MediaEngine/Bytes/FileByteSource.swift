import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A local file read with positional reads (`pread`): no shared file offset, no cache of our own.
///
/// Opening checks that the path names a readable regular file, so a missing file, a directory or an
/// unreadable file fails at once with a clear error, before FFmpeg sees it.
package final class FileByteSource: ByteSource {
    package let name: String
    private let descriptor: Int32
    private let length: Int64

    /// Opens `path` for reading. Blocking (one `open` and one `fstat`); call it on an engine thread.
    package init(path: String) throws {
        name = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let err = errno
            let code: MediaEngineError.Code
            switch err {
            case ENOENT, ENOTDIR: code = .fileNotFound
            case EACCES, EPERM: code = .permissionDenied
            case EISDIR: code = .notAFile
            default: code = .readFailed
            }
            let reason = code == .fileNotFound ? "no such file" : String(cString: strerror(err))
            throw MediaEngineError(code, source: path, operation: "open", reason: reason)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let err = errno
            close(fd)
            throw MediaEngineError(.readFailed, source: path, operation: "open", reason: String(cString: strerror(err)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            let what = (info.st_mode & S_IFMT) == S_IFDIR ? "it is a directory" : "it is not a regular file"
            throw MediaEngineError(.notAFile, source: path, operation: "open", reason: what)
        }
        descriptor = fd
        length = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    package func size(cancellation: CancellationToken) throws -> Int64? { length }

    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
        if cancellation.isCancelled {
            throw MediaEngineError(.cancelled, source: name, operation: "read", reason: "the operation was cancelled")
        }
        while true {
            let n = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if n >= 0 {
                // A regular file reads short only at its end: short of the length it had when opened,
                // it shrank while being read (overwritten or truncated), and what follows is not media.
                if n < buffer.count && offset.addingSaturating(Int64(n)) < length {
                    throw MediaEngineError(.truncated, source: name, operation: "read",
                                           reason: "the file shrank while it was being read (it had \(length) bytes; it now ends at \(offset.addingSaturating(Int64(n))))")
                }
                return n
            }
            if errno == EINTR { continue }
            throw MediaEngineError(.readFailed, source: name, operation: "read", reason: String(cString: strerror(errno)))
        }
    }
}
