import Foundation
import NIOCore
import NIOFileSystem
import NIOPosix
import Synchronization

/// Keeps uploaded files on disk, one per upload, and finds them again by their upload id.
///
/// `receive` streams a request body to a new file as the bytes arrive, through NIO's file system
/// (`NIOFileSystem`, whose blocking system calls run on NIO's own thread pool, never on Swift's
/// cooperative pool); memory holds one write buffer per upload, never the file. The file is created
/// transactionally: it appears under its name only once complete, so a refused or broken upload leaves
/// nothing behind. The index is in memory, behind a `Mutex`: at most `maxStoredUploads` uploads are
/// kept (the oldest goes first) and none longer than `uploadLifetime`.
public final class UploadStore: Sendable {
    /// One stored upload.
    public struct Upload: Sendable {
        public let id: String
        public let path: String
        public let size: Int64
        let created: Date
    }

    /// Why an upload was refused.
    enum Refusal: Error {
        case tooLarge(limit: Int64)
    }

    /// The file name suffix of stored uploads.
    static let suffix = ".upload"

    let directory: URL
    private let maxBytes: Int64
    private let maxStored: Int
    private let lifetime: TimeInterval
    /// Uploads by id, and their ids oldest first.
    private let index = Mutex<(byID: [String: Upload], order: [String])>(([:], []))

    /// Whether other instances share the directory: an upload received by another is found by its
    /// file, and a start leaves the files it finds.
    private let shared: Bool

