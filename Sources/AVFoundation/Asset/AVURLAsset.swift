internal import MediaEngine
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Option key: a Bool asking for an exact duration and precise timing even where the file's header only
/// estimates them (a VBR MP3 without a Xing header). Costs one pass over the file's packets, only for
/// such files.
public let AVURLAssetPreferPreciseDurationAndTimingKey = "AVURLAssetPreferPreciseDurationAndTimingKey"
/// Option key: a Bool; accepted and ignored.
public let AVURLAssetAllowsCellularAccessKey = "AVURLAssetAllowsCellularAccessKey"
/// Option key: a Bool; accepted and ignored.
public let AVURLAssetAllowsExpensiveNetworkAccessKey = "AVURLAssetAllowsExpensiveNetworkAccessKey"
/// Option key: a Bool; accepted and ignored.
public let AVURLAssetAllowsConstrainedNetworkAccessKey = "AVURLAssetAllowsConstrainedNetworkAccessKey"
/// Option key: `[HTTPCookie]` sent in a `Cookie` header with every HTTP request of the asset.
public let AVURLAssetHTTPCookiesKey = "AVURLAssetHTTPCookiesKey"
/// Option key: a String sent as the `User-Agent` header of every HTTP request of the asset.
public let AVURLAssetHTTPUserAgentKey = "AVURLAssetHTTPUserAgentKey"
/// Option key: a MIME type String; an HLS playlist type (`application/vnd.apple.mpegurl` and the like)
/// makes an http(s) asset read as HTTP Live Streaming whatever its path.
public let AVURLAssetOverrideMIMETypeKey = "AVURLAssetOverrideMIMETypeKey"
/// Option key: accepted and ignored.
public let AVURLAssetPrimarySessionIdentifierKey = "AVURLAssetPrimarySessionIdentifierKey"
/// Option key: accepted and ignored (Avocet never follows references to other files).
public let AVURLAssetReferenceRestrictionsKey = "AVURLAssetReferenceRestrictionsKey"
/// Option key: a `[String: String]` of header fields sent with every HTTP request of the asset (the
/// key apps use for authorization headers on Apple's platforms).
public let AVURLAssetHTTPHeaderFieldsKey = "AVURLAssetHTTPHeaderFieldsKey"
/// Option key (Avocet's own): seconds an HTTP asset waits for a server's first answer to a request
/// before failing; a Double, 15 by default.
public let AvocetURLAssetHTTPConnectTimeoutKey = "AvocetURLAssetHTTPConnectTimeoutKey"
/// Option key (Avocet's own): seconds an HTTP asset waits for more bytes of a response before failing;
/// a Double, 30 by default.
public let AvocetURLAssetHTTPReadTimeoutKey = "AvocetURLAssetHTTPReadTimeoutKey"
/// Option key (Avocet's own): an ``AvocetURLPolicy`` that every connection of an http(s) asset must
/// pass (the first request, each redirect hop, each HLS playlist, segment and key, the http(s) URLs a
/// resource loader delegate redirects to), such as ``AvocetURLPolicy/publicInternetOnly``. Without it
/// the asset connects wherever its URL and redirects lead, as Apple's do.
public let AvocetURLAssetURLPolicyKey = "AvocetURLAssetURLPolicyKey"
/// Option key (Avocet's own): the most bytes an asset may receive over HTTP in all, over every request,
/// resource and reading of it (any integer type, a `Double` or an `NSNumber`); past it reads fail with
/// ``AVError/Code-swift.enum/failedToLoadMediaData``. No cap by default. The bodies of redirects Avocet
/// follows for a URL policy are not counted (Foundation keeps them to itself); the connect timeout bounds
/// them.
public let AvocetURLAssetHTTPMaximumBytesKey = "AvocetURLAssetHTTPMaximumBytesKey"

