import Foundation

/// The arguments of `GET /thumbnail`, checked: `url` (the source), `t` (seconds, default 0), `w` (the
/// largest width in pixels, optional) and `exact` (`1` or `true`: the picture showing at `t`).
///
/// Parsed on the request's task from the query; every bad value is a 400 with a message naming it.
struct ThumbnailRequest: Sendable, Equatable {
    /// The largest width a client may ask for.
    static let maxWidth = 8192

    var source: String
    var time: Double
    var maxWidth: Int?
    var exact: Bool

    init(source: String, time: Double = 0, maxWidth: Int? = nil, exact: Bool = false) {
        self.source = source
        self.time = time
        self.maxWidth = maxWidth
        self.exact = exact
    }

    /// Reads the arguments from the query's values (the first of each name counts).
    init(query: (String) -> String?) throws {
        guard let source = query("url"), !source.isEmpty else {
            throw APIError.badRequest("The url argument is missing: give an upload id, an http(s) URL or a path inside the media directory.")
        }
        self.source = source

        if let text = query("t") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw APIError.badRequest("The t argument must be a finite number of seconds, 0 or more; got \(Self.quoted(text)).")
            }
            time = seconds
        } else {
            time = 0
        }

        if let text = query("w") {
            guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let width = Int(text),
                  width >= 1, width <= Self.maxWidth else {
                throw APIError.badRequest("The w argument must be a whole number of pixels from 1 to \(Self.maxWidth); got \(Self.quoted(text)).")
            }
            maxWidth = width
        } else {
            maxWidth = nil
        }

        switch query("exact")?.lowercased() {
        case nil, "0", "false": exact = false
        case "1", "true": exact = true
        case let other?: throw APIError.badRequest("The exact argument must be 1, true, 0 or false; got \(Self.quoted(other)).")
        }
    }

    /// A value for a message: quoted, and cut short when long.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "\"\(shown)\""
    }
}
