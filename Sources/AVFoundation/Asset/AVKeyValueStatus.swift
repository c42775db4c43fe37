/// Where a value stands in the legacy key-value loading API.
@available(*, deprecated, message: "Use AVAsyncProperty.Status instead")
public enum AVKeyValueStatus: Int, Sendable {
    case unknown = 0
    case loading = 1
    case loaded = 2
    case failed = 3
    case cancelled = 4
}
