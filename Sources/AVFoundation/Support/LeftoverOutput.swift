import Foundation

/// What a failed or cancelled write leaves behind.
enum LeftoverOutput {
    /// Removes the half-written file at `path` (the link, for a symbolic link to one), when it is a
    /// regular file: a device, pipe or directory an output was pointed at (`/dev/null`, a FIFO) stays
    /// as it was. Costs a `stat` and an `unlink` on the calling thread.
    static func remove(atPath path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}
