extension UTType: Codable {
    /// Encodes the type as its identifier, a single string.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }

    /// Decodes a type from its identifier: the declared or dynamic type of that identifier, else a type
    /// the table lacks with that identifier (as ``init(importedAs:conformingTo:)`` makes it, with no
    /// supertypes: a type made with a parent type does not carry it through encoding).
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when the identifier is empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let identifier = try container.decode(String.self)
        guard !identifier.isEmpty else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "A type identifier is empty")
        }
        self = UTType.named(identifier)
    }
}
