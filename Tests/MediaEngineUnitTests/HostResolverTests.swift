import Foundation
@testable import MediaEngine
import Testing

/// The resolver behind URL policies reads every numeric spelling the C library accepts (what libcurl
/// would connect to), on a thread of its own, within its deadline.
@Suite("Host resolver")
struct HostResolverTests {
    func resolve(_ host: String) async -> Result<[[UInt8]], HostResolver.Failure> {
        await withCheckedContinuation { continuation in
            HostResolver.resolve(host, within: 10) { continuation.resume(returning: $0) }
        }
    }

    @Test(arguments: ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "[::ffff:127.0.0.1]"])
    func looseSpellingsOfLoopbackResolveToIt(host: String) async throws {
        let addresses = try await resolve(host).get()
        let loopback = addresses.contains([127, 0, 0, 1]) || addresses.contains([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1])
        #expect(loopback, "\(host): \(addresses)")
    }

    @Test func strictParsingRefusesLooseForms() {
        #expect(HostResolver.numeric("127.0.0.1") == [127, 0, 0, 1])
        #expect(HostResolver.numeric("127.1") == nil)
        #expect(HostResolver.numeric("[::1]")?.count == 16)
        #expect(HostResolver.text([10, 0, 0, 1]) == "10.0.0.1")
        #expect(HostResolver.text([1, 2]) == nil)
    }

    @Test func anEmptyOrNULNameFails() async {
        for name in ["", "[]", "a\0b"] {
            if case .success(let found) = await resolve(name) { Issue.record("\(name.debugDescription) resolved to \(found)") }
        }
    }
}
