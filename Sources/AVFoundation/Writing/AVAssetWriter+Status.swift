extension AVAssetWriter {
    /// Where a writer stands, with Apple's raw values.
    public enum Status: Int, Sendable {
        /// Being configured: inputs may be added and properties set.
        case unknown = 0
        /// Writing: samples may be appended.
        case writing = 1
        /// The file is complete.
        case completed = 2
        /// Writing failed; ``AVAssetWriter/error`` says why, and the file was removed.
        case failed = 3
        /// ``AVAssetWriter/cancelWriting()`` stopped it, and the file was removed.
        case cancelled = 4
    }
}
