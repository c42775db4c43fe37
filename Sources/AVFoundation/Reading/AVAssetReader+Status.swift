extension AVAssetReader {
    /// Where a reader stands, with Apple's raw values.
    public enum Status: Int, Sendable {
        /// Being configured: outputs may be added and the time range set.
        case unknown = 0
        /// Reading: outputs hand out sample buffers.
        case reading = 1
        /// Every output handed out its last buffer.
        case completed = 2
        /// Reading failed; ``AVAssetReader/error`` says why.
        case failed = 3
        /// ``AVAssetReader/cancelReading()`` stopped it.
        case cancelled = 4
    }
}
