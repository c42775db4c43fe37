import Foundation

/// Which servers an `http`/`https` asset may reach, and whether it follows redirects (Avocet's addition,
/// for servers that open URLs strangers give them; Apple's AVFoundation has no such option). Given as
/// ``AvocetURLAssetURLPolicyKey`` in ``AVURLAsset``'s options; without it an asset connects wherever its
/// URL and every redirect lead, as on Apple's platforms.
///
/// The policy is asked about **every connection** the asset makes: the first request, each redirect
/// hop, each HLS playlist, segment and key, and the http(s) URLs a resource loader delegate redirects
/// to. Before each one the URL's host is resolved by the system's resolver, on a thread of its own
/// (never Dispatch's or Swift's shared pools; at most 16 lookups in flight in the process, one more
/// fails at once) within the asset's connect timeout, and the policy sees the URL and every address
/// the host resolved to (`localhost` and names under `.localhost` count as loopback whatever DNS says,
/// as libcurl treats them). A connection it allows is made:
///
/// - for `http`, to the address checked, **pinned**: the request goes to the first IPv4 address the
///   host resolved to, with the original `Host` header, so a name that resolves elsewhere a moment
///   later changes nothing. A host with no IPv4 address is refused over `http` (Foundation's
///   `URLSession` on Linux cannot request a URL whose host is an IPv6 literal, so such a connection
///   could not be pinned);
/// - for `https`, by libcurl, which resolves the host again (it must, to check the certificate against
///   the name): a DNS server that answers differently between the check and the connection (DNS
///   rebinding, with a time-to-live of zero) could still lead it to an address the check did not see.
///   Where that matters, give such servers plain `http` URLs, or resolve names on a resolver you trust.
///
/// Two more things the check cannot see: a proxy libcurl takes from the environment (`http_proxy`,
/// `https_proxy`, `all_proxy`) receives `https` connections by name and resolves them itself, so run
/// servers that use a policy without those variables (pinned `http` still names the checked address);
/// and addresses that are internal only by a provider's convention, outside IANA's special-purpose
/// ranges (Azure's 168.63.129.16, a NAT64 prefix other than 64:ff9b::/96): a policy of your own can
/// refuse those too.
///
/// Assets with a policy use a `URLSession` of their own, so their connections are never ones an
/// unchecked asset opened. Credentials in the asset's header fields (`Authorization`, `Cookie`) go to
/// the asset's own origin only, never to another host a redirect leads to.
///
/// With a policy, Avocet follows redirects itself, one hop at a time (at most ``maximumRedirects``,
/// `http` and `https` only), checking each target before connecting. A refused connection fails the
/// load with ``AVError/Code-swift.enum/referenceForbiddenByReferencePolicy``, whose message names the
/// rule that refused it, never the address a host resolved to nor the target of a redirect.
public struct AvocetURLPolicy: Sendable {
    /// A connection about to be made, as the policy sees it.
    public struct Connection: Sendable {
        /// The URL of the request (for a redirect hop, the target of the redirect).
        public let url: URL
        /// The URL's host as Foundation reads it (percent-decoded, without IPv6 brackets).
        public let host: String
        /// Every address the host resolved to, in the resolver's order (never empty). For `http` the
        /// connection goes to the first; for `https`, libcurl picks among those it resolves itself.
        public let addresses: [AvocetIPAddress]
        /// How many redirects led here: 0 for the first request of a resource.
        public let redirectCount: Int

        /// A connection as Avocet asks about it (public so that policies can be tested on their own).
        ///
        /// - Parameters:
        ///   - url: The URL of the request.
        ///   - host: The URL's host, percent-decoded, without IPv6 brackets.
        ///   - addresses: The addresses the host resolved to, in the resolver's order.
        ///   - redirectCount: How many redirects led here; 0 for a first request.
        public init(url: URL, host: String, addresses: [AvocetIPAddress], redirectCount: Int) {
            self.url = url
            self.host = host
            self.addresses = addresses
            self.redirectCount = redirectCount
        }

