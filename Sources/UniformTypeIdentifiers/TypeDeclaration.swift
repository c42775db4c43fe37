/// One row of the fixed type table: what Apple's system declaration of a type says (its identifier,
/// the types it conforms to, its filename extensions and MIME types, preferred first, and an English
/// description). A class so that a `UTType` holds one reference, not five fields; immutable, so
/// `Sendable`.
final class TypeDeclaration: Sendable {
    /// The identifier as Apple spells it.
    let identifier: String
    /// The identifiers of the types this one conforms to directly.
    let conformsTo: [String]
    /// Filename extensions, the preferred one first, in lowercase.
    let filenameExtensions: [String]
    /// MIME types, the preferred one first, in lowercase.
    let mimeTypes: [String]
    /// What the type is, in English (Apple's is localized).
    let summary: String

    init(_ identifier: String, conformsTo: [String], extensions: [String] = [], mimeTypes: [String] = [],
         summary: String) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = extensions
        self.mimeTypes = mimeTypes
        self.summary = summary
    }

    /// The declaration's tags by class, leaving out the empty ones (as Apple's `tags` does).
    var tags: [UTTagClass: [String]] {
        var tags: [UTTagClass: [String]] = [:]
        if !filenameExtensions.isEmpty { tags[.filenameExtension] = filenameExtensions }
        if !mimeTypes.isEmpty { tags[.mimeType] = mimeTypes }
        return tags
    }
}
