import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The export jobs as rows of one PostgreSQL table, `media_jobs`, shared by every instance given the
/// same database: what a job asks, where it stands, who runs it and until when.
///
/// A job is `queued` until an instance claims it (`claim`): the oldest queued row is taken with
/// `FOR UPDATE SKIP LOCKED`, so two instances never take the same job and neither waits for the
/// other. The claimer holds a lease, a random token and an expiry it renews while it works (`renew`);
/// every later write about the job names the token, so an instance that lost its lease (it stalled,
/// another took the job again) can no longer change the job. A `running` row whose lease ran out is
/// claimable again, until it has been started `max_attempts` times; then `reap` marks it failed with
/// the reason. The database's clock (`now()`) decides every expiry, so the instances' clocks do not
/// matter.
///
/// Only SQL: running the export is `SharedJobWorker`'s. Every method is one statement or one short
/// transaction through the client's pool, awaited on the caller's task (no thread is held while the
/// database answers).
final class PostgresJobQueue: Sendable {
    /// A job's row as `GET /jobs/{id}` reports it.
    struct Row: Sendable {
        var id: UUID
        var kind: String
        var state: String
        var progress: Double
        var attempts: Int
        var error: String?
        var preset: String
        var fileType: String
        var outputBytes: Int64?

        var isFinished: Bool { ["completed", "failed", "cancelled"].contains(state) }

        /// The status the in-memory jobs report for a row's state: `queued` is `waiting`, `running`
        /// is `exporting`.
        static func status(ofState state: String) -> ExportJob.Status {
            switch state {
            case "running": .exporting
            case "completed": .completed
            case "failed": .failed
            case "cancelled": .cancelled
            default: .waiting
            }
        }

        /// The row as the report the in-memory jobs give, with its attempts.
        var report: ExportJob.Report {
            ExportJob.Report(id: id.uuidString.lowercased(), status: Self.status(ofState: state), progress: min(max(progress, 0), 1),
                             error: error, kind: kind, preset: preset, fileType: fileType, outputBytes: outputBytes, attempts: attempts)
        }
    }

    /// A job this instance claimed: what to run, and the lease that lets it write the outcome.
    struct Claim: Sendable {
        var id: UUID
        /// `export` or `hls`.
        var kind: String
        /// The checked JSON body of the `POST /export` that submitted it.
        var request: String
        var fileType: String
        /// How many times it has been started, this time included.
        var attempt: Int
        var token: UUID
    }

    /// What a renewal found.
    enum Renewal: Sendable, Equatable {
        /// The lease is still this instance's (renewed); whether a client asked to cancel the job.
        case held(cancelRequested: Bool)
        /// Another instance took the job again, or it ended: stop working on it and write nothing.
        case lost
    }

    /// How a job ended, as `finish` writes it.
    enum Outcome: Sendable {
        case completed(outputBytes: Int64?)
        case failed(String)
        case cancelled
    }

    /// The database did not answer within `timeout` (down, unreachable, or every connection busy).
    struct Unanswered: Error, CustomStringConvertible {
        var what: String
        var seconds: Double
        var description: String { "the job database did not answer within \(seconds) s (\(what))" }
    }

    let client: PostgresClient
    let logger: Logger
    /// Seconds a lease lasts from its last renewal.
    let leaseSeconds: Double
    let maxAttempts: Int
    /// Seconds one call may wait for the database (a connection, then its answer) before it throws
    /// `Unanswered`: a database that is down never holds a request or the worker longer.
    let timeout: Double

    init(client: PostgresClient, logger: Logger, leaseSeconds: Double, maxAttempts: Int, timeout: Double = 10) {
        self.client = client
        self.logger = logger
        self.leaseSeconds = max(leaseSeconds, 0.5)
        self.maxAttempts = max(maxAttempts, 1)
        self.timeout = timeout
    }

