import Foundation
import Logging
import PostgresNIO
import Testing

/// A PostgreSQL database of its own for one test, made in the server that
/// `MEDIA_SERVER_TEST_DATABASE_URL` names (the repository's `scripts/test.sh` starts one on loopback
/// with `Scripts/postgres.sh` and sets it) and dropped afterwards, so tests running at once never
/// see each other's jobs.
struct TestDatabase: Sendable {
    /// The URL of the server's maintenance database, from the environment; nil when unset (the
    /// suites that need it are then disabled, and say why).
    static let adminURL: String? = ProcessInfo.processInfo.environment["MEDIA_SERVER_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// The URL of this test's database.
    let url: String
    let name: String

    /// Creates a fresh database, runs `body` with it, and drops it (forcibly: a server under test may
    /// still hold connections).
    static func with<T: Sendable>(_ body: @Sendable (TestDatabase) async throws -> T) async throws -> T {
        let admin = try #require(adminURL, "MEDIA_SERVER_TEST_DATABASE_URL is not set")
        let name = "media_server_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        guard var components = URLComponents(string: admin) else { throw JSONShapeError(text: "not a URL: \(admin)") }
        components.path = "/\(name)"
        let database = TestDatabase(url: components.string ?? admin, name: name)
        try await database.admin("CREATE DATABASE \(name)")
        do {
            let value = try await body(database)
            try await database.admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            return value
        } catch {
            try? await database.admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
    }

    /// Runs one statement in the maintenance database.
    func admin(_ sql: String) async throws {
        try await Self.withClient(Self.adminURL ?? url) { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// Runs `body` with a client of this test's database.
    func withClient<T: Sendable>(_ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await Self.withClient(url, body)
    }

    /// The values of the first column of `sql`'s rows in this test's database, as text.
    func strings(_ sql: String) async throws -> [String] {
        try await withClient { client in
            var values: [String] = []
            for try await value in try await client.query(PostgresQuery(unsafeSQL: sql)).decode(String.self) {
                values.append(value)
            }
            return values
        }
    }

    private static func withClient<T: Sendable>(_ url: String, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw JSONShapeError(text: "not a database URL: \(url)")
        }
        let database = components.path.split(separator: "/").first.map(String.init)
        let client = PostgresClient(
            configuration: .init(host: host, port: components.port ?? 5432, username: user, password: components.password,
                                 database: database, tls: .disable),
            backgroundLogger: Logger(label: "test-database"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
