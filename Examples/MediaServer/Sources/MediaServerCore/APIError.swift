import Foundation
import Hummingbird

/// An error answered to the client as `{"error": "..."}` with an HTTP status: every refusal of the
/// server (bad arguments, bad media, limits) is one of these.
///
/// Thrown from route handlers on the request's task; Hummingbird turns it into the response through
/// `HTTPResponseError`. `closesConnection` adds `Connection: close`, which `LingeringCloseHandler`
/// acts on (used when the request's body is not read to its end).
public struct APIError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    /// The message for the client: what was wrong and, where it helps, what to do.
    public let message: String
    /// Extra header fields (`Retry-After`, say).
    public var headers: HTTPFields
    /// Whether the connection is closed after the answer (the body was not read to its end).
    public var closesConnection: Bool

    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:], closesConnection: Bool = false) {
        self.status = status
        self.message = message
        self.headers = headers
        self.closesConnection = closesConnection
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Self.jsonResponse(status: status, message: message, headers: headers, closesConnection: closesConnection)
    }

    /// A JSON error response: `{"error": message}`.
    static func jsonResponse(status: HTTPResponse.Status, message: String, headers extra: HTTPFields = [:], closesConnection: Bool = false) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let body = (try? encoder.encode(["error": message])) ?? Data(#"{"error":"unknown error"}"#.utf8)
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(body.count)
        if closesConnection { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension APIError {
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }
    static func forbidden(_ message: String) -> APIError { APIError(.forbidden, message) }
    static func unprocessable(_ message: String) -> APIError { APIError(.unprocessableContent, message) }
    /// 503: the job database did not answer (what it said goes to the server's log, not to the client).
    static let databaseUnavailable = APIError(.serviceUnavailable, "The job database is not reachable; try again shortly.",
                                              headers: [.retryAfter: "5"])
}
