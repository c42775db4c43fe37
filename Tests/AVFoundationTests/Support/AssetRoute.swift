import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// The three ways an asset's bytes arrive: a file URL, a custom-scheme URL served by a resource loader
/// delegate, and an http URL on a loopback server. Asset tests run the same expectations over each.
enum AssetRoute: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file
    case delegate
    case http

    var testDescription: String { rawValue }

    /// A loopback server with every fixture under /media/NAME, for the whole test process.
    static let server: LoopbackHTTPServer = {
        var routes: [String: LoopbackHTTPServer.Route] = [:]
        for name in Fixtures.facts.fixtures.map(\.name) + Fixtures.facts.frames.fixtures.map(\.name) {
            routes["/media/\(name)"] = .file(URL(fileURLWithPath: Fixtures.path(name)))
        }
        do { return try LoopbackHTTPServer(routes: routes) } catch { fatalError("cannot start the loopback server: \(error)") }
    }()

    func asset(_ name: String, options: [String: Any]? = nil) -> AVURLAsset {
        switch self {
        case .file:
            return AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name)), options: options)
        case .delegate:
            do {
                let delegate = DelegateKeeper.keep(try FileServingDelegate(file: Fixtures.path(name), chunk: 32 << 10))
                let asset = AVURLAsset(url: URL(string: "fixture://media/\(name)")!, options: options)
                asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
                return asset
            } catch {
                fatalError("cannot read fixture \(name): \(error)")
            }
        case .http:
            return AVURLAsset(url: AssetRoute.server.url("/media/\(name)"), options: options)
        }
    }
}
