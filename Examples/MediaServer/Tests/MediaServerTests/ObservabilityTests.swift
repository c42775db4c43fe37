import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
@testable import MediaServerCore
import Synchronization
import Testing

/// `GET /health`, `GET /metrics` and request ids: what an operator and a load balancer see.
@Suite("Health, metrics and request ids")
struct ObservabilityTests {
    /// The value of the series whose line starts with `name{` and holds every one of `labels`
    /// (`key="value"`), or of `name` without labels when `labels` is empty; nil when absent.
    static func value(_ text: String, _ name: String, _ labels: [String: String] = [:]) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let series = line[..<space]
            if labels.isEmpty {
                guard series == name else { continue }
            } else {
                guard series.hasPrefix(name + "{"), labels.allSatisfy({ series.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            }
            return Double(line[line.index(after: space)...])
        }
        return nil
    }

    @Test func healthMetricsAndRequestIDs() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let health = try await client.execute(uri: "/health", method: .get)
            let healthStatus = try health.json()["status"] as? String
            #expect(health.status == .ok && healthStatus == "ok", "\(health.text)")

            let requestID = try #require(HTTPField.Name("X-Request-ID"))
            let echoed = try await client.execute(uri: "/health", method: .get, headers: [requestID: "trace-42"])
            #expect(echoed.headers[requestID] == "trace-42", "the client's id comes back")
            let generated = try await client.execute(uri: "/health", method: .get, headers: [requestID: String(repeating: "x", count: 200)])
            let id = generated.headers[requestID] ?? ""
            #expect(!id.isEmpty && id.count <= 128, "an unusable id is replaced by the server's: \(id)")

            let inspected = try await client.execute(uri: "/inspect", method: .post, body: try Fixtures.buffer("av.mp4"))
            #expect(inspected.status == .ok)
            let size = try #require(try inspected.json()["size"] as? Int)
            let missing = try await client.execute(uri: "/jobs/0b9e0000-0000-4000-8000-000000000000", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.headers[requestID]?.isEmpty == false, "errors carry the id too")
            #expect(try await client.execute(uri: "/no-such-route", method: .get).status == .notFound)

            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = metrics.text
            #expect(Self.value(text, "http_requests_total", ["method": "GET", "route": "/health", "status": "200"]) == 3, "\(text)")
            #expect(Self.value(text, "http_requests_total", ["method": "POST", "route": "/inspect", "status": "200"]) == 1)
            #expect(Self.value(text, "http_requests_total", ["route": "/jobs/{id}", "status": "404"]) == 1,
                    "a route is labelled by its pattern, never by the id asked: \(text)")
            #expect(!text.contains("0b9e0000"))
            #expect(Self.value(text, "http_requests_total", ["route": "NotFound", "status": "404"]) == 1, "Hummingbird names a request no route matched NotFound: \(text)")
            #expect(Self.value(text, "http_request_duration_seconds_count", ["method": "POST", "route": "/inspect"]) == 1)
            #expect(Self.value(text, "media_server_upload_bytes_total") == Double(size))
            #expect(Self.value(text, "media_server_media_work", ["state": "running"]) == 0)
            #expect(Self.value(text, "media_server_export_jobs", ["state": "completed"]) == 0)
        }
    }

    @Test func anExportIsCountedAndTimed() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        try await environment.withServer { client in
            let started = try await client.execute(uri: "/export", method: .post, body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: [
                "source": "av.mp4", "preset": "AVAssetExportPresetLowQuality", "to": 1,
            ])))
            let id = try #require(try started.json()["id"] as? String)
            try await until("the export to complete", seconds: 60) {
                try await client.execute(uri: "/jobs/\(id)", method: .get).json()["status"] as? String == "completed"
            }
            let text = try await client.execute(uri: "/metrics", method: .get).text
            #expect(Self.value(text, "media_server_export_jobs", ["state": "completed"]) == 1, "\(text)")
            #expect(Self.value(text, "media_server_export_slots_in_use") == 0)
            try await until("the export's duration to be recorded") {
                Self.value(try await client.execute(uri: "/metrics", method: .get).text,
                           "media_server_export_job_duration_seconds_count", ["outcome": "completed"]) == 1
            }
        }
    }
}

/// `--log-format json`: one JSON object a line, metadata beside the fixed keys.
@Suite("JSON logs")
struct JSONLogTests {
    @Test func eachLineIsOneJSONObjectWithItsMetadata() throws {
        let lines = Mutex<[Data]>([])
        var logger = Logger(label: "media-server") { label in JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } } }
        logger[metadataKey: "request_id"] = "abc-1"
        logger.info("request", metadata: ["route": "/jobs/{id}", "status": "404", "message": "shadowed", "nested": ["a": "1"]])
        logger.debug("not written at info")
        logger.error("failed")
        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        #expect(written.allSatisfy { $0.last == 0x0A && !$0.dropLast().contains(0x0A) }, "one line each")
        let first = try #require(try JSONSerialization.jsonObject(with: written[0]) as? [String: Any])
        #expect(first["message"] as? String == "request" && first["level"] as? String == "info" && first["label"] as? String == "media-server")
        #expect(first["request_id"] as? String == "abc-1" && first["route"] as? String == "/jobs/{id}" && first["status"] as? String == "404")
        #expect(first["meta.message"] as? String == "shadowed", "a key that would shadow a fixed one is prefixed")
        #expect((first["nested"] as? [String: Any])?["a"] as? String == "1")
        #expect((first["time"] as? String)?.hasSuffix("Z") == true, "\(first)")
        let second = try #require(try JSONSerialization.jsonObject(with: written[1]) as? [String: Any])
        #expect(second["level"] as? String == "error" && second["file"] is String && second["line"] is Int, "warnings and worse say where")
    }
}
