import Foundation

/// A metadata key: a common key ("title") or a format's own key ("©nam", "TIT2").
public struct AVMetadataKey: RawRepresentable, Hashable, Sendable {
    /// The key as a string.
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

extension AVMetadataKey {
    /// The common key for the title (`title`).
    public static let commonKeyTitle = AVMetadataKey(rawValue: "title")
    /// The common key for the person or organisation that made the content (`creator`).
    public static let commonKeyCreator = AVMetadataKey(rawValue: "creator")
    /// The common key for the subject (`subject`).
    public static let commonKeySubject = AVMetadataKey(rawValue: "subject")
    /// The common key for a description of the content (`description`).
    public static let commonKeyDescription = AVMetadataKey(rawValue: "description")
    /// The common key for the publisher (`publisher`).
    public static let commonKeyPublisher = AVMetadataKey(rawValue: "publisher")
    /// The common key for a contributor (`contributor`).
    public static let commonKeyContributor = AVMetadataKey(rawValue: "contributor")
    /// The common key for the date the content was created (`creationDate`).
    public static let commonKeyCreationDate = AVMetadataKey(rawValue: "creationDate")
    /// The common key for the date the content was last modified (`lastModifiedDate`).
    public static let commonKeyLastModifiedDate = AVMetadataKey(rawValue: "lastModifiedDate")
    /// The common key for the nature or genre of the content (`type`).
    public static let commonKeyType = AVMetadataKey(rawValue: "type")
    /// The common key for the format of the content (`format`).
    public static let commonKeyFormat = AVMetadataKey(rawValue: "format")
    /// The common key for an identifier of the content (`identifier`).
    public static let commonKeyIdentifier = AVMetadataKey(rawValue: "identifier")
    /// The common key for the resource the content derives from (`source`).
    public static let commonKeySource = AVMetadataKey(rawValue: "source")
    /// The common key for the language of the content (`language`).
    public static let commonKeyLanguage = AVMetadataKey(rawValue: "language")
    /// The common key for a related resource (`relation`).
    public static let commonKeyRelation = AVMetadataKey(rawValue: "relation")
    /// The common key for the place where the content was recorded (`location`).
    public static let commonKeyLocation = AVMetadataKey(rawValue: "location")
    /// The common key for the copyright statement (`copyrights`).
    public static let commonKeyCopyrights = AVMetadataKey(rawValue: "copyrights")
    /// The common key for the album name (`albumName`).
    public static let commonKeyAlbumName = AVMetadataKey(rawValue: "albumName")
    /// The common key for the author (`author`).
    public static let commonKeyAuthor = AVMetadataKey(rawValue: "author")
    /// The common key for the artist (`artist`).
    public static let commonKeyArtist = AVMetadataKey(rawValue: "artist")
    /// The common key for the artwork, as image data (`artwork`).
    public static let commonKeyArtwork = AVMetadataKey(rawValue: "artwork")
    /// The common key for the make of the recording device (`make`).
    public static let commonKeyMake = AVMetadataKey(rawValue: "make")
    /// The common key for the model of the recording device (`model`).
    public static let commonKeyModel = AVMetadataKey(rawValue: "model")
    /// The common key for the software that made the content (`software`).
    public static let commonKeySoftware = AVMetadataKey(rawValue: "software")
    /// The common key for a description of the content for accessibility (`accessibilityDescription`).
    public static let commonKeyAccessibilityDescription = AVMetadataKey(rawValue: "accessibilityDescription")
    /// The iTunes key `©nam`: the song name.
    public static let iTunesMetadataKeySongName = AVMetadataKey(rawValue: "©nam")
    /// The iTunes key `©ART`: the artist.
    public static let iTunesMetadataKeyArtist = AVMetadataKey(rawValue: "©ART")
    /// The iTunes key `aART`: the album artist.
    public static let iTunesMetadataKeyAlbumArtist = AVMetadataKey(rawValue: "aART")
    /// The iTunes key `©alb`: the album.
    public static let iTunesMetadataKeyAlbum = AVMetadataKey(rawValue: "©alb")
    /// The iTunes key `©wrt`: the composer.
    public static let iTunesMetadataKeyComposer = AVMetadataKey(rawValue: "©wrt")
    /// The iTunes key `©cmt`: a comment.
    public static let iTunesMetadataKeyUserComment = AVMetadataKey(rawValue: "©cmt")
    /// The iTunes key `©gen`: the genre, as text.
    public static let iTunesMetadataKeyUserGenre = AVMetadataKey(rawValue: "©gen")
    /// The iTunes key `gnre`: the genre, as an ID3v1 genre number.
    public static let iTunesMetadataKeyPredefinedGenre = AVMetadataKey(rawValue: "gnre")
    /// The iTunes key `©day`: the release date.
    public static let iTunesMetadataKeyReleaseDate = AVMetadataKey(rawValue: "©day")
    /// The iTunes key `trkn`: the track number.
    public static let iTunesMetadataKeyTrackNumber = AVMetadataKey(rawValue: "trkn")
    /// The iTunes key `disk`: the disc number.
    public static let iTunesMetadataKeyDiscNumber = AVMetadataKey(rawValue: "disk")
    /// The iTunes key `©grp`: the grouping.
    public static let iTunesMetadataKeyGrouping = AVMetadataKey(rawValue: "©grp")
    /// The iTunes key `©lyr`: the lyrics.
    public static let iTunesMetadataKeyLyrics = AVMetadataKey(rawValue: "©lyr")
    /// The iTunes key `©too`: the encoding tool.
    public static let iTunesMetadataKeyEncodingTool = AVMetadataKey(rawValue: "©too")
    /// The iTunes key `©enc`: the person or company that encoded it.
    public static let iTunesMetadataKeyEncodedBy = AVMetadataKey(rawValue: "©enc")
    /// The iTunes key `cprt`: the copyright statement.
    public static let iTunesMetadataKeyCopyright = AVMetadataKey(rawValue: "cprt")
    /// The iTunes key `covr`: the cover art, as image data.
    public static let iTunesMetadataKeyCoverArt = AVMetadataKey(rawValue: "covr")
    /// The iTunes key `desc`: a description of the content.
    public static let iTunesMetadataKeyDescription = AVMetadataKey(rawValue: "desc")
    /// The iTunes key `tmpo`: the tempo in beats per minute.
    public static let iTunesMetadataKeyBeatsPerMin = AVMetadataKey(rawValue: "tmpo")
    /// The iTunes key `©aut`: the author.
    public static let iTunesMetadataKeyAuthor = AVMetadataKey(rawValue: "©aut")
    /// The iTunes key `©pub`: the publisher.
    public static let iTunesMetadataKeyPublisher = AVMetadataKey(rawValue: "©pub")
    /// The ID3 frame `TIT2`: the title.
    public static let id3MetadataKeyTitleDescription = AVMetadataKey(rawValue: "TIT2")
    /// The ID3 frame `TPE1`: the lead performer.
    public static let id3MetadataKeyLeadPerformer = AVMetadataKey(rawValue: "TPE1")
    /// The ID3 frame `TPE2`: the band or album artist.
    public static let id3MetadataKeyBand = AVMetadataKey(rawValue: "TPE2")
    /// The ID3 frame `TALB`: the album.
    public static let id3MetadataKeyAlbumTitle = AVMetadataKey(rawValue: "TALB")
    /// The ID3 frame `TCOM`: the composer.
    public static let id3MetadataKeyComposer = AVMetadataKey(rawValue: "TCOM")
    /// The ID3 frame `TCON`: the genre.
    public static let id3MetadataKeyContentType = AVMetadataKey(rawValue: "TCON")
    /// The ID3 frame `TDRC`: the recording time (ID3v2.4).
    public static let id3MetadataKeyRecordingTime = AVMetadataKey(rawValue: "TDRC")
    /// The ID3 frame `TYER`: the year (ID3v2.3).
    public static let id3MetadataKeyYear = AVMetadataKey(rawValue: "TYER")
    /// The ID3 frame `TRCK`: the track number.
    public static let id3MetadataKeyTrackNumber = AVMetadataKey(rawValue: "TRCK")
    /// The ID3 frame `TPOS`: the disc number within a set.
    public static let id3MetadataKeyPartOfASet = AVMetadataKey(rawValue: "TPOS")
    /// The ID3 frame `TCOP`: the copyright statement.
    public static let id3MetadataKeyCopyright = AVMetadataKey(rawValue: "TCOP")
    /// The ID3 frame `TSSE`: the encoding software and settings.
    public static let id3MetadataKeyEncodedWith = AVMetadataKey(rawValue: "TSSE")
    /// The ID3 frame `TENC`: the person or company that encoded it.
    public static let id3MetadataKeyEncodedBy = AVMetadataKey(rawValue: "TENC")
    /// The ID3 frame `TPUB`: the publisher.
    public static let id3MetadataKeyPublisher = AVMetadataKey(rawValue: "TPUB")
    /// The ID3 frame `TLAN`: the language of the content.
    public static let id3MetadataKeyLanguage = AVMetadataKey(rawValue: "TLAN")
    /// The ID3 frame `COMM`: a comment.
    public static let id3MetadataKeyComments = AVMetadataKey(rawValue: "COMM")
    /// The ID3 frame `USLT`: the lyrics.
    public static let id3MetadataKeyUnsynchronizedLyric = AVMetadataKey(rawValue: "USLT")
    /// The ID3 frame `APIC`: an attached picture, such as cover art.
    public static let id3MetadataKeyAttachedPicture = AVMetadataKey(rawValue: "APIC")
    /// The ID3 frame `TDOR`: the original release time.
    public static let id3MetadataKeyOriginalReleaseTime = AVMetadataKey(rawValue: "TDOR")
    /// The QuickTime metadata key `com.apple.quicktime.title`: the title.
    public static let quickTimeMetadataKeyTitle = AVMetadataKey(rawValue: "com.apple.quicktime.title")
    /// The QuickTime metadata key `com.apple.quicktime.artist`: the artist.
    public static let quickTimeMetadataKeyArtist = AVMetadataKey(rawValue: "com.apple.quicktime.artist")
    /// The QuickTime metadata key `com.apple.quicktime.album`: the album.
    public static let quickTimeMetadataKeyAlbum = AVMetadataKey(rawValue: "com.apple.quicktime.album")
    /// The QuickTime metadata key `com.apple.quicktime.author`: the author.
    public static let quickTimeMetadataKeyAuthor = AVMetadataKey(rawValue: "com.apple.quicktime.author")
    /// The QuickTime metadata key `com.apple.quicktime.comment`: a comment.
    public static let quickTimeMetadataKeyComment = AVMetadataKey(rawValue: "com.apple.quicktime.comment")
    /// The QuickTime metadata key `com.apple.quicktime.copyright`: the copyright statement.
    public static let quickTimeMetadataKeyCopyright = AVMetadataKey(rawValue: "com.apple.quicktime.copyright")
    /// The QuickTime metadata key `com.apple.quicktime.creationdate`: the date the content was created.
    public static let quickTimeMetadataKeyCreationDate = AVMetadataKey(rawValue: "com.apple.quicktime.creationdate")
    /// The QuickTime metadata key `com.apple.quicktime.description`: a description of the content.
    public static let quickTimeMetadataKeyDescription = AVMetadataKey(rawValue: "com.apple.quicktime.description")
    /// The QuickTime metadata key `com.apple.quicktime.genre`: the genre.
    public static let quickTimeMetadataKeyGenre = AVMetadataKey(rawValue: "com.apple.quicktime.genre")
    /// The QuickTime metadata key `com.apple.quicktime.keywords`: keywords.
    public static let quickTimeMetadataKeyKeywords = AVMetadataKey(rawValue: "com.apple.quicktime.keywords")
    /// The QuickTime metadata key `com.apple.quicktime.make`: the make of the recording device.
    public static let quickTimeMetadataKeyMake = AVMetadataKey(rawValue: "com.apple.quicktime.make")
    /// The QuickTime metadata key `com.apple.quicktime.model`: the model of the recording device.
    public static let quickTimeMetadataKeyModel = AVMetadataKey(rawValue: "com.apple.quicktime.model")
    /// The QuickTime metadata key `com.apple.quicktime.software`: the software that made the content.
    public static let quickTimeMetadataKeySoftware = AVMetadataKey(rawValue: "com.apple.quicktime.software")
    /// The QuickTime metadata key `com.apple.quicktime.publisher`: the publisher.
    public static let quickTimeMetadataKeyPublisher = AVMetadataKey(rawValue: "com.apple.quicktime.publisher")
    /// The QuickTime metadata key `com.apple.quicktime.artwork`: the artwork, as image data.
    public static let quickTimeMetadataKeyArtwork = AVMetadataKey(rawValue: "com.apple.quicktime.artwork")
    /// The QuickTime metadata key `com.apple.quicktime.location.ISO6709`: the location, as an ISO 6709 string.
    public static let quickTimeMetadataKeyLocationISO6709 = AVMetadataKey(rawValue: "com.apple.quicktime.location.ISO6709")
    /// The QuickTime user-data key `©nam`: the full name (title).
    public static let quickTimeUserDataKeyFullName = AVMetadataKey(rawValue: "©nam")
    /// The QuickTime user-data key `©ART`: the artist.
    public static let quickTimeUserDataKeyArtist = AVMetadataKey(rawValue: "©ART")
    /// The QuickTime user-data key `©alb`: the album.
    public static let quickTimeUserDataKeyAlbum = AVMetadataKey(rawValue: "©alb")
    /// The QuickTime user-data key `©aut`: the author.
    public static let quickTimeUserDataKeyAuthor = AVMetadataKey(rawValue: "©aut")
    /// The QuickTime user-data key `©cmt`: a comment.
    public static let quickTimeUserDataKeyComment = AVMetadataKey(rawValue: "©cmt")
    /// The QuickTime user-data key `©cpy`: the copyright statement.
    public static let quickTimeUserDataKeyCopyright = AVMetadataKey(rawValue: "©cpy")
    /// The QuickTime user-data key `©day`: the date the content was created.
    public static let quickTimeUserDataKeyCreationDate = AVMetadataKey(rawValue: "©day")
    /// The QuickTime user-data key `©des`: a description of the content.
    public static let quickTimeUserDataKeyDescription = AVMetadataKey(rawValue: "©des")
    /// The QuickTime user-data key `©gen`: the genre.
    public static let quickTimeUserDataKeyGenre = AVMetadataKey(rawValue: "©gen")
    /// The QuickTime user-data key `©mak`: the make of the recording device.
    public static let quickTimeUserDataKeyMake = AVMetadataKey(rawValue: "©mak")
    /// The QuickTime user-data key `©mod`: the model of the recording device.
    public static let quickTimeUserDataKeyModel = AVMetadataKey(rawValue: "©mod")
    /// The place of the recording as ISO 6709 text (`©xyz`).
    public static let quickTimeUserDataKeyLocationISO6709 = AVMetadataKey(rawValue: "©xyz")
    /// The QuickTime user-data key `©swr`: the software that made the content.
    public static let quickTimeUserDataKeySoftware = AVMetadataKey(rawValue: "©swr")
    /// The QuickTime user-data key `©com`: the composer.
    public static let quickTimeUserDataKeyComposer = AVMetadataKey(rawValue: "©com")
    /// The QuickTime user-data key `©xyz`: the place where the content was recorded.
    public static let quickTimeUserDataKeyLocation = AVMetadataKey(rawValue: "©xyz")
    /// The QuickTime user-data key `©enc`: the person or company that encoded it.
    public static let quickTimeUserDataKeyEncodedBy = AVMetadataKey(rawValue: "©enc")
    /// The QuickTime user-data key `©inf`: information about the content.
    public static let quickTimeUserDataKeyInformation = AVMetadataKey(rawValue: "©inf")
}

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
