import Foundation

/// A metadata identifier: a key space and a key in one value, "<space>/<percent-encoded key>"
/// ("common/title", "itsk/%A9nam", "id3/TIT2", "mdta/com.apple.quicktime.title").
public struct AVMetadataIdentifier: RawRepresentable, Hashable, Sendable {
    /// The identifier as a string, `<key space>/<percent-encoded key>`.
    public let rawValue: String
    /// An identifier from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An identifier from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVMetadataIdentifier+Constants.swift.

// Swift 3 era global names, still in older sample code (seed 004 filters with AVMetadataCommonIdentifierTitle).
/// The older global name of `AVMetadataIdentifier.commonIdentifierTitle`.
public let AVMetadataCommonIdentifierTitle = AVMetadataIdentifier.commonIdentifierTitle
/// The older global name of `AVMetadataIdentifier.commonIdentifierCreator`.
public let AVMetadataCommonIdentifierCreator = AVMetadataIdentifier.commonIdentifierCreator
/// The older global name of `AVMetadataIdentifier.commonIdentifierSubject`.
public let AVMetadataCommonIdentifierSubject = AVMetadataIdentifier.commonIdentifierSubject
/// The older global name of `AVMetadataIdentifier.commonIdentifierDescription`.
public let AVMetadataCommonIdentifierDescription = AVMetadataIdentifier.commonIdentifierDescription
/// The older global name of `AVMetadataIdentifier.commonIdentifierPublisher`.
public let AVMetadataCommonIdentifierPublisher = AVMetadataIdentifier.commonIdentifierPublisher
/// The older global name of `AVMetadataIdentifier.commonIdentifierContributor`.
public let AVMetadataCommonIdentifierContributor = AVMetadataIdentifier.commonIdentifierContributor
/// The older global name of `AVMetadataIdentifier.commonIdentifierCreationDate`.
public let AVMetadataCommonIdentifierCreationDate = AVMetadataIdentifier.commonIdentifierCreationDate
/// The older global name of `AVMetadataIdentifier.commonIdentifierLastModifiedDate`.
public let AVMetadataCommonIdentifierLastModifiedDate = AVMetadataIdentifier.commonIdentifierLastModifiedDate
/// The older global name of `AVMetadataIdentifier.commonIdentifierType`.
public let AVMetadataCommonIdentifierType = AVMetadataIdentifier.commonIdentifierType
/// The older global name of `AVMetadataIdentifier.commonIdentifierFormat`.
public let AVMetadataCommonIdentifierFormat = AVMetadataIdentifier.commonIdentifierFormat
/// The older global name of `AVMetadataIdentifier.commonIdentifierAssetIdentifier`.
public let AVMetadataCommonIdentifierAssetIdentifier = AVMetadataIdentifier.commonIdentifierAssetIdentifier
/// The older global name of `AVMetadataIdentifier.commonIdentifierSource`.
public let AVMetadataCommonIdentifierSource = AVMetadataIdentifier.commonIdentifierSource
/// The older global name of `AVMetadataIdentifier.commonIdentifierLanguage`.
public let AVMetadataCommonIdentifierLanguage = AVMetadataIdentifier.commonIdentifierLanguage
/// The older global name of `AVMetadataIdentifier.commonIdentifierRelation`.
public let AVMetadataCommonIdentifierRelation = AVMetadataIdentifier.commonIdentifierRelation
/// The older global name of `AVMetadataIdentifier.commonIdentifierLocation`.
public let AVMetadataCommonIdentifierLocation = AVMetadataIdentifier.commonIdentifierLocation
/// The older global name of `AVMetadataIdentifier.commonIdentifierCopyrights`.
public let AVMetadataCommonIdentifierCopyrights = AVMetadataIdentifier.commonIdentifierCopyrights
/// The older global name of `AVMetadataIdentifier.commonIdentifierAlbumName`.
public let AVMetadataCommonIdentifierAlbumName = AVMetadataIdentifier.commonIdentifierAlbumName
/// The older global name of `AVMetadataIdentifier.commonIdentifierAuthor`.
public let AVMetadataCommonIdentifierAuthor = AVMetadataIdentifier.commonIdentifierAuthor
/// The older global name of `AVMetadataIdentifier.commonIdentifierArtist`.
public let AVMetadataCommonIdentifierArtist = AVMetadataIdentifier.commonIdentifierArtist
/// The older global name of `AVMetadataIdentifier.commonIdentifierArtwork`.
public let AVMetadataCommonIdentifierArtwork = AVMetadataIdentifier.commonIdentifierArtwork
/// The older global name of `AVMetadataIdentifier.commonIdentifierMake`.
public let AVMetadataCommonIdentifierMake = AVMetadataIdentifier.commonIdentifierMake
/// The older global name of `AVMetadataIdentifier.commonIdentifierModel`.
public let AVMetadataCommonIdentifierModel = AVMetadataIdentifier.commonIdentifierModel
/// The older global name of `AVMetadataIdentifier.commonIdentifierSoftware`.
public let AVMetadataCommonIdentifierSoftware = AVMetadataIdentifier.commonIdentifierSoftware
/// The older global name of `AVMetadataIdentifier.commonIdentifierAccessibilityDescription`.
public let AVMetadataCommonIdentifierAccessibilityDescription = AVMetadataIdentifier.commonIdentifierAccessibilityDescription
