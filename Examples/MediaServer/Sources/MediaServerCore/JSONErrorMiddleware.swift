import Foundation
import Hummingbird

/// Answers every failure as JSON: `APIError`s pass through (they render themselves), Hummingbird's
/// own `HTTPError`s (no such route, wrong method) get a `{"error": ...}` body, and anything else is a
/// 500 whose details go to the log, not the client.
///
/// Runs on the request's task, around every route.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            let message = error.body ?? "\(error.status.code) \(error.status.reasonPhrase)"
            return APIError.jsonResponse(status: error.status, message: message, headers: error.headers)
        } catch {
            context.logger.error("Unexpected failure of \(request.method) \(request.uri.path): \(String(reflecting: error))")
            return APIError.jsonResponse(status: .internalServerError, message: "The server failed unexpectedly; the details are in its log.")
        }
    }
}
