import Foundation

/// What a request names as its media: a stored upload, an `http`/`https` URL, or a file inside the
/// media directory; resolved and checked, ready to open with `AVURLAsset`.
///
/// Built on the request's task by `MediaSourceResolver` (which only does cheap file-system calls:
/// `realpath` and `stat`). `displayName` is what error messages show instead of server paths.
public struct MediaSource: Sendable {
    /// Where the bytes come from.
    public enum Kind: Sendable, Equatable {
        case upload(id: String)
        case remote
        case file
    }

    public let kind: Kind
    /// The URL given to `AVURLAsset`: a file URL with every symbolic link resolved, or the web URL.
    public let url: URL
    /// How the source is named to the client (the upload id, the URL, or the path inside the media directory).
    public let displayName: String
}
