import Foundation

/// Bytes behind an image. Apple's takes and returns `CFData`; Linux has no `CFData`, so this one
/// takes and returns `Data`.
public final class CGDataProvider: Sendable {
    /// The provider's bytes.
    public let data: Data?

    /// A provider of `data`'s bytes. Failable as Apple's is, so `guard let` call sites compile.
    ///
    /// - Parameter data: The bytes; nil for empty data.
    public init?(data: Data) {
        guard !data.isEmpty else { return nil }
        self.data = data
    }
}
