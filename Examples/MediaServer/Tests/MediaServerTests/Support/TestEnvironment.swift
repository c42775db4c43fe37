import Foundation
import Hummingbird
import HummingbirdTesting
import MediaServerCore
import Testing

/// Avocet's committed fixtures, found from this file's place in the repository.
enum Fixtures {
    /// `<repository>/Fixtures`: this file is `<repository>/Examples/MediaServer/Tests/MediaServerTests/Support/`.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<6 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fixtures")
    }()

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    static func buffer(_ name: String) throws -> ByteBuffer { ByteBuffer(bytes: try data(name)) }
}

/// A server configuration of its own for one test: fresh upload, export and media directories under
/// a temporary folder, and a media directory holding a few fixtures, a subfolder, and symbolic links
/// (one inside, one escaping to a file outside).
struct TestEnvironment {
    let root: URL
    var configuration: ServerConfiguration

    /// The file outside the media directory that `escape.mp4` points to.
    var outsideFile: URL { root.appendingPathComponent("outside/secret.mp4") }
    var uploads: URL { configuration.uploadDirectory }

    init(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("media-server-tests-\(UUID().uuidString)")
        let media = root.appendingPathComponent("media")
        let fm = FileManager.default
        try fm.createDirectory(at: media.appendingPathComponent("clips"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("outside"), withIntermediateDirectories: true)
        for name in ["frames-h264.mp4", "av.mp4", "not-media.mp4", "tone.wav"] {
            try fm.copyItem(at: Fixtures.url(name), to: media.appendingPathComponent(name))
        }
        try fm.copyItem(at: Fixtures.url("iphone.mov"), to: media.appendingPathComponent("clips/iphone.mov"))
        try fm.copyItem(at: Fixtures.url("av.mp4"), to: root.appendingPathComponent("outside/secret.mp4"))
        try fm.createSymbolicLink(atPath: media.appendingPathComponent("escape.mp4").path, withDestinationPath: root.appendingPathComponent("outside/secret.mp4").path)
        try fm.createSymbolicLink(atPath: media.appendingPathComponent("alias.mp4").path, withDestinationPath: "frames-h264.mp4")

        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0,
            uploadDirectory: root.appendingPathComponent("uploads"),
            exportDirectory: root.appendingPathComponent("exports"),
            mediaDirectory: media,
            maxUploadBytes: 1024 * 1024,
            maxConcurrentExports: 2,
            maxConcurrentMediaWork: 2,
            mediaWorkTimeout: 20,
            remoteConnectTimeout: 2,
            remoteReadTimeout: 2,
            lingerAfterRefusal: 1)
        adjust(&configuration)
        self.configuration = configuration
    }

    /// The files now in the upload directory (none of them partial: uploads appear only when complete).
    func uploadFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: uploads.path).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    /// Builds the server and runs `test` against it on a live loopback socket.
    func withServer<Value: Sendable>(_ test: @escaping @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await withServer(configuration, test)
    }

    /// Builds a server of `configuration` (this environment's, changed: another instance over the same
    /// directories, say) and runs `test` against it on a live loopback socket.
    func withServer<Value: Sendable>(_ configuration: ServerConfiguration,
                                     _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        let app = try MediaServer.buildApplication(configuration: configuration)
        return try await app.test(.live) { client in try await test(client) }
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView))
        guard let dictionary = object as? [String: Any] else { throw JSONShapeError(text: text) }
        return dictionary
    }

    /// The `error` of a JSON error body, or nil when the body is not one.
    var errorMessage: String? {
        (try? json())?["error"] as? String
    }
}

struct JSONShapeError: Error, CustomStringConvertible {
    let text: String
    var description: String { "not a JSON object: \(text.prefix(300))" }
}

extension String {
    /// The string percent-encoded for a query value.
    var queryEscaped: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
