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

extension AVMetadataIdentifier {
    /// The title, in the common key space (`common/title`).
    public static let commonIdentifierTitle = AVMetadataIdentifier(rawValue: "common/title")
    /// The person or organisation that made the content, in the common key space (`common/creator`).
    public static let commonIdentifierCreator = AVMetadataIdentifier(rawValue: "common/creator")
    /// The subject, in the common key space (`common/subject`).
    public static let commonIdentifierSubject = AVMetadataIdentifier(rawValue: "common/subject")
    /// A description of the content, in the common key space (`common/description`).
    public static let commonIdentifierDescription = AVMetadataIdentifier(rawValue: "common/description")
    /// The publisher, in the common key space (`common/publisher`).
    public static let commonIdentifierPublisher = AVMetadataIdentifier(rawValue: "common/publisher")
    /// A contributor, in the common key space (`common/contributor`).
    public static let commonIdentifierContributor = AVMetadataIdentifier(rawValue: "common/contributor")
    /// The date the content was created, in the common key space (`common/creationDate`).
    public static let commonIdentifierCreationDate = AVMetadataIdentifier(rawValue: "common/creationDate")
    /// The date the content was last modified, in the common key space (`common/lastModifiedDate`).
    public static let commonIdentifierLastModifiedDate = AVMetadataIdentifier(rawValue: "common/lastModifiedDate")
    /// The nature or genre of the content, in the common key space (`common/type`).
    public static let commonIdentifierType = AVMetadataIdentifier(rawValue: "common/type")
    /// The format of the content, in the common key space (`common/format`).
    public static let commonIdentifierFormat = AVMetadataIdentifier(rawValue: "common/format")
    /// An identifier of the content, in the common key space (`common/identifier`).
    public static let commonIdentifierAssetIdentifier = AVMetadataIdentifier(rawValue: "common/identifier")
    /// The resource the content derives from, in the common key space (`common/source`).
    public static let commonIdentifierSource = AVMetadataIdentifier(rawValue: "common/source")
    /// The language of the content, in the common key space (`common/language`).
    public static let commonIdentifierLanguage = AVMetadataIdentifier(rawValue: "common/language")
    /// A related resource, in the common key space (`common/relation`).
    public static let commonIdentifierRelation = AVMetadataIdentifier(rawValue: "common/relation")
    /// The place where the content was recorded, in the common key space (`common/location`).
    public static let commonIdentifierLocation = AVMetadataIdentifier(rawValue: "common/location")
    /// The copyright statement, in the common key space (`common/copyrights`).
    public static let commonIdentifierCopyrights = AVMetadataIdentifier(rawValue: "common/copyrights")
    /// The album name, in the common key space (`common/albumName`).
    public static let commonIdentifierAlbumName = AVMetadataIdentifier(rawValue: "common/albumName")
    /// The author, in the common key space (`common/author`).
    public static let commonIdentifierAuthor = AVMetadataIdentifier(rawValue: "common/author")
    /// The artist, in the common key space (`common/artist`).
    public static let commonIdentifierArtist = AVMetadataIdentifier(rawValue: "common/artist")
    /// The artwork, as image data, in the common key space (`common/artwork`).
    public static let commonIdentifierArtwork = AVMetadataIdentifier(rawValue: "common/artwork")
    /// The make of the recording device, in the common key space (`common/make`).
    public static let commonIdentifierMake = AVMetadataIdentifier(rawValue: "common/make")
    /// The model of the recording device, in the common key space (`common/model`).
    public static let commonIdentifierModel = AVMetadataIdentifier(rawValue: "common/model")
    /// The software that made the content, in the common key space (`common/software`).
    public static let commonIdentifierSoftware = AVMetadataIdentifier(rawValue: "common/software")
    /// A description of the content for accessibility, in the common key space (`common/accessibilityDescription`).
    public static let commonIdentifierAccessibilityDescription = AVMetadataIdentifier(rawValue: "common/accessibilityDescription")
    /// The song name, in the iTunes key space (`itsk/%A9nam`).
    public static let iTunesMetadataSongName = AVMetadataIdentifier(rawValue: "itsk/%A9nam")
    /// The artist, in the iTunes key space (`itsk/%A9ART`).
    public static let iTunesMetadataArtist = AVMetadataIdentifier(rawValue: "itsk/%A9ART")
    /// The album artist, in the iTunes key space (`itsk/aART`).
    public static let iTunesMetadataAlbumArtist = AVMetadataIdentifier(rawValue: "itsk/aART")
    /// The album, in the iTunes key space (`itsk/%A9alb`).
    public static let iTunesMetadataAlbum = AVMetadataIdentifier(rawValue: "itsk/%A9alb")
    /// The composer, in the iTunes key space (`itsk/%A9wrt`).
    public static let iTunesMetadataComposer = AVMetadataIdentifier(rawValue: "itsk/%A9wrt")
    /// A comment, in the iTunes key space (`itsk/%A9cmt`).
    public static let iTunesMetadataUserComment = AVMetadataIdentifier(rawValue: "itsk/%A9cmt")
    /// The genre, as text, in the iTunes key space (`itsk/%A9gen`).
    public static let iTunesMetadataUserGenre = AVMetadataIdentifier(rawValue: "itsk/%A9gen")
    /// The genre, as an ID3v1 genre number, in the iTunes key space (`itsk/gnre`).
    public static let iTunesMetadataPredefinedGenre = AVMetadataIdentifier(rawValue: "itsk/gnre")
    /// The release date, in the iTunes key space (`itsk/%A9day`).
    public static let iTunesMetadataReleaseDate = AVMetadataIdentifier(rawValue: "itsk/%A9day")
    /// The track number, in the iTunes key space (`itsk/trkn`).
    public static let iTunesMetadataTrackNumber = AVMetadataIdentifier(rawValue: "itsk/trkn")
    /// The disc number, in the iTunes key space (`itsk/disk`).
    public static let iTunesMetadataDiscNumber = AVMetadataIdentifier(rawValue: "itsk/disk")
    /// The grouping, in the iTunes key space (`itsk/%A9grp`).
    public static let iTunesMetadataGrouping = AVMetadataIdentifier(rawValue: "itsk/%A9grp")
    /// The lyrics, in the iTunes key space (`itsk/%A9lyr`).
    public static let iTunesMetadataLyrics = AVMetadataIdentifier(rawValue: "itsk/%A9lyr")
    /// The encoding tool, in the iTunes key space (`itsk/%A9too`).
    public static let iTunesMetadataEncodingTool = AVMetadataIdentifier(rawValue: "itsk/%A9too")
    /// The person or company that encoded it, in the iTunes key space (`itsk/%A9enc`).
    public static let iTunesMetadataEncodedBy = AVMetadataIdentifier(rawValue: "itsk/%A9enc")
    /// The copyright statement, in the iTunes key space (`itsk/cprt`).
    public static let iTunesMetadataCopyright = AVMetadataIdentifier(rawValue: "itsk/cprt")
    /// The cover art, as image data, in the iTunes key space (`itsk/covr`).
    public static let iTunesMetadataCoverArt = AVMetadataIdentifier(rawValue: "itsk/covr")
    /// A description of the content, in the iTunes key space (`itsk/desc`).
    public static let iTunesMetadataDescription = AVMetadataIdentifier(rawValue: "itsk/desc")
    /// The tempo in beats per minute, in the iTunes key space (`itsk/tmpo`).
    public static let iTunesMetadataBeatsPerMin = AVMetadataIdentifier(rawValue: "itsk/tmpo")
    /// The author, in the iTunes key space (`itsk/%A9aut`).
    public static let iTunesMetadataAuthor = AVMetadataIdentifier(rawValue: "itsk/%A9aut")
    /// The publisher, in the iTunes key space (`itsk/%A9pub`).
    public static let iTunesMetadataPublisher = AVMetadataIdentifier(rawValue: "itsk/%A9pub")
    /// The title, in the ID3 key space (`id3/TIT2`).
    public static let id3MetadataTitleDescription = AVMetadataIdentifier(rawValue: "id3/TIT2")
    /// The lead performer, in the ID3 key space (`id3/TPE1`).
    public static let id3MetadataLeadPerformer = AVMetadataIdentifier(rawValue: "id3/TPE1")
    /// The band or album artist, in the ID3 key space (`id3/TPE2`).
    public static let id3MetadataBand = AVMetadataIdentifier(rawValue: "id3/TPE2")
    /// The album, in the ID3 key space (`id3/TALB`).
    public static let id3MetadataAlbumTitle = AVMetadataIdentifier(rawValue: "id3/TALB")
    /// The composer, in the ID3 key space (`id3/TCOM`).
    public static let id3MetadataComposer = AVMetadataIdentifier(rawValue: "id3/TCOM")
    /// The genre, in the ID3 key space (`id3/TCON`).
    public static let id3MetadataContentType = AVMetadataIdentifier(rawValue: "id3/TCON")
    /// The recording time (ID3v2.4), in the ID3 key space (`id3/TDRC`).
    public static let id3MetadataRecordingTime = AVMetadataIdentifier(rawValue: "id3/TDRC")
    /// The year (ID3v2.3), in the ID3 key space (`id3/TYER`).
    public static let id3MetadataYear = AVMetadataIdentifier(rawValue: "id3/TYER")
    /// The track number, in the ID3 key space (`id3/TRCK`).
    public static let id3MetadataTrackNumber = AVMetadataIdentifier(rawValue: "id3/TRCK")
    /// The disc number within a set, in the ID3 key space (`id3/TPOS`).
    public static let id3MetadataPartOfASet = AVMetadataIdentifier(rawValue: "id3/TPOS")
    /// The copyright statement, in the ID3 key space (`id3/TCOP`).
    public static let id3MetadataCopyright = AVMetadataIdentifier(rawValue: "id3/TCOP")
    /// The encoding software and settings, in the ID3 key space (`id3/TSSE`).
    public static let id3MetadataEncodedWith = AVMetadataIdentifier(rawValue: "id3/TSSE")
    /// The person or company that encoded it, in the ID3 key space (`id3/TENC`).
    public static let id3MetadataEncodedBy = AVMetadataIdentifier(rawValue: "id3/TENC")
    /// The publisher, in the ID3 key space (`id3/TPUB`).
    public static let id3MetadataPublisher = AVMetadataIdentifier(rawValue: "id3/TPUB")
    /// The language of the content, in the ID3 key space (`id3/TLAN`).
    public static let id3MetadataLanguage = AVMetadataIdentifier(rawValue: "id3/TLAN")
    /// A comment, in the ID3 key space (`id3/COMM`).
    public static let id3MetadataComments = AVMetadataIdentifier(rawValue: "id3/COMM")
    /// The lyrics, in the ID3 key space (`id3/USLT`).
    public static let id3MetadataUnsynchronizedLyric = AVMetadataIdentifier(rawValue: "id3/USLT")
    /// An attached picture, such as cover art, in the ID3 key space (`id3/APIC`).
    public static let id3MetadataAttachedPicture = AVMetadataIdentifier(rawValue: "id3/APIC")
    /// The original release time, in the ID3 key space (`id3/TDOR`).
    public static let id3MetadataOriginalReleaseTime = AVMetadataIdentifier(rawValue: "id3/TDOR")
    /// The title, in the QuickTime metadata key space (`mdta/com.apple.quicktime.title`).
    public static let quickTimeMetadataTitle = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.title")
    /// The artist, in the QuickTime metadata key space (`mdta/com.apple.quicktime.artist`).
    public static let quickTimeMetadataArtist = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.artist")
    /// The album, in the QuickTime metadata key space (`mdta/com.apple.quicktime.album`).
    public static let quickTimeMetadataAlbum = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.album")
    /// The author, in the QuickTime metadata key space (`mdta/com.apple.quicktime.author`).
    public static let quickTimeMetadataAuthor = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.author")
    /// A comment, in the QuickTime metadata key space (`mdta/com.apple.quicktime.comment`).
    public static let quickTimeMetadataComment = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.comment")
    /// The copyright statement, in the QuickTime metadata key space (`mdta/com.apple.quicktime.copyright`).
    public static let quickTimeMetadataCopyright = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.copyright")
    /// The date the content was created, in the QuickTime metadata key space (`mdta/com.apple.quicktime.creationdate`).
    public static let quickTimeMetadataCreationDate = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.creationdate")
    /// A description of the content, in the QuickTime metadata key space (`mdta/com.apple.quicktime.description`).
    public static let quickTimeMetadataDescription = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.description")
    /// The genre, in the QuickTime metadata key space (`mdta/com.apple.quicktime.genre`).
    public static let quickTimeMetadataGenre = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.genre")
    /// Keywords, in the QuickTime metadata key space (`mdta/com.apple.quicktime.keywords`).
    public static let quickTimeMetadataKeywords = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.keywords")
    /// The make of the recording device, in the QuickTime metadata key space (`mdta/com.apple.quicktime.make`).
    public static let quickTimeMetadataMake = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.make")
    /// The model of the recording device, in the QuickTime metadata key space (`mdta/com.apple.quicktime.model`).
    public static let quickTimeMetadataModel = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.model")
    /// The software that made the content, in the QuickTime metadata key space (`mdta/com.apple.quicktime.software`).
    public static let quickTimeMetadataSoftware = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.software")
    /// The publisher, in the QuickTime metadata key space (`mdta/com.apple.quicktime.publisher`).
    public static let quickTimeMetadataPublisher = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.publisher")
    /// The artwork, as image data, in the QuickTime metadata key space (`mdta/com.apple.quicktime.artwork`).
    public static let quickTimeMetadataArtwork = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.artwork")
    /// The location, as an ISO 6709 string, in the QuickTime metadata key space (`mdta/com.apple.quicktime.location.ISO6709`).
    public static let quickTimeMetadataLocationISO6709 = AVMetadataIdentifier(rawValue: "mdta/com.apple.quicktime.location.ISO6709")
    /// The full name (title), in the QuickTime user-data key space (`udta/%A9nam`).
    public static let quickTimeUserDataFullName = AVMetadataIdentifier(rawValue: "udta/%A9nam")
    /// The artist, in the QuickTime user-data key space (`udta/%A9ART`).
    public static let quickTimeUserDataArtist = AVMetadataIdentifier(rawValue: "udta/%A9ART")
    /// The album, in the QuickTime user-data key space (`udta/%A9alb`).
    public static let quickTimeUserDataAlbum = AVMetadataIdentifier(rawValue: "udta/%A9alb")
    /// The author, in the QuickTime user-data key space (`udta/%A9aut`).
    public static let quickTimeUserDataAuthor = AVMetadataIdentifier(rawValue: "udta/%A9aut")
    /// A comment, in the QuickTime user-data key space (`udta/%A9cmt`).
    public static let quickTimeUserDataComment = AVMetadataIdentifier(rawValue: "udta/%A9cmt")
    /// The copyright statement, in the QuickTime user-data key space (`udta/%A9cpy`).
    public static let quickTimeUserDataCopyright = AVMetadataIdentifier(rawValue: "udta/%A9cpy")
    /// The date the content was created, in the QuickTime user-data key space (`udta/%A9day`).
    public static let quickTimeUserDataCreationDate = AVMetadataIdentifier(rawValue: "udta/%A9day")
    /// A description of the content, in the QuickTime user-data key space (`udta/%A9des`).
    public static let quickTimeUserDataDescription = AVMetadataIdentifier(rawValue: "udta/%A9des")
    /// The genre, in the QuickTime user-data key space (`udta/%A9gen`).
    public static let quickTimeUserDataGenre = AVMetadataIdentifier(rawValue: "udta/%A9gen")
    /// The make of the recording device, in the QuickTime user-data key space (`udta/%A9mak`).
    public static let quickTimeUserDataMake = AVMetadataIdentifier(rawValue: "udta/%A9mak")
    /// The model of the recording device, in the QuickTime user-data key space (`udta/%A9mod`).
    public static let quickTimeUserDataModel = AVMetadataIdentifier(rawValue: "udta/%A9mod")
    /// The place of the recording as ISO 6709 text, in the QuickTime user-data key space (`udta/%A9xyz`).
    public static let quickTimeUserDataLocationISO6709 = AVMetadataIdentifier(rawValue: "udta/%A9xyz")
    /// The software that made the content, in the QuickTime user-data key space (`udta/%A9swr`).
    public static let quickTimeUserDataSoftware = AVMetadataIdentifier(rawValue: "udta/%A9swr")
    /// The composer, in the QuickTime user-data key space (`udta/%A9com`).
    public static let quickTimeUserDataComposer = AVMetadataIdentifier(rawValue: "udta/%A9com")
    /// The place where the content was recorded, in the QuickTime user-data key space (`udta/%A9xyz`).
    public static let quickTimeUserDataLocation = AVMetadataIdentifier(rawValue: "udta/%A9xyz")
    /// The person or company that encoded it, in the QuickTime user-data key space (`udta/%A9enc`).
    public static let quickTimeUserDataEncodedBy = AVMetadataIdentifier(rawValue: "udta/%A9enc")
    /// Information about the content, in the QuickTime user-data key space (`udta/%A9inf`).
    public static let quickTimeUserDataInformation = AVMetadataIdentifier(rawValue: "udta/%A9inf")
}

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
