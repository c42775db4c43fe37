import Foundation

/// The fixtures' facts as `Fixtures/make-fixtures.py` put them in, read from `Fixtures/facts.json`.
public struct FixtureFacts: Decodable, Sendable {
    public struct Cover: Decodable, Sendable {
        public let file: String
        public let width: Int
        public let height: Int
    }

    public struct Video: Decodable, Sendable {
        public let codec: String
        public let width: Int
        public let height: Int
        public let fps: Int
    }

    public struct Audio: Decodable, Sendable {
        public let codec: String
        public let sampleRate: Int
        public let channels: Int
        public let language: String?
        public let title: String?
    }

    public struct Subtitle: Decodable, Sendable {
        public let codec: String
        public let language: String
    }

    public struct Chapter: Decodable, Sendable {
        public let start: Double
        public let end: Double
        public let title: String
    }

    public struct Fixture: Decodable, Sendable {
        public let name: String
        public let recipe: String
        public let container: String?
        public let duration: Double?
        public let faststart: Bool?
        public let fragmented: Bool?
        public let rotation: Double?
        /// VBR MP3 without a Xing header: the header's duration is only an estimate.
        public let vbrWithoutXing: Bool?
        public let video: Video?
        public let audio: [Audio]?
        public let subtitle: Subtitle?
        public let tags: [String: String]?
        public let chapters: [Chapter]?
        public let coverArt: Bool?
        /// For fixtures that must fail: "truncated" or "notMedia".
        public let bad: String?

        public var path: String { Fixtures.path(name) }
        public var isMedia: Bool { bad == nil }
    }

    public let cover: Cover
    public let fixtures: [Fixture]
}

public enum Fixtures {
    /// The repository's `Fixtures/` folder, found from this file's location.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    public static let facts: FixtureFacts = {
        let url = directory.appendingPathComponent("facts.json")
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return try decoder.decode(FixtureFacts.self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read \(url.path): \(error)")
        }
    }()

    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public static func fixture(_ name: String) -> FixtureFacts.Fixture {
        guard let f = facts.fixtures.first(where: { $0.name == name }) else { fatalError("no fixture \(name) in facts.json") }
        return f
    }

    /// The fixtures that are real media, and those that must fail.
    public static var media: [FixtureFacts.Fixture] { facts.fixtures.filter(\.isMedia) }
    public static var bad: [FixtureFacts.Fixture] { facts.fixtures.filter { !$0.isMedia } }

    /// A fresh temporary directory for a test's own files.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
