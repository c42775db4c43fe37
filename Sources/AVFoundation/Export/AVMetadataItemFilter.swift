import Foundation

/// Removes metadata that should not leave the device with a file: ``forSharing()`` keeps what describes
/// the content (title, artist, album, description, dates, copyright, artwork...) and drops what
/// identifies a person, a place or a device (location, author, the camera's make and model, and the
/// like), as Apple's does.
open class AVMetadataItemFilter: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    private let removed: Set<AVMetadataKey>

    private init(removing removed: Set<AVMetadataKey>) {
        self.removed = removed
        super.init()
    }

    /// The filter for files shared with others, for ``AVAssetExportSession/metadataItemFilter``.
    ///
    /// - Returns: A filter that drops items whose common key is location, author, contributor, make,
    ///   model, source, identifier or relation, and keeps every other item.
    open class func forSharing() -> AVMetadataItemFilter {
        AVMetadataItemFilter(removing: [.commonKeyLocation, .commonKeyAuthor, .commonKeyContributor, .commonKeyMake, .commonKeyModel,
                                        .commonKeySource, .commonKeyIdentifier, .commonKeyRelation])
    }

    /// The items the filter lets through.
    func filtered(_ items: [AVMetadataItem]) -> [AVMetadataItem] {
        items.filter { item in item.commonKey.map { !removed.contains($0) } ?? true }
    }
}
