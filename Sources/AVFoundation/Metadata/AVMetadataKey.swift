import Foundation

/// A metadata key: a common key ("title") or a format's own key ("TIT2"; Apple's constants spell the ©
/// that starts an iTunes or QuickTime user-data atom as "@", so the `©nam` atom's key is "@nam").
public struct AVMetadataKey: RawRepresentable, Hashable, Sendable {
    /// The key as a string.
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

// The constants are generated from one table: see AVMetadataKey+Constants.swift.

// Swift 3 era global names, still in older sample code (seed 004).
/// The older global name of `AVMetadataKey.commonKeyTitle`.
public let AVMetadataCommonKeyTitle = AVMetadataKey.commonKeyTitle
/// The older global name of `AVMetadataKey.commonKeyCreator`.
public let AVMetadataCommonKeyCreator = AVMetadataKey.commonKeyCreator
/// The older global name of `AVMetadataKey.commonKeySubject`.
public let AVMetadataCommonKeySubject = AVMetadataKey.commonKeySubject
/// The older global name of `AVMetadataKey.commonKeyDescription`.
public let AVMetadataCommonKeyDescription = AVMetadataKey.commonKeyDescription
/// The older global name of `AVMetadataKey.commonKeyPublisher`.
public let AVMetadataCommonKeyPublisher = AVMetadataKey.commonKeyPublisher
/// The older global name of `AVMetadataKey.commonKeyContributor`.
public let AVMetadataCommonKeyContributor = AVMetadataKey.commonKeyContributor
/// The older global name of `AVMetadataKey.commonKeyCreationDate`.
public let AVMetadataCommonKeyCreationDate = AVMetadataKey.commonKeyCreationDate
/// The older global name of `AVMetadataKey.commonKeyLastModifiedDate`.
public let AVMetadataCommonKeyLastModifiedDate = AVMetadataKey.commonKeyLastModifiedDate
/// The older global name of `AVMetadataKey.commonKeyType`.
public let AVMetadataCommonKeyType = AVMetadataKey.commonKeyType
/// The older global name of `AVMetadataKey.commonKeyFormat`.
public let AVMetadataCommonKeyFormat = AVMetadataKey.commonKeyFormat
/// The older global name of `AVMetadataKey.commonKeyIdentifier`.
public let AVMetadataCommonKeyIdentifier = AVMetadataKey.commonKeyIdentifier
/// The older global name of `AVMetadataKey.commonKeySource`.
public let AVMetadataCommonKeySource = AVMetadataKey.commonKeySource
/// The older global name of `AVMetadataKey.commonKeyLanguage`.
public let AVMetadataCommonKeyLanguage = AVMetadataKey.commonKeyLanguage
/// The older global name of `AVMetadataKey.commonKeyRelation`.
public let AVMetadataCommonKeyRelation = AVMetadataKey.commonKeyRelation
/// The older global name of `AVMetadataKey.commonKeyLocation`.
public let AVMetadataCommonKeyLocation = AVMetadataKey.commonKeyLocation
/// The older global name of `AVMetadataKey.commonKeyCopyrights`.
public let AVMetadataCommonKeyCopyrights = AVMetadataKey.commonKeyCopyrights
/// The older global name of `AVMetadataKey.commonKeyAlbumName`.
public let AVMetadataCommonKeyAlbumName = AVMetadataKey.commonKeyAlbumName
/// The older global name of `AVMetadataKey.commonKeyAuthor`.
public let AVMetadataCommonKeyAuthor = AVMetadataKey.commonKeyAuthor
/// The older global name of `AVMetadataKey.commonKeyArtist`.
public let AVMetadataCommonKeyArtist = AVMetadataKey.commonKeyArtist
/// The older global name of `AVMetadataKey.commonKeyArtwork`.
public let AVMetadataCommonKeyArtwork = AVMetadataKey.commonKeyArtwork
/// The older global name of `AVMetadataKey.commonKeyMake`.
public let AVMetadataCommonKeyMake = AVMetadataKey.commonKeyMake
/// The older global name of `AVMetadataKey.commonKeyModel`.
public let AVMetadataCommonKeyModel = AVMetadataKey.commonKeyModel
/// The older global name of `AVMetadataKey.commonKeySoftware`.
public let AVMetadataCommonKeySoftware = AVMetadataKey.commonKeySoftware
/// The older global name of `AVMetadataKey.commonKeyAccessibilityDescription`.
public let AVMetadataCommonKeyAccessibilityDescription = AVMetadataKey.commonKeyAccessibilityDescription
