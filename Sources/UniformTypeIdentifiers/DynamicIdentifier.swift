/// Dynamic identifiers, `dyn.a…`, as Apple's system makes them for tags no declared type claims.
///
/// The identifier encodes a specification such as `?0=6:1=srt` (conforms to `public.data`, filename
/// extension `srt`): `0` keys a conformance, other keys a tag class, and well-known identifiers are
/// abbreviated to one character. The specification's UTF-8 bytes are written five bits at a time,
/// most significant first and the last group padded with zeros, in the alphabet
/// `abcdefghkmnpqrstuvwxyz0123456789`, after `dyn.a` (`a` is the version). So `srt` becomes
/// `dyn.ah62d4rv4ge81g6xy`, as on Apple's platforms.
enum DynamicIdentifier {
    /// What a dynamic identifier says: the types it conforms to and its tags.
    struct Specification: Equatable {
        /// Identifiers of the types the dynamic type conforms to.
        var conformsTo: [String]
        /// The dynamic type's tags.
        var tags: [UTTagClass: [String]]
    }

    private static let prefix = "dyn.a"
    private static let alphabet = Array("abcdefghkmnpqrstuvwxyz0123456789".utf8)

    /// The one-character abbreviations of well-known identifiers (`0` is the conformance key).
    private static let abbreviations: [(code: String, identifier: String)] = [
        ("1", UTTagClass.filenameExtension.rawValue),
        ("2", "com.apple.ostype"),
        ("3", UTTagClass.mimeType.rawValue),
        ("4", "com.apple.nspboard-type"),
        ("5", "public.url-scheme"),
        ("6", "public.data"),
        ("7", "public.text"),
        ("8", "public.plain-text"),
        ("9", "public.utf16-plain-text"),
        ("A", "com.apple.traditional-mac-plain-text"),
        ("B", "public.image"),
        ("C", "public.video"),
        ("D", "public.audio"),
        ("E", "public.directory"),
        ("F", "public.folder"),
    ]

    /// The dynamic identifier of one tag, conforming to the given types.
    static func make(tag: String, tagClass: UTTagClass, conformsTo: [String]) -> String {
        var specification = ""
        if !conformsTo.isEmpty {
            specification = "?" + conformsTo.map { "0=" + escaped(abbreviation(of: $0)) }.joined(separator: ":") + ":"
        }
        specification += escaped(abbreviation(of: tagClass.rawValue)) + "=" + escaped(tag)
        return prefix + encoded(Array(specification.utf8))
    }

    /// What a dynamic identifier says, or nil when `identifier` is not one this scheme decodes.
    static func specification(of identifier: String) -> Specification? {
        let lowered = identifier.lowercased()
        guard lowered.hasPrefix(prefix), let bytes = decoded(lowered.utf8.dropFirst(prefix.utf8.count)),
              let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else { return nil }
        var body = Substring(text)
        let hasConformance = body.hasPrefix("?")
        if hasConformance { body = body.dropFirst() }
        var result = Specification(conformsTo: [], tags: [:])
        for part in split(body, at: ":") {
            let pair = split(part, at: "=")
            guard pair.count == 2 else { return nil }
            let key = unescaped(pair[0]), value = unescaped(pair[1])
            guard !key.isEmpty, !value.isEmpty else { return nil }
            if key == "0" {
                guard hasConformance else { return nil }
                result.conformsTo.append(expansion(of: value))
            } else {
                result.tags[UTTagClass(rawValue: expansion(of: key)), default: []].append(value)
            }
        }
        return result.tags.isEmpty ? nil : result
    }

    private static func abbreviation(of identifier: String) -> String {
        abbreviations.first { $0.identifier == identifier }?.code ?? identifier
    }

    private static func expansion(of code: String) -> String {
        abbreviations.first { $0.code == code.uppercased() }?.identifier ?? code
    }

    /// Backslashes before the separators, so that a tag holding `:` or `=` survives the round trip.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "\\" || character == ":" || character == "=" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    private static func unescaped(_ text: Substring) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if !escaping && character == "\\" {
                escaping = true
            } else {
                result.append(character)
                escaping = false
            }
        }
        return result
    }

    /// `text` cut at every `separator` that no backslash escapes; the pieces keep their escapes.
    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        var pieces: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        var escaping = false
        while index < text.endIndex {
            let character = text[index]
            if escaping {
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == separator {
                pieces.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        pieces.append(text[start...])
        return pieces
    }

    private static func encoded(_ bytes: [UInt8]) -> String {
        var characters: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(alphabet[Int((accumulator >> UInt32(bits)) & 31)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { characters.append(alphabet[Int((accumulator << UInt32(5 - bits)) & 31)]) }
        return String(decoding: characters, as: UTF8.self)
    }

    private static func decoded(_ characters: Substring.UTF8View) -> [UInt8]? {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            accumulator = (accumulator << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((accumulator >> UInt32(bits)) & 0xFF))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return bytes
    }
}
