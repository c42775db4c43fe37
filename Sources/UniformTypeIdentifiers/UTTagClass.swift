/// A class of tags that name a type outside the type system, such as filename extensions and MIME
/// types.
///
/// ``UTType/tags`` maps tag classes to tags, and ``UTType/init(tag:tagClass:conformingTo:)`` looks a
/// type up by one. The type table knows tags of the two classes below; a tag of any other class finds
/// a dynamic type.
public struct UTTagClass: Hashable, RawRepresentable, Sendable {
    /// The tag class's identifier, such as `public.filename-extension`.
    public let rawValue: String

    /// A tag class from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A tag class from its identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions, such as `mp4` (`public.filename-extension`).
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")

    /// MIME types, such as `video/mp4` (`public.mime-type`).
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")
}
