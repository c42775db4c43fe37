import Foundation

/// A type of data to load, send or receive: a file format, an abstract kind of content, or a
/// directory, named by a reverse-DNS identifier such as `public.mpeg-4`.
///
/// Types form a hierarchy through conformance: `public.mpeg-4` conforms to `public.movie`, which
/// conforms to `public.audiovisual-content`, which conforms to `public.data` and `public.content`.
/// Look a type up by identifier, filename extension or MIME type, or use one of the constants
/// (``mpeg4Movie``, ``quickTimeMovie``, ``movie``):
///
/// ```swift
/// let mp4 = UTType(AVFileType.mp4.rawValue)!            // public.mpeg-4
/// if let type = UTType(filenameExtension: "mov"), type.conforms(to: .movie) { ... }
/// let url = base.appendingPathComponent("clip").appendingPathExtension(for: .mpeg4Movie)  // clip.mp4
/// ```
///
/// A tag no declared type claims gets a dynamic type (`dyn.a…`, ``isDynamic``), encoded exactly as
/// Apple's system encodes it. The declared types are a fixed table (see the module's article): there is
/// no registry of the types installed apps declare, and no Info.plist.
///
/// Two types are equal when their identifiers are, compared without case, as Apple's are.
public struct UTType: Sendable {
    /// Where a type's facts come from.
    enum Kind: Sendable {
        /// A row of the type table.
        case declared(TypeDeclaration)
        /// A dynamic type: the types it conforms to and its tags, all said by its identifier.
        case dynamic(conformsTo: [UTType], tags: [UTTagClass: [String]])
        /// A type the table lacks, made by `init(exportedAs:)`, `init(importedAs:)` or decoding.
        case undeclared(conformsTo: [UTType])
    }

    /// The identifier, as the table, the dynamic encoding or the caller spells it.
    private let storedIdentifier: String
    /// The identifier in lowercase: what equality and hashing compare.
    let key: String
    /// Where the type's facts come from.
    let kind: Kind

    init(identifier: String, kind: Kind) {
        self.storedIdentifier = identifier
        self.key = identifier.lowercased()
        self.kind = kind
    }

    init(declaration: TypeDeclaration) {
        self.init(identifier: declaration.identifier, kind: .declared(declaration))
    }

    /// A type of the table, by identifier; the constants use it, so a misspelling stops at once.
    init(declared identifier: String) {
        guard let declaration = TypeTable.byIdentifier[identifier] else {
            preconditionFailure("UniformTypeIdentifiers: \(identifier) is not in the type table")
        }
        self.init(declaration: declaration)
    }

    /// The string that identifies the type, such as `public.jpeg` or `com.apple.quicktime-movie`.
    ///
    /// APIs that take a type as a string, such as `AVFileType(rawValue:)`, take this.
    public var identifier: String { storedIdentifier }
}

extension UTType: Hashable {
    /// Whether two types are the same type: whether their identifiers are equal, without case.
    public static func == (lhs: UTType, rhs: UTType) -> Bool { lhs.key == rhs.key }

    /// Hashes the identifier in lowercase, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

extension UTType: CustomStringConvertible, CustomDebugStringConvertible {
    /// The identifier, as Apple's `description` is.
    public var description: String { identifier }

    /// The identifier, and whether the type is dynamic and declared.
    public var debugDescription: String {
        "UTType(\(identifier)) (\(isDynamic ? "" : "not ")dynamic, \(isDeclared ? "" : "not ")declared)"
    }
}
