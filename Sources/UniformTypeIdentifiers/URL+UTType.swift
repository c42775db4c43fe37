import Foundation

extension URL {
    /// A URL with a path component added for a file or directory of a type: `partialName`, with the
    /// type's preferred filename extension unless it already has one of that type.
    ///
    /// ```swift
    /// base.appendingPathComponent("puppy.jpg", conformingTo: .image)      // …/puppy.jpg
    /// base.appendingPathComponent("puppy.jpg", conformingTo: .plainText)  // …/puppy.jpg.txt
    /// base.appendingPathComponent("clip", conformingTo: .mpeg4Movie)      // …/clip.mp4
    /// ```
    ///
    /// The name keeps its extension when a type of that extension conforms to `contentType`; it gets
    /// none when `contentType` has no preferred extension (``UTType/movie``). A type that conforms to
    /// ``UTType/directory`` makes a directory URL.
    ///
    /// - Parameters:
    ///   - partialName: The name to add, with or without an extension.
    ///   - contentType: The type the file or directory is of.
    /// - Returns: This URL with the name added.
    public func appendingPathComponent(_ partialName: String, conformingTo contentType: UTType) -> URL {
        appendingPathComponent(UTTypeFileName.name(partialName, for: contentType),
                               isDirectory: contentType.conforms(to: .directory))
    }

    /// Adds a path component for a file or directory of a type, as
    /// ``appendingPathComponent(_:conformingTo:)`` makes it.
    ///
    /// - Parameters:
    ///   - partialName: The name to add, with or without an extension.
    ///   - contentType: The type the file or directory is of.
    public mutating func appendPathComponent(_ partialName: String, conformingTo contentType: UTType) {
        self = appendingPathComponent(partialName, conformingTo: contentType)
    }

    /// This URL with the preferred filename extension of a type added, unless its last path component
    /// already has an extension of that type, or the type has no preferred extension.
    ///
    /// ```swift
    /// base.appendingPathComponent("clip").appendingPathExtension(for: .mpeg4Movie)  // …/clip.mp4
    /// ```
    ///
    /// - Parameter contentType: The type the URL's file is of.
    /// - Returns: The URL with the extension added, or this URL.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        guard !UTTypeFileName.hasExtension(lastPathComponent, of: contentType),
              let pathExtension = contentType.preferredFilenameExtension else { return self }
        return appendingPathExtension(pathExtension)
    }

    /// Adds the preferred filename extension of a type, as
    /// ``appendingPathExtension(for:)`` does.
    ///
    /// - Parameter contentType: The type the URL's file is of.
    public mutating func appendPathExtension(for contentType: UTType) {
        self = appendingPathExtension(for: contentType)
    }
}

/// The file-name rule the URL additions share.
enum UTTypeFileName {
    /// `name` with `type`'s preferred extension, unless it has an extension of that type already.
    static func name(_ name: String, for type: UTType) -> String {
        guard !hasExtension(name, of: type), let pathExtension = type.preferredFilenameExtension else { return name }
        return name + "." + pathExtension
    }

    /// Whether `name` ends in an extension that names `type` or a type conforming to it.
    static func hasExtension(_ name: String, of type: UTType) -> Bool {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        let pathExtension = String(name[name.index(after: dot)...])
        guard !pathExtension.isEmpty else { return false }
        if type.tags[.filenameExtension]?.contains(pathExtension.lowercased()) == true { return true }
        return UTType.types(tag: pathExtension, tagClass: .filenameExtension, conformingTo: type)
            .contains { !$0.isDynamic }
    }
}
