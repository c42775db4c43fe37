import Foundation

/// What avtool's arguments name: an `http` or `https` URL, or else a path to a local file.
enum MediaLocation {
    /// The URL for an argument: a web URL as given, anything else as a file path (so a file whose
    /// name contains a colon is still a file).
    static func url(_ argument: String) -> URL {
        let lowered = argument.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: argument) {
            return url
        }
        return URL(fileURLWithPath: argument)
    }
}
