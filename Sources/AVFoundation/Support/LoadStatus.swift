import Foundation

/// Where a loadable value stands, as every status API reads it: `status(of:)` (which reports a
/// cancelled load as failed with a cancellation error) and the legacy `statusOfValue(forKey:error:)`
/// (which reports it as cancelled).
enum LoadStatus<Value> {
    case notYetLoaded
    case loading
    case loaded(Value)
    case failed(any Error)
    case cancelled

    func map<U>(_ transform: (Value) -> U) -> LoadStatus<U> {
        switch self {
        case .notYetLoaded: return .notYetLoaded
        case .loading: return .loading
        case .loaded(let value): return .loaded(transform(value))
        case .failed(let error): return .failed(error)
        case .cancelled: return .cancelled
        }
    }

    /// When loaded, the status of what follows from the value (a scan after the header, say).
    func flatMap<U>(_ transform: (Value) -> LoadStatus<U>) -> LoadStatus<U> {
        switch self {
        case .notYetLoaded: return .notYetLoaded
        case .loading: return .loading
        case .loaded(let value): return transform(value)
        case .failed(let error): return .failed(error)
        case .cancelled: return .cancelled
        }
    }

    /// The error as `NSError`, for the status APIs (AVError keeps its domain and code).
    static func nsError(_ error: any Error) -> NSError {
        if let av = error as? AVError { return av as NSError }
        return error as NSError
    }
}
