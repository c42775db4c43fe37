import AVFoundation
import Foundation

/// What a background job runs: an `AVAssetExportSession`'s export (`ExportWork`) or an HLS packaging
/// (`HLSPackager`). `ExportJob` runs either the same way: in a task of its own, with its time limit,
/// its cancellation, and its report.
protocol JobWork: Sendable {
    /// What the job's report names it by: the preset, and the output's file type (its extension).
    var preset: String { get }
    var fileType: String { get }
    /// From 0 to 1; never goes back.
    var progress: Double { get }
    /// Writes the output at `url` (a file, or a directory for HLS). Throws `CancellationError` once
    /// `cancel()` stopped it or its task was cancelled; another error when the media failed.
    func run(to url: URL) async throws
    /// Stops the work soon (from any thread); `run` then throws.
    func cancel()
}

/// An export through `AVAssetExportSession` (the session reads, encodes and writes on Avocet's engine
/// threads; `run` only awaits).
struct ExportWork: JobWork {
    let session: AVAssetExportSession
    let request: ExportRequest

    var preset: String { request.preset }
    var fileType: String { request.fileExtension }
    var progress: Double { Double(min(max(session.progress, 0), 1)) }

    func run(to url: URL) async throws {
        try await session.export(to: url, as: request.fileType)
    }

    func cancel() { session.cancelExport() }
}
