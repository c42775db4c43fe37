import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL connection URL, checked, as the client's configuration.
///
/// Accepted: `postgres://` or `postgresql://`, a user (required), an optional password, a host (or a
/// `host=/directory` query item naming the directory of a Unix socket, as libpq reads it), an optional
/// port (5432), a database name (the user's by default), and `sslmode` `disable`, `prefer` (the
/// default, as libpq's) or `require`. Percent-escapes in the user and password are decoded. Parsed
/// once at start; a malformed URL is an error that names what is wrong, never the password.
struct DatabaseURL: Sendable {
    var configuration: PostgresClient.Configuration
    /// The URL without its password, for logs.
    var redacted: String

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(_ text: String) throws {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw Invalid(description: "The database URL must start with postgres:// (postgres://user:password@host:port/database).")
        }
        // The percent-encoded forms, decoded once (`user` and `password` come decoded already, and
        // decoding again would turn `%25` into a new escape).
        guard let user = components.percentEncodedUser?.removingPercentEncoding, !user.isEmpty else {
            throw Invalid(description: "The database URL names no user (postgres://user@host/database).")
        }
        let password = components.percentEncodedPassword?.removingPercentEncoding
        let query = components.queryItems ?? []
        let database = components.percentEncodedPath.split(separator: "/").first.map(String.init)?.removingPercentEncoding ?? user
        let socketDirectory = query.first { $0.name == "host" }?.value.flatMap { $0.hasPrefix("/") ? $0 : nil }
        let mode = query.first { $0.name == "sslmode" }?.value ?? "prefer"

        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw Invalid(description: "The database URL's port \(port) is not a port.") }
        if let socketDirectory {
            configuration = .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw Invalid(description: "The database URL names no host (postgres://user@host/database, or ?host=/socket/directory).")
            }
            let tls: PostgresClient.Configuration.TLS
            switch mode {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require": tls = .require(.makeClientConfiguration())
            default: throw Invalid(description: "The database URL's sslmode \(mode) is not one of disable, prefer, require.")
            }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        var shown = components
        if shown.password != nil { shown.password = "***" }
        redacted = shown.string ?? "postgres://\(user)@…"
    }
}
