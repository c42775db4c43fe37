import Foundation
import Logging
import Synchronization

/// A swift-log handler that writes one JSON object per line, for log collectors:
/// `{"time": "2026-11-28T17:05:06.123Z", "level": "info", "label": "media-server", "message": "request",
/// "request_id": "…", "route": "/inspect", …}`; the metadata's keys sit beside the fixed ones (a key
/// that would shadow one is prefixed with `meta.`), nested metadata becomes nested JSON.
///
/// `media-server --log-format json` bootstraps it for the process. Each line is written whole with one
/// `write` under a lock, so lines from concurrent requests never interleave; the cost is a JSON
/// encoding per line, on the logging thread.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let write: @Sendable (Data) -> Void

    /// A handler for `label` writing to standard error.
    public init(label: String) {
        self.init(label: label) { line in
            Self.standardError.withLock { _ in FileHandle.standardError.write(line) }
        }
    }

    /// A handler for `label` handing each encoded line (newline included) to `write`.
    public init(label: String, write: @escaping @Sendable (Data) -> Void) {
        self.label = label
        self.write = write
    }

    private static let standardError = Mutex(())
    private static let fixedKeys: Set<String> = ["time", "level", "label", "message", "source", "file", "line"]

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": Self.timestamp(Date()),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
            "source": event.source,
        ]
        if event.level >= .warning {
            object["file"] = event.file
            object["line"] = Int(event.line)
        }
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged {
            object[Self.fixedKeys.contains(key) ? "meta." + key : key] = Self.json(value)
        }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(0x0A)
        write(line)
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
