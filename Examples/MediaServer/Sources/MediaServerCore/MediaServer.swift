import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// Builds the media server: its router (the routes over a `MediaService`) and the Hummingbird
/// application that serves it.
///
/// Routes (every error is JSON, `{"error": "..."}`):
/// - `POST /inspect`: the body is a media file, streamed to disk; answers its facts and an `uploadID`.
/// - `GET /thumbnail?url=&t=&w=&exact=`: a JPEG of the picture at `t` seconds.
/// - `POST /export`: starts a background export job (202, `{"id": ...}`).
/// - `GET /jobs/{id}`, `GET /jobs/{id}/output`, `DELETE /jobs/{id}`: follow, fetch, cancel or remove a job.
/// - `DELETE /uploads/{id}`: removes a stored upload. `GET /health`: `{"status": "ok"}`.
///
/// Handlers run on Hummingbird's request tasks (Swift's cooperative pool) and only await; see
/// `MediaService` for where the work runs.
public enum MediaServer {
    /// The application for `configuration`, ready to `runService()`; creates the upload and export
    /// directories first. `onServerRunning` receives the listening channel (its local address gives
    /// the port when `configuration.port` is 0).
    public static func buildApplication(
        configuration: ServerConfiguration,
        logger: Logger? = nil,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        var log = logger ?? Logger(label: "media-server")
        if logger == nil, let level = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) {
            log.logLevel = level
        }
        // With a database: its client (a connection pool, run as a service beside the server), the
        // queue over it, and this instance's worker; the schema is brought up to date before the
        // server accepts a request.
        var services: [any Service] = []
        var queue: PostgresJobQueue?
        if let text = configuration.databaseURL {
            let url = try DatabaseURL(text)
            var database = url.configuration
            // The server itself ends a statement, a lock wait or a transaction left open past the
            // timeout, so that a stall on its side frees the connection too.
            let milliseconds = String(Int(ExportJob.boundedSeconds(configuration.databaseTimeout) * 1000))
            database.options.additionalStartupParameters += [
                ("statement_timeout", milliseconds), ("lock_timeout", milliseconds),
                ("idle_in_transaction_session_timeout", milliseconds),
            ]
            let client = PostgresClient(configuration: database, backgroundLogger: log)
            queue = PostgresJobQueue(client: client, logger: log, leaseSeconds: configuration.jobLeaseDuration,
                                     maxAttempts: configuration.maxJobAttempts, timeout: configuration.databaseTimeout)
            services.append(client)
            log.info("export jobs are kept in \(url.redacted), shared by every instance using it")
        }
        let service = MediaService(configuration: configuration, queue: queue, logger: log)
        try service.prepare()
        if let queue, case .database(_, let wakeup) = service.backend {
            // After the client in the list: a graceful shutdown stops the worker (its jobs go back to
            // the queue) before the client closes.
            services.append(SharedJobWorker(queue: queue, service: service, wakeup: wakeup, logger: log))
        }
        let maxBody = max(configuration.maxUploadBytes, Int64(configuration.maxJSONBytes))
        let linger = TimeAmount.milliseconds(Int64(max(0, configuration.lingerAfterRefusal) * 1000))
        var app = Application(
            router: buildRouter(service: service),
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ExpectContinueHandler(maxBodyBytes: maxBody), LingeringCloseHandler(linger: linger)],
                idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "media-server"),
            services: services,
            onServerRunning: onServerRunning,
            logger: log
        )
        if let queue {
            app.beforeServerStarts { try await queue.migrate() }
        }
        return app
    }

    /// The router with every route of the server over `service`.
    public static func buildRouter(service: MediaService) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(ObservabilityMiddleware(metrics: service.metrics))
        router.middlewares.add(JSONErrorMiddleware())

        router.get("/health") { _, _ in
            guard await service.healthy() else {
                throw APIError(.serviceUnavailable, "The job database is not reachable.", headers: [.retryAfter: "5"])
            }
            return try json(["status": "ok"])
        }

        router.get("/metrics") { _, _ in
            let text = await service.metricsText()
            return Response(status: .ok,
                            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .contentLength: String(text.count)],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }

        router.post("/inspect") { request, _ in
            let declared = request.headers[.contentLength].flatMap { Int64($0) }
            let report = try await service.inspect(body: request.body, declaredLength: declared)
            return try json(report)
        }

        router.delete("/uploads/:id") { _, context in
            let id = try context.parameters.require("id")
            guard await service.uploads.remove(id: id) else { throw APIError.notFound("No upload \(id) is stored.") }
            return Response(status: .noContent)
        }

        router.get("/thumbnail") { request, _ in
            let query = request.uri.queryParameters
            let arguments = try ThumbnailRequest { query.get($0) }
            let (jpeg, actualTime) = try await service.thumbnail(arguments)
            var headers: HTTPFields = [.contentType: "image/jpeg", .contentLength: String(jpeg.count)]
            if let name = HTTPField.Name("X-Actual-Time"), actualTime.isFinite {
                headers[name] = String(format: "%.6f", actualTime)
            }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jpeg)))
        }

        // A job's route: the JSON body to `start`, answered 202 with the job's id and where to follow it.
        let starts: [(RouterPath, @Sendable (Data) async throws -> String)] = [
            ("/export", { try await service.startExport(json: $0) }),
            ("/hls", { try await service.startPackaging(json: $0) }),
        ]
        for (path, start) in starts {
            router.post(path) { request, _ in
                let id = try await start(try await collect(request.body, limit: service.configuration.maxJSONBytes))
                var response = try json(["id": id], status: .accepted)
                response.headers[.location] = "/jobs/\(id)"
                return response
            }
        }

        router.get("/hls/:id/**") { _, context in
            let id = try context.parameters.require("id")
            let file = try await service.hlsFile(id: id, path: context.parameters.getCatchAll().map(String.init))
            let body = try await FileIO().loadFile(path: file.path, context: context)
            return Response(status: .ok, headers: [.contentType: file.contentType, .cacheControl: "public, max-age=3600"], body: body)
        }

        router.get("/jobs/:id") { _, context in
            try json(try await service.jobReport(id: try context.parameters.require("id")))
        }

        router.get("/jobs/:id/output") { _, context in
            let output = try await service.jobOutput(id: try context.parameters.require("id"))
            let body = try await FileIO().loadFile(path: output.path, context: context)
            var headers: HTTPFields = [
                .contentType: output.contentType,
                .contentDisposition: "attachment; filename=\"\(output.fileName)\"",
            ]
            if let bytes = output.bytes { headers[.contentLength] = String(bytes) }
            return Response(status: .ok, headers: headers, body: body)
        }

        router.delete("/jobs/:id") { _, context in
            guard let report = try await service.deleteJob(id: try context.parameters.require("id")) else {
                return Response(status: .noContent)
            }
            return try json(report)
        }

        return router
    }

    /// A JSON response of `value`.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return Response(status: status,
                        headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The request body, refused with 413 past `limit` bytes.
    static func collect(_ body: RequestBody, limit: Int) async throws -> Data {
        var data = Data()
        for try await buffer in body {
            guard data.count + buffer.readableBytes <= limit else {
                throw APIError(.contentTooLarge, "The JSON body is larger than \(limit) bytes.", closesConnection: true)
            }
            data.append(contentsOf: buffer.readableBytesView)
        }
        return data
    }
}