        /// Whether a redirect led to this connection.
        public var isRedirect: Bool { redirectCount > 0 }
    }

    /// What a policy says of a connection.
    public enum Verdict: Hashable, Sendable {
        /// Allow the connection.
        case allow
        /// Refuse, naming the rule in words for the error message (for example "the host resolves to a
        /// loopback address"). Say what the rule is, not the address: the message may reach the person
        /// who gave the URL.
        case refuse(rule: String)
    }

    /// Whether redirects are followed (each hop asked about again). When false a redirect fails the load.
    public var followsRedirects: Bool
    /// The most redirects followed for one request; one more fails the load.
    public var maximumRedirects: Int
    private let decide: @Sendable (Connection) -> Verdict

    /// A policy that asks `decide` about each connection.
    ///
    /// - Parameters:
    ///   - followsRedirects: Whether redirects are followed, each hop asked about again; with false, a
    ///     redirect fails the load.
    ///   - maximumRedirects: The most redirects followed for one request (a negative count counts as 0).
    ///   - decide: The verdict on a connection. Runs on a resolver thread, once per connection; it must
    ///     not block for long.
    public init(followsRedirects: Bool = true, maximumRedirects: Int = 16,
                decide: @escaping @Sendable (Connection) -> Verdict) {
        self.followsRedirects = followsRedirects
        self.maximumRedirects = max(0, maximumRedirects)
        self.decide = decide
    }

    /// This policy's verdict on `connection`: what the policy's closure says (the built-in policies do
    /// no I/O).
    ///
    /// - Parameter connection: The connection about to be made.
    /// - Returns: ``Verdict/allow``, or ``Verdict/refuse(rule:)`` with the rule in words.
    public func evaluate(_ connection: Connection) -> Verdict {
        decide(connection)
    }

    /// Allows a connection only when every address its host resolves to is of one of `categories`.
    /// The refusal names the category found, as "the host resolves to a loopback address" (or "a
    /// redirect leads to ..." on a redirect hop).
    ///
    /// - Parameters:
    ///   - categories: The kinds of network the asset may reach, such as
    ///     ``AvocetIPAddress/Category/publicInternet``.
    ///   - followsRedirects: Whether redirects are followed, each hop checked.
    ///   - maximumRedirects: The most redirects followed for one request.
    /// - Returns: A policy that checks every address of every connection.
    public static func reaching(_ categories: Set<AvocetIPAddress.Category>, followsRedirects: Bool = true,
                                maximumRedirects: Int = 16) -> AvocetURLPolicy {
        AvocetURLPolicy(followsRedirects: followsRedirects, maximumRedirects: maximumRedirects) { connection in
            guard let outside = connection.addresses.first(where: { !categories.contains($0.category) }) else {
                return .allow
            }
            let lead = connection.isRedirect ? "a redirect leads to" : "the host resolves to"
            return .refuse(rule: "\(lead) \(outside.category.phrase), which this asset's URL policy does not reach")
        }
    }

    /// The public internet only: refuses loopback, private, link-local (cloud metadata services among
    /// them), shared, multicast, broadcast, unspecified and reserved addresses, however the URL spells
    /// them (`localhost`, `127.1`, `2130706433`, `0x7f000001`, `[::ffff:127.0.0.1]`, or a name that
    /// resolves to one). Follows at most 16 redirects, each checked.
    public static let publicInternetOnly = reaching([.publicInternet])
}

extension AvocetIPAddress.Category {
    /// "a loopback address", for messages.
    var phrase: String {
        switch self {
        case .publicInternet: "a public address"
        case .loopback: "a loopback address"
        case .privateNetwork: "a private-network address"
        case .linkLocal: "a link-local address"
        case .sharedAddressSpace: "a shared (carrier-grade NAT) address"
        case .multicast: "a multicast address"
        case .broadcast: "the broadcast address"
        case .unspecified: "an unspecified (this-network) address"
        case .reserved: "a reserved address"
        }
    }
}
