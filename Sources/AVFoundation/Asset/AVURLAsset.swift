internal import MediaEngine
import Foundation

/// Option key: a Bool asking for an exact duration and precise timing even where the file's header only
/// estimates them (a VBR MP3 without a Xing header). Costs one pass over the file's packets, only for
/// such files.
public let AVURLAssetPreferPreciseDurationAndTimingKey = "AVURLAssetPreferPreciseDurationAndTimingKey"
/// Option key: a Bool; recorded, meaningful for network assets only.
public let AVURLAssetAllowsCellularAccessKey = "AVURLAssetAllowsCellularAccessKey"
public let AVURLAssetAllowsExpensiveNetworkAccessKey = "AVURLAssetAllowsExpensiveNetworkAccessKey"
public let AVURLAssetAllowsConstrainedNetworkAccessKey = "AVURLAssetAllowsConstrainedNetworkAccessKey"
public let AVURLAssetHTTPCookiesKey = "AVURLAssetHTTPCookiesKey"
public let AVURLAssetHTTPUserAgentKey = "AVURLAssetHTTPUserAgentKey"
public let AVURLAssetOverrideMIMETypeKey = "AVURLAssetOverrideMIMETypeKey"
public let AVURLAssetPrimarySessionIdentifierKey = "AVURLAssetPrimarySessionIdentifierKey"
public let AVURLAssetReferenceRestrictionsKey = "AVURLAssetReferenceRestrictionsKey"

/// An asset read from a URL. Local files are read directly with positional reads.
///
/// Creating one does no I/O; properties load on demand (see `AVAsset`). Schemes other than `file`
/// (HTTP, custom schemes served by a resource loader) fail to load with
/// `AVError(.failedToLoadMediaData)` in this version.
public class AVURLAsset: AVAsset, @unchecked Sendable {
    public let url: URL
    private let preciseTiming: Bool
    /// Whether the bytes come from a source other than `url` (tests inject slow or failing sources).
    private let injectedSource: Bool

    /// An asset for `URL`. `options` takes the `AVURLAsset...Key` constants; only
    /// `AVURLAssetPreferPreciseDurationAndTimingKey` changes what file assets do.
    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        self.preciseTiming = (options?[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool) ?? false
        self.injectedSource = false
        // Worked out once: the URL does not change, and each load opens the file afresh.
        let path = Result { try AVURLAsset.localPath(of: URL) }
        super.init { try FileByteSource(path: path.get()) }
    }

    /// An asset that reads through `source` (internal: for tests with slow or failing sources).
    init(url URL: URL, options: [String: Any]? = nil, source: any ByteSource) {
        self.url = URL
        self.preciseTiming = (options?[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool) ?? false
        self.injectedSource = true
        super.init { source }
    }

    override var prefersPreciseDurationAndTiming: Bool { preciseTiming }

    public override var description: String { "<AVURLAsset url=\(url.absoluteString)>" }

    override func immediateFailure() -> AVError? {
        if injectedSource { return nil }
        do {
            let path = try AVURLAsset.localPath(of: url)
            if !FileManager.default.fileExists(atPath: path) {
                return AVError(engineError: MediaEngineError(.fileNotFound, source: path, operation: "open", reason: "no such file"))
            }
            return nil
        } catch let error as AVError {
            return error
        } catch {
            return nil
        }
    }

    private static func localPath(of url: URL) throws -> String {
        guard url.isFileURL else {
            throw AVError(.failedToLoadMediaData, userInfo: [
                NSLocalizedDescriptionKey: "\(url.absoluteString): cannot open: only file URLs are supported in this version",
                NSURLErrorKey: url,
            ])
        }
        return url.path
    }

    /// The file types Avocet reads.
    public class func audiovisualTypes() -> [AVFileType] {
        [.mov, .mp4, .m4v, .m4a, .mp3, .wav, .aiff, .aifc, .caf, .ac3, .eac3, .amr, .mobile3GPP, .mobile3GPP2, .au,
         .mkv, .webm, .flac, .ogg]
    }

    /// The MIME types Avocet reads.
    public class func audiovisualMIMETypes() -> [String] {
        ["video/quicktime", "video/mp4", "video/x-m4v", "audio/mp4", "audio/x-m4a", "audio/mpeg", "audio/mp3", "audio/wav",
         "audio/x-wav", "audio/aiff", "audio/x-aiff", "audio/x-caf", "audio/ac3", "audio/eac3", "audio/amr", "video/3gpp",
         "video/3gpp2", "audio/basic", "video/x-matroska", "audio/x-matroska", "video/webm", "audio/webm", "audio/flac",
         "audio/ogg", "video/ogg", "audio/opus"]
    }

    /// Whether a MIME type (with optional codecs parameter) names a type Avocet reads.
    public class func isPlayableExtendedMIMEType(_ extendedMIMEType: String) -> Bool {
        let base = extendedMIMEType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return audiovisualMIMETypes().contains(base)
    }
}
