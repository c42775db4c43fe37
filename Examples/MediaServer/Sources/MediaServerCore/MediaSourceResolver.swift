import Foundation

/// Turns the `url` of `/thumbnail` (or the `source` of `/export`) into a `MediaSource`, refusing what
/// the server must not open.
///
/// Accepted: an upload id (a UUID `POST /inspect` answered); an `http` or `https` URL (when allowed,
/// and not naming an HLS playlist: Avocet would fetch what a playlist names; where it may connect,
/// the first request and every redirect hop, is checked by Avocet against `MediaService.urlPolicy`); a path, absolute or
/// relative to the media directory, or a `file:` URL, whose real path (symbolic links resolved) lies
/// inside the media directory. Everything else is refused: unknown schemes and malformed values (400),
/// paths resolving outside the media directory (403), names of nothing (404).
struct MediaSourceResolver: Sendable {
    let uploads: UploadStore
    /// The media directory's real path, without a trailing slash; nil when none is configured.
    let mediaRoot: String?
    let allowsRemoteURLs: Bool
    let allowedRemoteHosts: Set<String>

    init(uploads: UploadStore, configuration: ServerConfiguration) {
        self.uploads = uploads
        self.mediaRoot = configuration.mediaDirectory.flatMap { Self.realPath($0.path) }
        self.allowsRemoteURLs = configuration.allowsRemoteURLs
        self.allowedRemoteHosts = Set(configuration.allowedRemoteHosts.map(Self.normalizedHost))
    }

    /// A host as the allow-list compares it: lowercased, without IPv6 brackets or a final dot.
    static func normalizedHost(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// The longest value accepted, in characters.
    static let maxLength = 4096

    func resolve(_ value: String) throws -> MediaSource {
        guard !value.isEmpty else { throw APIError.badRequest("The source is empty: give an upload id, an http(s) URL or a path inside the media directory.") }
        guard value.count <= Self.maxLength else { throw APIError.badRequest("The source is longer than \(Self.maxLength) characters.") }
        guard !value.contains("\0") else { throw APIError.badRequest("The source contains a NUL character.") }

        if let id = UUID(uuidString: value).map({ $0.uuidString.lowercased() }) {
            guard let upload = uploads.upload(id: id) else {
                throw APIError.notFound("No upload \(id) is stored (uploads are kept for a limited time); upload the file again with POST /inspect.")
            }
            return MediaSource(kind: .upload(id: id), url: URL(fileURLWithPath: upload.path), displayName: "upload \(id)")
        }

        if let scheme = Self.scheme(of: value) {
            switch scheme {
            case "http", "https":
                return try remote(value)
            case "file":
                guard let url = URL(string: value), url.isFileURL, url.host == nil || url.host == "" || url.host == "localhost" else {
                    throw APIError.badRequest("The file URL \(value) is malformed; give a path inside the media directory.")
                }
                return try file(url.path, shownAs: value)
            default:
                throw APIError.badRequest("The scheme \(scheme): is not supported; give an upload id, an http(s) URL or a path inside the media directory.")
            }
        }
        return try file(value, shownAs: value)
    }

    /// The scheme of a value that looks like a URL (`letters:`, two letters or more, so that a path
    /// with a colon later on is still a path), lowercased.
    private static func scheme(of value: String) -> String? {
        guard let colon = value.firstIndex(of: ":") else { return nil }
        let candidate = value[..<colon]
        guard candidate.count >= 2, let first = candidate.first, first.isASCII, first.isLetter,
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return candidate.lowercased()
    }

    private func remote(_ value: String) throws -> MediaSource {
        guard allowsRemoteURLs else { throw APIError.forbidden("This server does not fetch remote URLs.") }
        guard let url = URL(string: value), let host = url.host, !host.isEmpty else {
            throw APIError.badRequest("The URL \(value) is malformed.")
        }
        if !allowedRemoteHosts.isEmpty && !allowedRemoteHosts.contains(Self.normalizedHost(host)) {
            throw APIError.forbidden("The host \(host) is not one this server fetches from.")
        }
        // Avocet reads an http(s) URL ending in .m3u8 or .m3u as an HLS playlist and fetches what it
        // names: more than the request names, so it is refused. (Any other URL is read as one file:
        // a playlist served under another name is refused by Avocet as not media.)
        if ["m3u8", "m3u"].contains(url.pathExtension.lowercased()) {
            throw APIError.badRequest("The URL names an HLS playlist, which would make the server fetch the resources it lists; give the URL of one media file.")
        }
        return MediaSource(kind: .remote, url: url, displayName: value)
    }

    private func file(_ path: String, shownAs shown: String) throws -> MediaSource {
        guard let root = mediaRoot else {
            throw APIError.forbidden("This server has no media directory: file paths are not accepted.")
        }
        let joined = path.hasPrefix("/") ? path : root + "/" + path
        guard let real = Self.realPath(joined) else {
            // Nothing there, or a broken link: say so only for paths that stay inside by their text.
            let normalized = URL(fileURLWithPath: joined).standardizedFileURL.path
            if normalized == root || normalized.hasPrefix(root + "/") {
                throw APIError.notFound("No file \(shown) in the media directory.")
            }
            throw APIError.forbidden("The path \(shown) lies outside the media directory.")
        }
        guard real.hasPrefix(root + "/") else {
            throw APIError.forbidden("The path \(shown) lies outside the media directory (symbolic links are followed before this check).")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw APIError.badRequest("The path \(shown) is a directory, not a media file.")
        }
        return MediaSource(kind: .file, url: URL(fileURLWithPath: real), displayName: String(real.dropFirst(root.count + 1)))
    }

    /// The path with every symbolic link, `.` and `..` resolved, or nil when it names nothing.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
