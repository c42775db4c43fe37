import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// Avocet's URL policy for http(s) assets (`AvocetURLAssetURLPolicyKey`): every connection is checked
/// on the address it resolves to, in every spelling of a host, at every redirect hop and for every
/// resource an HLS playlist names; a refusal fails the load with
/// `AVError.referenceForbiddenByReferencePolicy`, names the rule, and never reaches the listener.
@Suite("URL policy")
struct URLPolicyTests {
    static var quick: [String: Any] { [AvocetURLAssetHTTPConnectTimeoutKey: 5.0, AvocetURLAssetHTTPReadTimeoutKey: 5.0] }

    static let movie = URL(fileURLWithPath: Fixtures.path("av.mp4"))

    /// The movie's duration, read from the file.
    static func movieDuration() async throws -> Double { try await AVURLAsset(url: movie).load(.duration).seconds }

    static func options(_ policy: AvocetURLPolicy, _ extra: [String: Any] = [:]) -> [String: Any] {
        var options = quick.merging(extra) { $1 }
        options[AvocetURLAssetURLPolicyKey] = policy
        return options
    }

    /// The AVError a load of `url` fails with; records an issue when it loads.
    func failure(_ url: URL, options: [String: Any]) async -> AVError? {
        do {
            let duration = try await AVURLAsset(url: url, options: options).load(.duration)
            Issue.record("\(url): loaded \(duration.seconds) s, expected a failure")
        } catch let error as AVError {
            return error
        } catch {
            Issue.record("\(url): \(error), expected an AVError")
        }
        return nil
    }

    /// Allows exactly the addresses given (tests need loopback allowed, and another loopback address refused).
    static func only(_ allowed: Set<String>, followsRedirects: Bool = true, maximumRedirects: Int = 16,
                     seen: Locked<[AvocetURLPolicy.Connection]>? = nil) -> AvocetURLPolicy {
        AvocetURLPolicy(followsRedirects: followsRedirects, maximumRedirects: maximumRedirects) { connection in
            seen?.withLock { $0.append(connection) }
            return connection.addresses.allSatisfy { allowed.contains($0.description) } ? .allow : .refuse(rule: "not on the test's list")
        }
    }

