import Foundation
import Metrics
import Prometheus

/// What `GET /metrics` reports, in Prometheus' text format: swift-metrics' counters, timers and
/// gauges made by a Prometheus factory over a registry of this application's own (no global
/// `MetricsSystem.bootstrap`, so several servers in one process, as in the tests, never share or
/// clash).
///
/// - `http_requests_total{method,route,status}` and `http_request_duration_seconds{method,route}`:
///   every request, by its route's pattern (`/jobs/{id}`, never the id itself: the label set stays
///   bounded; `NotFound` when no route matched).
/// - `media_server_upload_bytes_total`: bytes of uploads stored.
/// - `media_server_media_work{state="running"|"waiting"}`: inspect and thumbnail work now.
/// - `media_server_export_jobs{state}`: export jobs by state (with a database, the whole queue's,
///   every instance's jobs), and `media_server_export_slots_in_use`: this instance's running exports.
/// - `media_server_export_job_duration_seconds{outcome}`: exports this instance ran, start to end.
/// - `media_server_database_up`: with a database, 1 when it answered the scrape's query, else 0 (the
///   job gauges then keep their last values).
///
/// Recording costs a lock and a dictionary look-up in the registry; `render` writes every series.
public final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
            .seconds(30), .seconds(60), .seconds(300),
        ]
        self.factory = factory
    }

    /// One request answered.
    func request(method: String, route: String, status: Int, duration: Duration) {
        Counter(label: "http_requests_total", dimensions: [("method", method), ("route", route), ("status", String(status))],
                factory: factory).increment()
        Metrics.Timer(label: "http_request_duration_seconds", dimensions: [("method", method), ("route", route)], factory: factory)
            .record(duration: duration)
    }

    /// An upload stored.
    func uploaded(bytes: Int64) {
        Counter(label: "media_server_upload_bytes_total", factory: factory).increment(by: max(0, Int(clamping: bytes)))
    }

    /// An export this instance ran has ended.
    func exportEnded(outcome: String, duration: Duration) {
        Metrics.Timer(label: "media_server_export_job_duration_seconds", dimensions: [("outcome", outcome)], factory: factory)
            .record(duration: duration)
    }

    /// The gauges of the moment, set just before `render`.
    /// `jobs` nil leaves the job gauges as they were (the database did not answer).
    func set(mediaWorkRunning: Int, mediaWorkWaiting: Int, jobs: [ExportJob.Status: Int]?) {
        Gauge(label: "media_server_media_work", dimensions: [("state", "running")], factory: factory).record(mediaWorkRunning)
        Gauge(label: "media_server_media_work", dimensions: [("state", "waiting")], factory: factory).record(mediaWorkWaiting)
        guard let jobs else { return }
        for status in ExportJob.Status.allCases {
            Gauge(label: "media_server_export_jobs", dimensions: [("state", status.rawValue)], factory: factory).record(jobs[status] ?? 0)
        }
    }

    /// With a database: whether it answered the last scrape (1) or not (0).
    func set(databaseUp: Bool) {
        Gauge(label: "media_server_database_up", factory: factory).record(databaseUp ? 1 : 0)
    }

    /// This instance's running exports (set when it changes with a database, at each scrape without).
    func set(slotsInUse: Int) {
        Gauge(label: "media_server_export_slots_in_use", factory: factory).record(slotsInUse)
    }

    /// Every series in Prometheus' text exposition format.
    func render() -> [UInt8] {
        registry.emitToBuffer()
    }
}
