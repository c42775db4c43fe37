import Foundation

extension AVAssetExportSession {
    /// Where an export stands.
    public enum Status: Int, Sendable {
        /// `unknown`: not started; `waiting`: started, loading what it needs; `exporting`: writing;
        /// `completed`: the file is written; `failed`: see ``AVAssetExportSession/error``; `cancelled`:
        /// the export was cancelled.
        case unknown = 0, waiting = 1, exporting = 2, completed = 3, failed = 4, cancelled = 5
    }

    /// Where an export stands, as ``AVAssetExportSession/states(updateInterval:)`` reports it.
    public enum State: @unchecked Sendable {
        // @unchecked Sendable: the Progress object is Foundation's, thread-safe.
        /// Not started.
        case pending
        /// Started, loading what it needs.
        case waiting
        /// Writing; the progress's fraction completed rises to 1.
        case exporting(progress: Progress)
    }
}