    @Test(arguments: [
        ("127.0.0.1", .loopback), ("127.255.1.2", .loopback), ("::1", .loopback), ("[::1]", .loopback),
        ("::ffff:127.0.0.1", .loopback), ("64:ff9b::7f00:1", .loopback), ("2002:7f00:1::", .loopback),
        ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("192.168.1.1", .privateNetwork), ("fc00::1", .privateNetwork), ("fdff::1", .privateNetwork),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal), ("::ffff:169.254.169.254", .linkLocal),
        ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast),
        ("255.255.255.255", .broadcast), ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
        ("240.0.0.1", .reserved), ("192.0.2.1", .reserved), ("198.18.0.1", .reserved), ("2001:db8::1", .reserved),
        ("::2", .reserved), ("2001::1", .reserved),
        ("93.184.216.34", .publicInternet), ("172.32.0.1", .publicInternet), ("100.128.0.1", .publicInternet),
        ("2606:4700::1111", .publicInternet), ("::ffff:8.8.8.8", .publicInternet), ("11.0.0.1", .publicInternet),
    ] as [(String, AvocetIPAddress.Category)])
    func addressesAreClassified(text: String, category: AvocetIPAddress.Category) throws {
        let address = try #require(AvocetIPAddress(text))
        #expect(address.category == category, "\(text) is \(address.category)")
    }

    @Test func looseFormsAreNotNumericAddressesButResolveToOne() throws {
        for loose in ["127.1", "2130706433", "0x7f000001", "localhost"] {
            #expect(AvocetIPAddress(loose) == nil, "\(loose) is no address in the strict form")
        }
        #expect(try #require(AvocetIPAddress("::ffff:127.0.0.1")).embeddedIPv4 == AvocetIPAddress("127.0.0.1"))
        #expect(AvocetIPAddress(bytes: [1, 2, 3]) == nil)
        #expect(AvocetIPAddress(bytes: [8, 8, 4, 4])?.description == "8.8.4.4")
    }

    @Test func thePublicPolicyAllowsPublicAddressesAndNamesTheRuleItRefusesBy() throws {
        let url = try #require(URL(string: "https://media.example/clip.mp4"))
        let publicAddress = try #require(AvocetIPAddress("93.184.216.34"))
        let metadata = try #require(AvocetIPAddress("169.254.169.254"))
        let policy = AvocetURLPolicy.publicInternetOnly
        #expect(policy.evaluate(.init(url: url, host: "media.example", addresses: [publicAddress], redirectCount: 0)) == .allow)
        // One bad address among good ones is enough to refuse: the client may pick any of them.
        let verdict = policy.evaluate(.init(url: url, host: "media.example", addresses: [publicAddress, metadata], redirectCount: 2))
        guard case .refuse(let rule) = verdict else { Issue.record("\(verdict)"); return }
        #expect(rule.contains("a redirect leads to a link-local address"), "\(rule)")
        #expect(!rule.contains("169.254"), "the rule never names the address")
    }

    /// Each spelling of loopback, refused before any byte is sent: the listener sees no request, and
    /// the message names the rule and not the address the host resolved to.
    @Test(arguments: ["127.0.0.1", "localhost", "LOCALHOST.", "media.localhost", "127.1", "2130706433", "0x7f000001", "[::ffff:127.0.0.1]",
                      "[::1]", "0.0.0.0", "127.0.0.2"])
    func everySpellingOfLoopbackIsRefused(host: String) async throws {
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)])
        let url = try #require(URL(string: "http://\(host):\(server.port)/av.mp4"))
        let error = try #require(await failure(url, options: Self.options(.publicInternetOnly)))
        #expect(error.code == .referenceForbiddenByReferencePolicy, "\(host): \(error.localizedDescription)")
        let message = error.localizedDescription
        #expect(message.contains("refused by the URL policy: the host resolves to"), "\(message)")
        #expect(message.contains("loopback") || message.contains("unspecified"), "\(message)")
        if !host.contains("127.0.0.1") { #expect(!message.contains("127.0.0.1"), "\(message)") }
        #expect(server.requests.isEmpty, "no request reached the listener")
    }

    /// Apple's default stays: without a policy an asset follows a redirect to another loopback host.
    @Test func withoutAPolicyRedirectsAreFollowedAsOnApplesPlatforms() async throws {
        let target = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)], address: "127.0.0.2")
        let server = try LoopbackHTTPServer(routes: ["/r.mp4": .redirect(to: target.url("/av.mp4").absoluteString)])
        let duration = try await AVURLAsset(url: server.url("/r.mp4"), options: Self.quick).load(.duration)
        #expect(duration.seconds == (try await Self.movieDuration()))
        #expect(!target.requests.isEmpty)
    }

    /// An allowed host that redirects to a host the policy refuses: the hop is checked and refused
    /// before connecting, and the message does not repeat the redirect's target.
    @Test func aRedirectToARefusedAddressIsNotFollowed() async throws {
        let target = try LoopbackHTTPServer(routes: ["/secret.mp4": .file(Self.movie)], address: "127.0.0.2")
        let server = try LoopbackHTTPServer(routes: ["/r.mp4": .redirect(to: target.url("/secret.mp4").absoluteString)])
        let seen = Locked<[AvocetURLPolicy.Connection]>([])
        let error = try #require(await failure(server.url("/r.mp4"), options: Self.options(Self.only(["127.0.0.1"], seen: seen))))
        #expect(error.code == .referenceForbiddenByReferencePolicy)
        #expect(error.localizedDescription.contains("not on the test's list"), "\(error.localizedDescription)")
        #expect(!error.localizedDescription.contains("127.0.0.2") && !error.localizedDescription.contains("secret"))
        #expect(target.requests.isEmpty, "the refused host saw no request")
        #expect(server.requests.map(\.path).allSatisfy { $0 == "/r.mp4" } && !server.requests.isEmpty)
        let hops = seen.withLock { $0 }
        #expect(hops.contains { $0.redirectCount == 1 && $0.url.host == "127.0.0.2" }, "the policy was asked about the hop")
    }

    /// Allowed hops are followed (relative and absolute), each one asked about, and an http
    /// connection goes to the address checked with the URL's own Host header (pinned).
    @Test func allowedRedirectsAreFollowedAndHTTPIsPinnedToTheAddressChecked() async throws {
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)])
        // Two hops, relative then absolute by name to the other server: the Host header shows the name
        // while the connection goes to the address checked.
        let named = try LoopbackHTTPServer(routes: [
            "/a.mp4": .redirect(to: "/b.mp4"),
            "/b.mp4": .redirect(to: "http://localhost:\(server.port)/av.mp4", status: 307),
        ])
        let seen = Locked<[AvocetURLPolicy.Connection]>([])
        let asset = AVURLAsset(url: try #require(URL(string: "http://localhost:\(named.port)/a.mp4")),
                               options: Self.options(Self.only(["127.0.0.1", "::1"], seen: seen)))
        let duration = try await asset.load(.duration)
        #expect(duration.seconds == (try await Self.movieDuration()))
        let hops = seen.withLock { $0 }
        #expect(hops.first?.redirectCount == 0 && hops.first?.host == "localhost")
        #expect(hops.contains { $0.redirectCount == 2 && $0.url.port == server.port }, "\(hops.map(\.url))")
        let loopback = try #require(AvocetIPAddress("127.0.0.1"))
        #expect(hops.allSatisfy { $0.addresses.contains(loopback) }, "\(hops.map(\.addresses))")
        let media = server.requests.filter { $0.path == "/av.mp4" }
        #expect(!media.isEmpty)
        #expect(media.allSatisfy { $0.headers["host"] == "localhost:\(server.port)" }, "\(media.map(\.headers))")
    }

    /// The asset's credentials go to its own origin, not to another host a redirect leads to.
    @Test func credentialsStayWithTheAssetsOrigin() async throws {
        let other = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)], address: "127.0.0.2")
        let server = try LoopbackHTTPServer(routes: [
            "/here.mp4": .redirect(to: "/av.mp4"), "/av.mp4": .file(Self.movie),
            "/away.mp4": .redirect(to: other.url("/av.mp4").absoluteString),
        ])
        let options = Self.options(Self.only(["127.0.0.1", "127.0.0.2"]),
                                   [AVURLAssetHTTPHeaderFieldsKey: ["Authorization": "Bearer secret", "X-Trace": "1"]])
        _ = try await AVURLAsset(url: server.url("/here.mp4"), options: options).load(.duration)
        _ = try await AVURLAsset(url: server.url("/away.mp4"), options: options).load(.duration)
        let home = server.requests.filter { $0.path == "/av.mp4" }
        #expect(!home.isEmpty && home.allSatisfy { $0.headers["authorization"] == "Bearer secret" }, "the same origin keeps them")
        #expect(!other.requests.isEmpty)
        #expect(other.requests.allSatisfy { $0.headers["authorization"] == nil && $0.headers["x-trace"] == "1" },
                "another host gets the other fields but not the credentials: \(other.requests.map(\.headers))")
    }

    /// The byte cap takes any integer type, a Double or an NSNumber.
    @Test(arguments: [UInt64(4096), Int32(4096), 4096.0, NSNumber(value: 4096)] as [any Sendable])
    func theByteCapTakesAnyNumber(limit: any Sendable) async throws {
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)])
        let error = try #require(await failure(server.url("/av.mp4"), options: Self.quick.merging([AvocetURLAssetHTTPMaximumBytesKey: limit]) { $1 }))
        #expect(error.localizedDescription.contains("more than 4096 bytes"), "\(type(of: limit)): \(error.localizedDescription)")
    }

    /// An http connection is pinned to an IPv4 address; one the policy allows only over IPv6 cannot
    /// be pinned (Foundation's URLSession on Linux cannot request an IPv6 literal) and is refused,
    /// never made by name.
    @Test func anHTTPHostWithoutIPv4IsRefusedRatherThanConnectedByName() async throws {
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)])
        let url = try #require(URL(string: "http://[::1]:\(server.port)/av.mp4"))
        let error = try #require(await failure(url, options: Self.options(Self.only(["::1"]))))
        #expect(error.code == .referenceForbiddenByReferencePolicy)
        #expect(error.localizedDescription.contains("must resolve to an IPv4 address"), "\(error.localizedDescription)")
        #expect(server.requests.isEmpty)
    }

    @Test func aPolicyThatFollowsNoRedirectsRefusesThem() async throws {
        let server = try LoopbackHTTPServer(routes: ["/r.mp4": .redirect(to: "/av.mp4"), "/av.mp4": .file(Self.movie)])
        let error = try #require(await failure(server.url("/r.mp4"), options: Self.options(Self.only(["127.0.0.1"], followsRedirects: false))))
        #expect(error.code == .referenceForbiddenByReferencePolicy)
        #expect(error.localizedDescription.contains("follows no redirects"), "\(error.localizedDescription)")
        #expect(!server.requests.contains { $0.path == "/av.mp4" })
    }

    @Test func aRedirectLoopEndsAtTheLimit() async throws {
        let server = try LoopbackHTTPServer(routes: ["/loop.mp4": .redirect(to: "/loop.mp4")])
        let error = try #require(await failure(server.url("/loop.mp4"), options: Self.options(Self.only(["127.0.0.1"], maximumRedirects: 3))))
        #expect(error.code == .referenceForbiddenByReferencePolicy)
        #expect(error.localizedDescription.contains("more than 3 redirects"), "\(error.localizedDescription)")
        #expect(server.requests.count >= 4, "the first request and 3 hops")
    }

    /// A playlist on an allowed host naming segments on a refused one: the segments are never fetched.
    @Test func anHLSPlaylistCannotLeadToARefusedHost() async throws {
        let segments = try LoopbackHTTPServer(routes: ["/seg.ts": .file(Self.movie)], address: "127.0.0.2")
        let lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
                     "#EXTINF:2.0,", segments.url("/seg.ts").absoluteString, "#EXT-X-ENDLIST"]
        let server = try LoopbackHTTPServer(routes: [
            "/list.m3u8": .data(Data((lines.joined(separator: "\n") + "\n").utf8), contentType: "application/vnd.apple.mpegurl"),
        ])
        do {
            let tracks = try await AVURLAsset(url: server.url("/list.m3u8"), options: Self.options(Self.only(["127.0.0.1"]))).load(.tracks)
            Issue.record("the playlist's segment must not load: \(tracks.count) tracks")
        } catch let error as AVError {
            #expect(!error.localizedDescription.contains("127.0.0.2"), "\(error.localizedDescription)")
        }
        #expect(!server.requests.isEmpty, "the playlist itself was read")
        #expect(segments.requests.isEmpty, "no request reached the refused host")
    }

    /// The byte cap (`AvocetURLAssetHTTPMaximumBytesKey`) counts every byte the asset receives.
    @Test func theByteCapEndsAnAssetThatReadsTooMuch() async throws {
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .file(Self.movie)])
        let options: [String: Any] = Self.quick.merging([AvocetURLAssetHTTPMaximumBytesKey: 4096]) { $1 }
        let error = try #require(await failure(server.url("/av.mp4"), options: options))
        #expect(error.code == .failedToLoadMediaData)
        #expect(error.localizedDescription.contains("more than 4096 bytes"), "\(error.localizedDescription)")
        // A cap above the file's size changes nothing.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Fixtures.path("av.mp4"))[.size] as? Int)
        let roomy = Self.quick.merging([AvocetURLAssetHTTPMaximumBytesKey: Int64(size * 4)]) { $1 }
        let duration = try await AVURLAsset(url: server.url("/av.mp4"), options: roomy).load(.duration)
        #expect(duration.seconds == (try await Self.movieDuration()))
    }
}
