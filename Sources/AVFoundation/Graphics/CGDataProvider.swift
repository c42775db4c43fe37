import Foundation

/// Bytes behind an image. Apple's takes and returns `CFData`; Linux has no `CFData`, so this one
/// takes and returns `Data`.
public final class CGDataProvider: Sendable {
    /// The provider's bytes.
    public let data: Data?

    /// Failable as Apple's is, so `guard let` call sites compile; it fails only for empty data.
    public init?(data: Data) {
        guard !data.isEmpty else { return nil }
        self.data = data
    }
}