    init(directory: URL, maxBytes: Int64, maxStored: Int, lifetime: TimeInterval, shared: Bool = false) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.maxStored = max(1, maxStored)
        self.lifetime = lifetime
        self.shared = shared
    }

    /// Creates the directory and, unless it is shared, removes upload files an earlier run left (only
    /// files named as uploads are touched). Blocking file system calls: run once, at start.
    func prepare() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if shared { return }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for name in names where name.hasSuffix(Self.suffix) && UUID(uuidString: String(name.dropLast(Self.suffix.count))) != nil {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// Writes `body` to a new upload file as it arrives and records it.
    ///
    /// Throws `Refusal.tooLarge` as soon as more than the limit has arrived (or at once when
    /// `declaredLength` already says so), without reading further; the partial file is dropped.
    func receive<Body: AsyncSequence>(_ body: Body, declaredLength: Int64?) async throws -> Upload where Body.Element == ByteBuffer {
        if let declaredLength, declaredLength > maxBytes { throw Refusal.tooLarge(limit: maxBytes) }
        let id = UUID().uuidString.lowercased()
        let path = directory.appendingPathComponent(id + Self.suffix).path
        let limit = maxBytes
        var total: Int64 = 0
        let shared = self.shared
        try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(path), options: .newFile(replaceExisting: false)) { handle in
            try await handle.withBufferedWriter(capacity: .kibibytes(256)) { writer in
                for try await buffer in body {
                    total += Int64(buffer.readableBytes)
                    if total > limit { throw Refusal.tooLarge(limit: limit) }
                    _ = try await writer.write(contentsOf: buffer)
                }
            }
            // In a shared directory other instances may read it as soon as it has its name: its bytes
            // reach the disk (fsync) before the name appears.
            if shared { try await handle.synchronize() }
        }
        let upload = Upload(id: id, path: path, size: total, created: Date())
        let expired = index.withLock { index -> [Upload] in
            index.byID[id] = upload
            index.order.append(id)
            return Self.evict(&index, keeping: maxStored, olderThan: Date().addingTimeInterval(-lifetime))
        }
        await Self.remove(expired)
        return upload
    }

    /// The upload with this id, if it is still kept. In a shared directory, an upload another
    /// instance received is found by its file (one `stat`), younger than the lifetime.
    func upload(id: String) -> Upload? {
        let id = id.lowercased()
        let known = index.withLock { index -> Upload? in
            guard let upload = index.byID[id] else { return nil }
            return upload.created.timeIntervalSinceNow < -lifetime ? nil : upload
        }
        if let known { return known }
        guard shared, UUID(uuidString: id) != nil else { return nil }
        let path = directory.appendingPathComponent(id + Self.suffix).path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let modified = attributes[.modificationDate] as? Date, modified.timeIntervalSinceNow >= -lifetime,
              let size = (attributes[.size] as? NSNumber)?.int64Value else { return nil }
        return Upload(id: id, path: path, size: size, created: modified)
    }

    /// Forgets an upload and removes its file; false when there was none.
    /// In a shared directory, an upload another instance stored is removed by its file.
    func remove(id: String) async -> Bool {
        let indexed = index.withLock { index -> Upload? in
            guard let upload = index.byID.removeValue(forKey: id.lowercased()) else { return nil }
            index.order.removeAll { $0 == upload.id }
            return upload
        }
        let found: Upload?
        if let indexed {
            found = indexed
        } else if shared {
            found = try? await NIOThreadPool.singleton.runIfActive { [self] in upload(id: id) }
        } else {
            found = nil
        }
        guard let removed = found else { return false }
        await Self.remove([removed])
        return true
    }

    /// Removes the upload files in the directory older than the lifetime, whoever stored them: the
    /// expiry of a shared directory, where no instance's index knows every upload (run by the job
    /// worker's housekeeping). Only files named as uploads are touched. Blocking file-system calls:
    /// run it on NIO's thread pool. How many were removed.
    func removeExpiredFiles() throws -> Int {
        let fm = FileManager.default
        let limit = Date().addingTimeInterval(-lifetime)
        var removed = 0
        for name in try fm.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(Self.suffix) && UUID(uuidString: String(name.dropLast(Self.suffix.count))) != nil {
            let path = directory.appendingPathComponent(name).path
            guard let modified = (try? fm.attributesOfItem(atPath: path))?[.modificationDate] as? Date, modified < limit else { continue }
            if (try? fm.removeItem(atPath: path)) != nil { removed += 1 }
        }
        index.withLock { index in
            _ = Self.evict(&index, keeping: maxStored, olderThan: limit)
        }
        return removed
    }

    // MARK: - Pins (a shared directory)

    /// The suffix of a pin: `<job id>.pin`, a hard link to the upload a queued job reads.
    static let pinSuffix = ".pin"

    private func pinPath(for job: UUID) -> String {
        directory.appendingPathComponent(job.uuidString.lowercased() + Self.pinSuffix).path
    }

    /// Pins the upload at `path` for `job` (a hard link: the bytes stay while the pin does, whatever
    /// removes the upload). A pin that cannot be made is skipped: the job then reads the upload itself.
    func pin(_ path: String, for job: UUID) async {
        let pin = pinPath(for: job)
        _ = try? await NIOThreadPool.singleton.runIfActive { Foundation.link(path, pin) }
    }

    /// The job's pinned upload, if it has one.
    func pinned(for job: UUID) async -> String? {
        let pin = pinPath(for: job)
        let exists = (try? await NIOThreadPool.singleton.runIfActive { FileManager.default.fileExists(atPath: pin) }) ?? false
        return exists ? pin : nil
    }

    /// Removes the job's pin, if any.
    func unpin(_ job: UUID) async {
        let pin = pinPath(for: job)
        _ = try? await NIOThreadPool.singleton.runIfActive { try FileManager.default.removeItem(atPath: pin) }
    }

    /// The jobs that have pins here (blocking: on NIO's thread pool).
    func pinnedJobs() throws -> [UUID] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).compactMap { name in
            name.hasSuffix(Self.pinSuffix) ? UUID(uuidString: String(name.dropLast(Self.pinSuffix.count))) : nil
        }
    }

    /// How many uploads are kept.
    var count: Int { index.withLock { $0.order.count } }

    /// Takes the uploads past the count limit or older than `date` out of the index (called inside its lock).
    private static func evict(_ index: inout (byID: [String: Upload], order: [String]), keeping limit: Int, olderThan date: Date) -> [Upload] {
        var gone: [Upload] = []
        while let first = index.order.first, let upload = index.byID[first], index.order.count > limit || upload.created < date {
            index.order.removeFirst()
            index.byID[first] = nil
            gone.append(upload)
        }
        return gone
    }

    /// Removes the files of forgotten uploads (through NIO's thread pool). An asset already reading
    /// one keeps its open file until done.
    private static func remove(_ uploads: [Upload]) async {
        for upload in uploads {
            _ = try? await FileSystem.shared.removeItem(at: FilePath(upload.path))
        }
    }
}
