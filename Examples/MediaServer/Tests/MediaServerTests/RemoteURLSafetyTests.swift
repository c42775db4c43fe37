import AVFoundation
import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MediaServerCore
import Testing

/// Remote URLs from strangers reach only what the server allows: with the defaults, the public
/// internet only, in every spelling of a host and at every redirect hop. Each refusal is a 4xx JSON
/// error and no request reaches the listener named (the listeners here count every request).
@Suite("Remote URL safety")
struct RemoteURLSafetyTests {
    /// Loopback as strangers spell it: names, short and numeric IPv4 forms, IPv4-mapped IPv6.
    static let spellings = ["127.0.0.1", "localhost", "LOCALHOST.", "media.localhost", "127.1", "2130706433", "0x7f000001",
                            "[::ffff:127.0.0.1]", "127.0.0.2", "0.0.0.0"]

    @Test(arguments: spellings)
    func aLoopbackURLIsRefusedByDefault(host: String) async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        let listener = FixtureHTTPServer()
        try await listener.run { base in
            let port = try #require(URL(string: base)?.port)
            let url = "http://\(host):\(port)/files/av.mp4"
            try await environment.withServer { client in
                let response = try await client.execute(uri: "/thumbnail?url=\(url.queryEscaped)&t=0.5&w=160", method: .get)
                #expect(response.status == .forbidden, "\(host): \(response.status) \(response.text)")
                let message = try #require(response.errorMessage, "a JSON error: \(response.text)")
                #expect(message.contains("refused by the URL policy"), "\(message)")
                if !host.contains("127.0.0.1") {
                    #expect(!message.contains("127.0.0.1"), "the message does not echo the address the name resolved to: \(message)")
                }
            }
            #expect(listener.requestCount == 0, "\(host): no request reached the listener")
        }
    }

    @Test func anExportOfALoopbackURLIsRefusedBeforeItIsAccepted() async throws {
        let environment = try TestEnvironment()
        defer { environment.remove() }
        let listener = FixtureHTTPServer()
        try await listener.run { base in
            try await environment.withServer { client in
                let body = try JSONSerialization.data(withJSONObject: ["source": "\(base)/files/av.mp4", "preset": "AVAssetExportPresetLowQuality"])
                let response = try await client.execute(uri: "/export", method: .post, body: ByteBuffer(bytes: body))
                #expect(response.status == .forbidden, "\(response.text)")
                #expect(response.errorMessage?.contains("refused by the URL policy") == true, "\(response.text)")
            }
            #expect(listener.requestCount == 0)
        }
    }

    /// The issue's case: with `--allowed-hosts 127.0.0.1` (and private networks allowed, so that host
    /// is reachable at all), a URL there that redirects to another loopback address is refused at the
    /// hop, and the redirect's target sees no request.
    @Test func aRedirectFromAnAllowedHostToAnotherHostIsRefused() async throws {
        let environment = try TestEnvironment {
            $0.allowedRemoteHosts = ["127.0.0.1"]
            $0.allowsPrivateNetworks = true
        }
        defer { environment.remove() }
        let allowed = FixtureHTTPServer(), target = FixtureHTTPServer(address: "127.0.0.2")
        try await allowed.run { allowedBase in
            try await target.run { targetBase in
                let allowedPort = try #require(URL(string: allowedBase)?.port)
                let secret = "\(targetBase)/files/av.mp4"
                let url = "http://127.0.0.1:\(allowedPort)/to?url=\(secret.queryEscaped)"
                try await environment.withServer { client in
                    // The allowed host itself is served.
                    let direct = try await client.execute(uri: "/thumbnail?url=\("http://127.0.0.1:\(allowedPort)/files/av.mp4".queryEscaped)&t=0.5", method: .get)
                    #expect(direct.status == .ok, "\(direct.text)")
                    let response = try await client.execute(uri: "/thumbnail?url=\(url.queryEscaped)&t=0.5", method: .get)
                    #expect(response.status == .forbidden, "\(response.text)")
                    let message = try #require(response.errorMessage)
                    #expect(message.contains("a redirect leads to a host this server does not fetch from"), "\(message)")
                    // The URL given holds the target (in its query); the reason after it does not repeat it.
                    let reason = message.components(separatedBy: "cannot load:").last ?? message
                    #expect(!reason.contains("127.0.0.2"), "the redirect's target is not echoed: \(message)")
                }
                #expect(allowed.requestCount >= 2, "the allowed host was asked")
                #expect(target.requestCount == 0, "no request reached the redirect's target")
            }
        }
    }

    /// Address rules hold at every hop too: even with private networks allowed, a redirect to the
    /// unspecified address (which reaches this machine on Linux) is refused.
    @Test func aRedirectToAnAddressNeverReachableIsRefused() async throws {
        let environment = try TestEnvironment { $0.allowsPrivateNetworks = true }
        defer { environment.remove() }
        let allowed = FixtureHTTPServer(), target = FixtureHTTPServer()
        try await allowed.run { allowedBase in
            try await target.run { targetBase in
                let targetPort = try #require(URL(string: targetBase)?.port)
                let url = "\(allowedBase)/to?url=\("http://0.0.0.0:\(targetPort)/files/av.mp4".queryEscaped)"
                try await environment.withServer { client in
                    let response = try await client.execute(uri: "/thumbnail?url=\(url.queryEscaped)&t=0.5", method: .get)
                    #expect(response.status == .forbidden, "\(response.text)")
                    #expect(response.errorMessage?.contains("a redirect leads to an unspecified") == true, "\(response.text)")
                }
                #expect(target.requestCount == 0)
            }
        }
    }

    /// The server's policy, on its own: public addresses pass by default, loopback and private ones do
    /// not; the private-network flag lets them through but never link-local (cloud metadata).
    @Test func theDefaultPolicyIsPublicOnlyAndTheFlagNeverOpensMetadata() throws {
        let url = try #require(URL(string: "http://media.example/a.mp4"))
        func verdict(_ configuration: ServerConfiguration, _ address: String) throws -> AvocetURLPolicy.Verdict {
            let ip = try #require(AvocetIPAddress(address))
            return MediaService.urlPolicy(configuration).evaluate(.init(url: url, host: "media.example", addresses: [ip], redirectCount: 0))
        }
        let defaults = ServerConfiguration()
        #expect(!defaults.allowsPrivateNetworks)
        #expect(try verdict(defaults, "93.184.216.34") == .allow)
        for refused in ["127.0.0.1", "10.0.0.1", "192.168.1.1", "169.254.169.254", "::1", "fd00::1"] {
            #expect(try verdict(defaults, refused) != .allow, "\(refused)")
        }
        let lan = ServerConfiguration(allowsPrivateNetworks: true)
        #expect(try verdict(lan, "10.0.0.1") == .allow)
        #expect(try verdict(lan, "127.0.0.1") == .allow)
        #expect(try verdict(lan, "169.254.169.254") != .allow, "metadata services stay out of reach")
        let listed = ServerConfiguration(allowedRemoteHosts: ["cdn.example"])
        #expect(try verdict(listed, "93.184.216.34") != .allow, "a host off the list")
    }

    /// One remote source may cost at most `maxRemoteSourceBytes`: past it the work fails with 502.
    @Test func aRemoteSourceThatCostsTooManyBytesFails() async throws {
        let environment = try TestEnvironment {
            $0.allowsPrivateNetworks = true
            $0.maxRemoteSourceBytes = 4096
        }
        defer { environment.remove() }
        try await FixtureHTTPServer().run { base in
            try await environment.withServer { client in
                let url = "\(base)/files/frames-h264.mp4"
                let response = try await client.execute(uri: "/thumbnail?url=\(url.queryEscaped)&t=1", method: .get)
                #expect(response.status == .badGateway, "\(response.text)")
                #expect(response.errorMessage?.contains("more than 4096 bytes") == true, "\(response.text)")
            }
        }
    }
}