    /// Runs `body` in a task of its own and answers within `timeout` whatever it does: its result,
    /// or `Unanswered` at the deadline (the task is then cancelled and left to end by itself: a query
    /// already sent ends only when the server answers or the connection drops, which the server's
    /// `statement_timeout` and the pool bound). Cancelling the caller answers `CancellationError` at once.
    @discardableResult
    private func bounded<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let work = Task { try await body() }
        let answer = AnswerOnce<T>()
        let seconds = timeout
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                answer.set(continuation)
                Task {
                    do { answer.resume(with: .success(try await work.value)) } catch { answer.resume(with: .failure(error)) }
                }
                Task {
                    try? await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))
                    if answer.resume(with: .failure(Unanswered(what: what, seconds: seconds))) { work.cancel() }
                }
            }
        } onCancel: {
            work.cancel()
            answer.resume(with: .failure(CancellationError()))
        }
    }

    /// A continuation resumed by whichever comes first (the answer, the deadline, the caller's
    /// cancellation), once; a resume before the continuation is set is kept for it.
    private final class AnswerOnce<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var early: Result<T, any Error>?
            var done = false
        }
        private let state = Mutex(State())

        func set(_ continuation: CheckedContinuation<T, any Error>) {
            let early = state.withLock { state -> Result<T, any Error>? in
                if let early = state.early { return early }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        /// True when this call gave the answer.
        @discardableResult
        func resume(with result: Result<T, any Error>) -> Bool {
            let continuation = state.withLock { state -> CheckedContinuation<T, any Error>?? in
                guard !state.done else { return .none }
                state.done = true
                guard let continuation = state.continuation else {
                    state.early = result
                    return .some(nil)
                }
                state.continuation = nil
                return .some(continuation)
            }
            switch continuation {
            case .none: return false
            case .some(let continuation): continuation?.resume(with: result); return true
            }
        }
    }

    // MARK: - Schema

    /// The schema, one migration per step, applied in order and each once; never edit a step that
    /// has shipped, add one.
    static let migrations: [[String]] = [
        [
            """
            CREATE TABLE media_jobs (
                id uuid PRIMARY KEY,
                kind text NOT NULL,
                request text NOT NULL,
                preset text NOT NULL,
                file_type text NOT NULL,
                state text NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
                progress double precision NOT NULL DEFAULT 0,
                attempts integer NOT NULL DEFAULT 0,
                max_attempts integer NOT NULL,
                lease_owner text,
                lease_token uuid,
                lease_expires_at timestamptz,
                cancel_requested boolean NOT NULL DEFAULT false,
                error text,
                output_bytes bigint,
                created_at timestamptz NOT NULL DEFAULT now(),
                started_at timestamptz,
                finished_at timestamptz
            )
            """,
            "CREATE INDEX media_jobs_open ON media_jobs (created_at) WHERE state IN ('queued', 'running')",
            "CREATE INDEX media_jobs_finished ON media_jobs (finished_at) WHERE state IN ('completed', 'failed', 'cancelled')",
        ],
    ]

    /// Brings the schema up to date: the migrations not yet recorded in `media_server_migrations`
    /// run in one transaction under an advisory lock, so instances starting together apply each once
    /// and the others wait for it. Idempotent; run at start, before the server accepts requests.
    func migrate() async throws {
        try await bounded("migrate") { [self] in
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(7130252019)", logger: logger)
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS media_server_migrations (
                        version integer PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied = 0
                for try await version in try await connection.query("SELECT coalesce(max(version), 0) FROM media_server_migrations", logger: logger).decode(Int.self) {
                    applied = version
                }
                for (index, statements) in Self.migrations.enumerated() where index + 1 > applied {
                    for statement in statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    let version = index + 1
                    try await connection.query("INSERT INTO media_server_migrations (version) VALUES (\(version))", logger: logger)
                    logger.info("applied the media server's schema migration \(version)")
                }
            }
        }
    }

    // MARK: - Submitting and reading

    /// Adds a queued job of `kind` (`export` or `hls`).
    func submit(id: UUID, kind: String = "export", request: String, preset: String, fileType: String) async throws {
        try await bounded("submit") { [self] in
            try await client.query("""
                INSERT INTO media_jobs (id, kind, request, preset, file_type, max_attempts)
                VALUES (\(id), \(kind), \(request), \(preset), \(fileType), \(maxAttempts))
                """, logger: logger)
        }
    }

    /// The job's row, or nil when there is none.
    func row(id: UUID) async throws -> Row? {
        try await bounded("row") { [self] in
            try await first(client.query("""
                SELECT id, kind, state, progress, attempts, error, preset, file_type, output_bytes
                FROM media_jobs WHERE id = \(id)
                """, logger: logger))
        }
    }

    /// Asks for the job to stop: a queued job is cancelled at once; a running one is flagged, and the
    /// instance running it cancels it at its next renewal. The row after the change; nil when there
    /// is no such job still queued or running.
    func requestCancel(id: UUID) async throws -> Row? {
        try await bounded("requestCancel") { [self] in
            try await first(client.query("""
                UPDATE media_jobs SET
                    cancel_requested = true,
                    state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
                    error = CASE WHEN state = 'queued' THEN 'The export was cancelled.' ELSE error END,
                    finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END
                WHERE id = \(id) AND state IN ('queued', 'running')
                RETURNING id, kind, state, progress, attempts, error, preset, file_type, output_bytes
                """, logger: logger))
        }
    }

    /// Removes a finished job's row; its file type (to remove its output), or nil when there is no
    /// such finished job.
    func delete(id: UUID) async throws -> String? {
        try await bounded("delete") { [self] in
            for try await fileType in try await client.query("""
                DELETE FROM media_jobs WHERE id = \(id) AND state IN ('completed', 'failed', 'cancelled')
                RETURNING file_type
                """, logger: logger).decode(String.self) {
                return fileType
            }
            return nil
        }
    }

    // MARK: - Working

    /// Takes the oldest job that is queued, or running on a lease that ran out with attempts left,
    /// for `owner`; nil when there is none. Never waits for another instance's claim.
    func claim(owner: String) async throws -> Claim? {
        try await bounded("claim") { [self] in
            let token = UUID()
            let rows = try await client.query("""
                WITH next AS (
                    SELECT id FROM media_jobs
                    WHERE state = 'queued'
                       OR (state = 'running' AND lease_expires_at < now() AND attempts < max_attempts AND NOT cancel_requested)
                    ORDER BY created_at
                    LIMIT 1
                    FOR UPDATE SKIP LOCKED)
                UPDATE media_jobs AS job SET
                    state = 'running', attempts = job.attempts + 1, progress = 0,
                    lease_owner = \(owner), lease_token = \(token),
                    lease_expires_at = now() + make_interval(secs => \(leaseSeconds)),
                    started_at = coalesce(job.started_at, now())
                FROM next WHERE job.id = next.id
                RETURNING job.id, job.kind, job.request, job.file_type, job.attempts
                """, logger: logger)
            for try await (id, kind, request, fileType, attempt) in rows.decode((UUID, String, String, String, Int).self) {
                return Claim(id: id, kind: kind, request: request, fileType: fileType, attempt: attempt, token: token)
            }
            return nil
        }
    }

    /// Extends the lease and records the progress (which never goes back).
    func renew(_ claim: Claim, progress: Double) async throws -> Renewal {
        try await bounded("renew") { [self] in
            for try await cancelRequested in try await client.query("""
                UPDATE media_jobs SET
                    lease_expires_at = now() + make_interval(secs => \(leaseSeconds)),
                    progress = greatest(progress, \(min(max(progress, 0), 1)))
                WHERE id = \(claim.id) AND lease_token = \(claim.token) AND state = 'running'
                RETURNING cancel_requested
                """, logger: logger).decode(Bool.self) {
                return .held(cancelRequested: cancelRequested)
            }
            return .lost
        }
    }

    /// Writes how the job ended, if the lease is still this claim's. For a completed job,
    /// `beforeCommit` runs inside the transaction once the row is locked as this claim's (it moves the
    /// output into place): if it throws, nothing is written and the error is rethrown. False when the
    /// lease was lost (nothing written, `beforeCommit` not run).
    func finish(_ claim: Claim, _ outcome: Outcome, beforeCommit: @escaping @Sendable () async throws -> Void = {}) async throws -> Bool {
        try await bounded("finish") { [self] in
            let (state, error, bytes): (String, String?, Int64?) = switch outcome {
            case .completed(let bytes): ("completed", nil, bytes)
            case .failed(let message): ("failed", message, nil)
            case .cancelled: ("cancelled", "The export was cancelled.", nil)
            }
            return try await client.withTransaction(logger: logger) { connection in
                var held = false
                for try await _ in try await connection.query("""
                    UPDATE media_jobs SET
                        state = \(state), error = \(error), output_bytes = \(bytes),
                        progress = CASE WHEN \(state) = 'completed' THEN 1 ELSE progress END,
                        finished_at = now(), lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                    WHERE id = \(claim.id) AND lease_token = \(claim.token) AND state = 'running'
                    RETURNING id
                    """, logger: logger).decode(UUID.self) {
                    held = true
                }
                if held { try await beforeCommit() }
                return held
            }
        }
    }

    /// Puts a job this instance stops working on (it is shutting down) back in the queue, without
    /// counting the attempt; a job a client asked to cancel is ended as cancelled instead.
    func release(_ claim: Claim) async throws {
        try await bounded("release") { [self] in
            try await client.query("""
                UPDATE media_jobs SET
                    state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END,
                    error = CASE WHEN cancel_requested THEN 'The export was cancelled.' ELSE error END,
                    finished_at = CASE WHEN cancel_requested THEN now() ELSE finished_at END,
                    attempts = CASE WHEN cancel_requested THEN attempts ELSE greatest(attempts - 1, 0) END,
                    progress = CASE WHEN cancel_requested THEN progress ELSE 0 END,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                WHERE id = \(claim.id) AND lease_token = \(claim.token) AND state = 'running'
                """, logger: logger)
        }
    }

    // MARK: - Housekeeping

    /// Ends the jobs whose lease ran out and that may not be taken again: failed when they used their
    /// attempts, cancelled when a client had asked. How many.
    func reap() async throws -> Int {
        try await bounded("reap") { [self] in
            var count = 0
            for try await _ in try await client.query("""
                UPDATE media_jobs SET
                    state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'failed' END,
                    error = CASE WHEN cancel_requested THEN 'The export was cancelled.'
                                 ELSE 'The export was started ' || CASE WHEN attempts = 1 THEN 'once' ELSE attempts || ' times' END
                                  || ' and the instance running it stopped each time before it ended; it is not tried again.' END,
                    finished_at = now(), lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                WHERE state = 'running' AND lease_expires_at < now() AND (attempts >= max_attempts OR cancel_requested)
                RETURNING id
                """, logger: logger).decode(UUID.self) {
                count += 1
            }
            return count
        }
    }

    /// Removes the finished jobs older than `seconds`; their ids and file types (to remove outputs).
    func expire(olderThan seconds: Double) async throws -> [(id: UUID, fileType: String)] {
        try await bounded("expire") { [self] in
            var gone: [(id: UUID, fileType: String)] = []
            for try await (id, fileType) in try await client.query("""
                DELETE FROM media_jobs
                WHERE state IN ('completed', 'failed', 'cancelled') AND finished_at < now() - make_interval(secs => \(seconds))
                RETURNING id, file_type
                """, logger: logger).decode((UUID, String).self) {
                gone.append((id, fileType))
            }
            return gone
        }
    }

    /// The lease tokens of every running job (a partial output named with another token is left over).
    func liveTokens() async throws -> Set<UUID> {
        try await bounded("liveTokens") { [self] in
            var tokens: Set<UUID> = []
            for try await token in try await client.query("SELECT lease_token FROM media_jobs WHERE state = 'running' AND lease_token IS NOT NULL",
                                                          logger: logger).decode(UUID.self) {
                tokens.insert(token)
            }
            return tokens
        }
    }

    /// Which of `ids` are jobs (an output whose job is gone is left over).
    func existing(_ ids: [UUID]) async throws -> Set<UUID> {
        try await bounded("existing") { [self] in
            var found: Set<UUID> = []
            for try await id in try await client.query("SELECT id FROM media_jobs WHERE id = ANY(\(ids))", logger: logger).decode(UUID.self) {
                found.insert(id)
            }
            return found
        }
    }

    /// Which of `ids` are jobs that have ended (their pins are left over). A job not found is not
    /// among them: its row may not be written yet (a pin is made before the row).
    func ended(_ ids: [UUID]) async throws -> Set<UUID> {
        try await bounded("ended") { [self] in
            var found: Set<UUID> = []
            for try await id in try await client.query(
                "SELECT id FROM media_jobs WHERE id = ANY(\(ids)) AND state IN ('completed', 'failed', 'cancelled')",
                logger: logger).decode(UUID.self) {
                found.insert(id)
            }
            return found
        }
    }

    /// Whether the database answers.
    func ping() async throws {
        try await bounded("ping") { [self] in
            _ = try await client.query("SELECT 1", logger: logger)
        }
    }

    /// Counts of jobs by state (for the operator).
    func counts() async throws -> [String: Int] {
        try await bounded("counts") { [self] in
            var counts: [String: Int] = [:]
            for try await (state, count) in try await client.query("SELECT state, count(*)::bigint FROM media_jobs GROUP BY state",
                                                                   logger: logger).decode((String, Int).self) {
                counts[state] = count
            }
            return counts
        }
    }

    private func first(_ rows: PostgresRowSequence) async throws -> Row? {
        for try await (id, kind, state, progress, attempts, error, preset, fileType, bytes)
            in rows.decode((UUID, String, String, Double, Int, String?, String, String, Int64?).self) {
            return Row(id: id, kind: kind, state: state, progress: progress, attempts: attempts, error: error, preset: preset,
                       fileType: fileType, outputBytes: bytes)
        }
        return nil
    }
}
