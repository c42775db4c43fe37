/// Where a value stands in the legacy key-value loading API.
@available(*, deprecated, message: "Use AVAsyncProperty.Status instead")
public enum AVKeyValueStatus: Int, Sendable {
    /// Not loaded, and no load asked for.
    case unknown = 0
    /// Loading.
    case loading = 1
    /// Loaded: the value can be read without waiting.
    case loaded = 2
    /// Loading failed; ``AVAsynchronousKeyValueLoading/statusOfValue(forKey:error:)`` gives the error.
    case failed = 3
    /// Loading was cancelled; the key may be loaded again.
    case cancelled = 4
}
