extension UTType {
    /// The type with an identifier, or nil when no type has it.
    ///
    /// Identifiers compare without case: `UTType("PUBLIC.MPEG-4")` is ``mpeg4Movie``. A dynamic
    /// identifier (`dyn.a…`) gives back the dynamic type it encodes. An identifier the type table lacks
    /// gives nil; to name such a type, use ``init(exportedAs:conformingTo:)`` or
    /// ``init(importedAs:conformingTo:)``.
    ///
    /// - Parameter identifier: A type identifier, such as `public.mpeg-4` (`AVFileType.mp4.rawValue`).
    public init?(_ identifier: String) {
        let key = identifier.lowercased()
        if let declaration = TypeTable.byIdentifier[key] {
            self.init(declaration: declaration)
        } else if let specification = DynamicIdentifier.specification(of: key) {
            self.init(identifier: key, kind: .dynamic(conformsTo: specification.conformsTo.map(UTType.named),
                                                      tags: specification.tags))
        } else {
            return nil
        }
    }

    /// The type a tag names, conforming to `supertype`, or a dynamic type when no declared type does.
    ///
    /// Tags compare without case. When several declared types claim the tag, the first in the type
    /// table's order is the answer (`m4a` finds `com.apple.m4a-audio`, as on macOS); ``types(tag:tagClass:conformingTo:)``
    /// lists them all. With no declared match the result is the dynamic type Apple's system makes for
    /// the tag, which conforms to `supertype` (and nothing else).
    ///
    /// - Parameters:
    ///   - tag: The tag, such as `mov` or `video/quicktime`.
    ///   - tagClass: The tag's class, such as ``UTTagClass/filenameExtension``.
    ///   - supertype: A type the result must conform to, or nil for any type.
    /// - Returns: nil only when `tag` is empty.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let type = UTType.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first else { return nil }
        self = type
    }

    /// The type of files with a filename extension, such as `mov` for ``quickTimeMovie``.
    ///
    /// An extension no declared type claims gives a dynamic type whose ``isDeclared`` and
    /// ``isPublic`` are false, as on Apple's platforms: `UTType(filenameExtension: "srt")` is
    /// `dyn.ah62d4rv4ge81g6xy`, conforming to ``data`` and ``item``. Equivalent to
    /// `UTType(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)`.
    ///
    /// - Parameters:
    ///   - filenameExtension: The extension, without its dot; compared without case.
    ///   - supertype: A type the result must conform to; ``data`` unless you pass another.
    /// - Returns: nil only when the extension is empty.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The type of data with a MIME type, such as `video/mp4` for ``mpeg4Movie``.
    ///
    /// A MIME type no declared type claims gives a dynamic type. Equivalent to
    /// `UTType(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)`.
    ///
    /// - Parameters:
    ///   - mimeType: The MIME type; compared without case.
    ///   - supertype: A type the result must conform to; ``data`` unless you pass another.
    /// - Returns: nil only when the MIME type is empty.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// A type your code owns, by identifier.
    ///
    /// A type the table declares is that type (its declaration wins over `parentType`, as the system's
    /// does on Apple's platforms), and a dynamic identifier (`dyn.a…`) gives the dynamic type it
    /// encodes, which ignores `parentType` too. Any other identifier gives a type that conforms to
    /// `parentType` and its supertypes; it is not ``isDeclared``, since Linux has no Info.plist to
    /// declare it in, and ``init(_:)`` does not find it by identifier.
    ///
    /// ```swift
    /// extension UTType {
    ///     static let project = UTType(exportedAs: "com.example.project", conformingTo: .json)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - identifier: The type's identifier.
    ///   - parentType: The type it conforms to, if any.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self = UTType(identifier) ?? UTType(identifier: identifier, kind: .undeclared(conformsTo: parentType.map { [$0] } ?? []))
    }

    /// A type another party owns, by identifier; otherwise as ``init(exportedAs:conformingTo:)``.
    ///
    /// - Parameters:
    ///   - identifier: The type's identifier.
    ///   - parentType: The type it conforms to, if any.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(exportedAs: identifier, conformingTo: parentType)
    }

    /// Every type a tag names that conforms to `supertype`, in the type table's order; when no declared
    /// type does, the one dynamic type Apple's system makes for the tag.
    ///
    /// ```swift
    /// UTType.types(tag: "m4a", tagClass: .filenameExtension, conformingTo: nil)
    /// // [com.apple.m4a-audio, public.mpeg-4-audio]
    /// ```
    ///
    /// - Parameters:
    ///   - tag: The tag, such as `aiff`; compared without case.
    ///   - tagClass: The tag's class.
    ///   - supertype: A type every result must conform to, or nil for any type.
    /// - Returns: An empty array only when `tag` is empty.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        guard !tag.isEmpty else { return [] }
        let declared = TypeTable.declarations(tag: tag, tagClass: tagClass).map(UTType.init(declaration:))
            .filter { supertype == nil || $0.conforms(to: supertype!) }
        if !declared.isEmpty { return declared }
        // Filename extensions and MIME types compare without case, so their dynamic types do too.
        let known = tagClass == .filenameExtension || tagClass == .mimeType
        let identifier = DynamicIdentifier.make(tag: known ? tag.lowercased() : tag, tagClass: tagClass,
                                                conformsTo: supertype.map { [$0.identifier] } ?? [])
        let tags = [tagClass: [known ? tag.lowercased() : tag]]
        return [UTType(identifier: identifier, kind: .dynamic(conformsTo: supertype.map { [$0] } ?? [], tags: tags))]
    }

    /// The type an identifier names: declared or dynamic, else a type of that identifier that the
    /// table lacks and that conforms to nothing (for a dynamic type's conformance, and decoding).
    static func named(_ identifier: String) -> UTType {
        UTType(identifier) ?? UTType(identifier: identifier, kind: .undeclared(conformsTo: []))
    }
}