/// An asset read from a URL: a local file, a web server, or bytes a resource loader's delegate serves.
///
/// Creating one does no I/O; properties load on demand (see ``AVAsset``). `file` URLs are read directly
/// with positional reads. `http` and `https` URLs are read with range requests through Foundation's
/// `URLSession` into a bounded cache (reading ahead, as for any network source); the options take
/// ``AVURLAssetHTTPHeaderFieldsKey``, ``AVURLAssetHTTPUserAgentKey``, ``AVURLAssetHTTPCookiesKey``,
/// Avocet's two timeout keys, its URL policy (``AvocetURLAssetURLPolicyKey``) and its byte cap
/// (``AvocetURLAssetHTTPMaximumBytesKey``). URLs of any other scheme (a custom one such as
/// `archive://clip.mp4`) are served by the delegate of ``resourceLoader``: set it before loading.
open class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The URL the asset reads.
    public let url: URL
    /// Serves the asset's bytes for URLs Avocet does not load itself. Set its delegate before loading.
    public let resourceLoader: AVAssetResourceLoader
    private let preciseTiming: Bool
    /// Whether the bytes come from the file at `url` (not a server, a delegate or, in tests, a source
    /// given): only then can a missing file be reported before any work.
    private let isLocalFile: Bool

    /// An asset for `URL`. Does no I/O: a missing file or an unreachable server is reported by the
    /// first load.
    ///
    /// - Parameters:
    ///   - URL: A `file` URL, an `http` or `https` URL (an `.m3u8` or `.m3u` path is read as HTTP Live
    ///     Streaming), or a URL of another scheme for the ``resourceLoader``'s delegate.
    ///   - options: The `AVURLAsset...Key` and `AvocetURLAsset...Key` constants; only
    ///     ``AVURLAssetPreferPreciseDurationAndTimingKey`` changes what file assets do.
    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        self.preciseTiming = (options?[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool) ?? false
        let loader = AVAssetResourceLoader(url: URL)
        resourceLoader = loader
        if URL.isFileURL {
            isLocalFile = true
            let path = URL.path
            super.init { try FileByteSource(path: path) }
        } else if AVURLAsset.isWeb(URL) {
            isLocalFile = false
            let http = AVURLAsset.httpFeeders(options, assetURL: URL)
            let feed = { @Sendable (url: Foundation.URL) in BufferedByteSource(feeder: http(url)) }
            let buffered = feed(URL)
            if AVURLAsset.isPlaylist(URL, options: options) {
                // HLS: the playlist names media playlists and segments; each is opened (http and https
                // only) through a buffered source of its own, with the asset's headers and timeouts.
                var demuxing = DemuxerOptions()
                demuxing.nestedSources = NestedSources { name in
                    guard let nested = Foundation.URL(string: name), AVURLAsset.isWeb(nested) else {
                        throw MediaEngineError(.notMedia, source: URL.absoluteString, operation: "open",
                                               reason: "the playlist names a resource that is not an http or https URL; it is not opened")
                    }
                    return feed(nested)
                }
                // A playlist's open reads many resources: it waits for them on its engine thread (set
                // aside while it waits) rather than starting over for each.
                super.init(feed: buffered, restartsHeaderParse: false, options: demuxing)
            } else {
                super.init(feed: buffered)
            }
        } else {
            isLocalFile = false
            // One cache per asset, shared by every piece of work on it.
            let http = AVURLAsset.httpFeeders(options, assetURL: URL)
            let buffered = BufferedByteSource(feeder: ResourceLoaderFeeder(url: URL, loader: loader) { target in
                AVURLAsset.isWeb(target) ? http(target) : nil
            })
            super.init(feed: buffered)
        }
    }

    /// Whether Avocet reads `url` over HTTP itself: an `http` or `https` URL.
    private static func isWeb(_ url: URL) -> Bool {
        ["http", "https"].contains(url.scheme?.lowercased())
    }

    /// Whether an http(s) URL names an HTTP Live Streaming playlist: its path ends in `.m3u8` or `.m3u`,
    /// or `AVURLAssetOverrideMIMETypeKey` says so.
    private static func isPlaylist(_ url: URL, options: [String: Any]?) -> Bool {
        if let mime = options?[AVURLAssetOverrideMIMETypeKey] as? String {
            return ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"]
                .contains(mime.lowercased())
        }
        return ["m3u8", "m3u"].contains(url.pathExtension.lowercased())
    }

    /// Makes feeders for http(s) URLs with the asset's headers, timeouts, URL policy and byte cap, from
    /// its options. The feeders it makes share one byte budget: the cap is the asset's.
    private static func httpFeeders(_ options: [String: Any]?, assetURL: URL) -> @Sendable (URL) -> HTTPFeeder {
        let maximumBytes = byteCount(options?[AvocetURLAssetHTTPMaximumBytesKey])
        let settings = HTTPConnectionSettings(
            headers: httpHeaders(options),
            connectTimeout: (options?[AvocetURLAssetHTTPConnectTimeoutKey] as? Double) ?? 15,
            readTimeout: (options?[AvocetURLAssetHTTPReadTimeoutKey] as? Double) ?? 30,
            policy: options?[AvocetURLAssetURLPolicyKey] as? AvocetURLPolicy,
            budget: maximumBytes.map { HTTPByteBudget(limit: $0) },
            assetURL: assetURL)
        return { url in HTTPFeeder(url: url, settings: settings) }
    }

    /// A count of bytes given as any integer type, a finite `Double` or an `NSNumber` (negative is 0,
    /// too large is `Int64.max`); nil for anything else.
    static func byteCount(_ value: Any?) -> Int64? {
        switch value {
        case let integer as any BinaryInteger: return max(0, Int64(clamping: integer))
        case let double as Double where double.isFinite: return double >= 9.2e18 ? .max : Int64(max(0, double))
        case let number as NSNumber: return max(0, number.int64Value)
        default: return nil
        }
    }

    /// The header fields every HTTP request of the asset carries, from its options.
    private static func httpHeaders(_ options: [String: Any]?) -> [String: String] {
        var headers = (options?[AVURLAssetHTTPHeaderFieldsKey] as? [String: String]) ?? [:]
        if let agent = options?[AVURLAssetHTTPUserAgentKey] as? String { headers["User-Agent"] = agent }
        if let cookies = options?[AVURLAssetHTTPCookiesKey] as? [HTTPCookie], !cookies.isEmpty {
            for (field, value) in HTTPCookie.requestHeaderFields(with: cookies) { headers[field] = value }
        }
        return headers
    }

    /// An asset that reads through `source` (internal: for tests with slow or failing sources).
    init(url URL: URL, options: [String: Any]? = nil, source: any ByteSource) {
        self.url = URL
        self.preciseTiming = (options?[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool) ?? false
        self.isLocalFile = false
        resourceLoader = AVAssetResourceLoader(url: URL)
        super.init { source }
    }

    override var prefersPreciseDurationAndTiming: Bool { preciseTiming }

    /// The asset's URL.
    open override var description: String { "<AVURLAsset url=\(url.absoluteString)>" }

    override func immediateFailure() -> AVError? {
        guard isLocalFile, !FileManager.default.fileExists(atPath: url.path) else { return nil }
        return AVError(engineError: MediaEngineError(.fileNotFound, source: url.path, operation: "open", reason: "no such file"))
    }

    /// The file types Avocet reads.
    ///
    /// - Returns: Apple's types Avocet reads, then Avocet's additions (``AVFileType/mkv``,
    ///   ``AVFileType/webm``, ``AVFileType/flac``, ``AVFileType/ogg``).
    open class func audiovisualTypes() -> [AVFileType] {
        [.mov, .mp4, .m4v, .m4a, .mp3, .wav, .aiff, .aifc, .caf, .ac3, .eac3, .amr, .mobile3GPP, .mobile3GPP2, .au,
         .mkv, .webm, .flac, .ogg]
    }

    /// The MIME types Avocet reads.
    open class func audiovisualMIMETypes() -> [String] {
        ["video/quicktime", "video/mp4", "video/x-m4v", "audio/mp4", "audio/x-m4a", "audio/mpeg", "audio/mp3", "audio/wav",
         "audio/x-wav", "audio/aiff", "audio/x-aiff", "audio/x-caf", "audio/ac3", "audio/eac3", "audio/amr", "video/3gpp",
         "video/3gpp2", "audio/basic", "video/x-matroska", "audio/x-matroska", "video/webm", "audio/webm", "audio/flac",
         "audio/ogg", "video/ogg", "audio/opus"]
    }

    /// Whether a MIME type (with optional codecs parameter) names a type Avocet reads.
    ///
    /// - Parameter extendedMIMEType: A MIME type such as `video/mp4; codecs="avc1.64001f"`.
    /// - Returns: True when the type before any parameter is one of ``audiovisualMIMETypes()``, in any
    ///   case; the codecs parameter is not checked.
    open class func isPlayableExtendedMIMEType(_ extendedMIMEType: String) -> Bool {
        let base = extendedMIMEType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return audiovisualMIMETypes().contains(base)
    }
}
