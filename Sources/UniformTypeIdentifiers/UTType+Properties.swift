import Foundation

extension UTType {
    /// The filename extension files of this type take, such as `mp4` for ``mpeg4Movie``, or nil when
    /// the type has none (``movie``, ``data``).
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The MIME type data of this type goes by, such as `video/mp4` for ``mpeg4Movie``, or nil when the
    /// type has none.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// The type's tags by class: its filename extensions and MIME types, the preferred one of each
    /// first. A class the type has no tag of is absent.
    public var tags: [UTTagClass: [String]] {
        switch kind {
        case .declared(let declaration): declaration.tags
        case .dynamic(_, let tags): tags
        case .undeclared: [:]
        }
    }

    /// What the type is, for people, such as `MPEG-4 movie`; nil for dynamic types and types the table
    /// lacks.
    ///
    /// Apple's is localized into the user's language; Avocet's is English.
    public var localizedDescription: String? {
        if case .declared(let declaration) = kind { declaration.summary } else { nil }
    }

    /// The version of the type's declaration: nil, as Apple's is for declarations that give none (the
    /// table gives none).
    public var version: NSNumber? { nil }

    /// A URL that documents the type: nil, as Apple's is for declarations that give none (the table
    /// gives none).
    public var referenceURL: URL? { nil }

    /// Whether the type is dynamic: made for a tag no declared type claims (`dyn.a…`).
    public var isDynamic: Bool {
        if case .dynamic = kind { true } else { false }
    }

    /// Whether the type table declares the type.
    ///
    /// On Apple's platforms a type declared in an app's Info.plist is declared too; Linux has none,
    /// so types made with ``init(exportedAs:conformingTo:)`` that the table lacks are not.
    public var isDeclared: Bool {
        if case .declared = kind { true } else { false }
    }

    /// Whether the type is in the public domain: its identifier starts with `public.`. Never true of a
    /// dynamic type.
    public var isPublic: Bool { !isDynamic && key.hasPrefix("public.") }

    /// Every type this type conforms to, directly or through others; not the type itself.
    ///
    /// ``mpeg4Movie``'s are ``movie``, ``audiovisualContent``, ``data``, ``content`` and ``item``.
    public var supertypes: Set<UTType> {
        var found = Set<UTType>()
        var pending = parents
        while let type = pending.popLast() {
            if type != self, found.insert(type).inserted { pending += type.parents }
        }
        return found
    }

    /// Whether this type is `type` or conforms to it, directly or through others.
    ///
    /// - Parameter type: The type to test against, such as ``movie``.
    /// - Returns: true for `UTType.quickTimeMovie.conforms(to: .movie)`, false the other way round.
    public func conforms(to type: UTType) -> Bool {
        self == type || supertypes.contains(type)
    }

    /// Whether `type` conforms to this type and is not this type.
    ///
    /// - Parameter type: The type to test.
    public func isSupertype(of type: UTType) -> Bool {
        self != type && type.conforms(to: self)
    }

    /// Whether this type conforms to `type` and is not `type`.
    ///
    /// - Parameter type: The type to test against.
    public func isSubtype(of type: UTType) -> Bool {
        self != type && conforms(to: type)
    }

    /// The types this type conforms to directly.
    var parents: [UTType] {
        switch kind {
        case .declared(let declaration): declaration.conformsTo.map(UTType.init(declared:))
        case .dynamic(let conformsTo, _), .undeclared(let conformsTo): conformsTo
        }
    }
}
