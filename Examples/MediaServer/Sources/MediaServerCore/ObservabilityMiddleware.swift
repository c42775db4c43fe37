import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id and accounts for it: the id is the client's `X-Request-ID` when it sends
/// a usable one (1 to 128 visible ASCII characters), else Hummingbird's own; it goes into the
/// request's logger metadata (`request_id`, so every line logged for the request carries it) and back
/// in the response's `X-Request-ID`. When the request ends, one structured log line (method, route,
/// status, milliseconds) and the request metrics (`ServerMetrics.request`) record it.
///
/// Outermost of the middlewares, on the request's task; it costs a clock read and a few look-ups.
struct ObservabilityMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    /// `X-Request-ID` (a valid field name: never nil).
    static var requestIDField: HTTPField.Name? { HTTPField.Name("X-Request-ID") }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let field = Self.requestIDField else { return try await next(request, context) }
        var context = context
        let offered = request.headers[field].flatMap { value -> String? in
            guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
            return value
        }
        let id = offered ?? context.id
        context.logger[metadataKey: "request_id"] = "\(id)"
        let started = ContinuousClock.now
        let status: HTTPResponse.Status
        do {
            var response = try await next(request, context)
            response.headers[field] = id
            status = response.status
            record(request, context, status, ContinuousClock.now - started)
            return response
        } catch let error as APIError {
            var error = error
            error.headers[field] = id
            record(request, context, error.status, ContinuousClock.now - started)
            throw error
        } catch {
            let code = (error as? any HTTPResponseError)?.status ?? .internalServerError
            record(request, context, code, ContinuousClock.now - started)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, _ status: HTTPResponse.Status, _ duration: Duration) {
        let route = context.endpointPath ?? "NotFound"  // Hummingbird's own name when no route matched
        let method = request.method.rawValue
        metrics.request(method: method, route: route, status: status.code, duration: duration)
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        context.logger.info("request", metadata: [
            "method": "\(method)", "route": "\(route)", "status": "\(status.code)",
            "ms": "\(String(format: "%.1f", milliseconds))",
        ])
    }
}
