import Foundation

/// One choice in a media selection group: an audio language, a subtitle track, an alternative video.
///
/// An option stands for one track of the asset (Avocet builds options from the container's tracks:
/// their language, title, flags and format); it holds what it reports and reads nothing. Options are
/// immutable and safe from any thread.
open class AVMediaSelectionOption: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; its metadata items guard themselves.

    /// The ID of the track the option selects, in its asset. Avocet's: Apple does not say which
    /// track an option stands for.
    let trackID: CMPersistentTrackID
    private let characteristics: [AVMediaCharacteristic]
    private let title: String?
    private let allMetadata: [AVMetadataItem]
    private let storedCommonMetadata: [AVMetadataItem]
    private let formats: [AVMetadataFormat]

    /// The kind of media the option presents.
    public let mediaType: AVMediaType
    /// The media subtypes of the option's track (its formats' four-character codes, such as `avc1`
    /// or `aac `), as numbers.
    public let mediaSubTypes: [NSNumber]
    /// Whether Avocet can decode the option's media (its track's `isPlayable`).
    public let isPlayable: Bool
    /// The option's language as a BCP 47 tag (`en`, `fr`), from the track's language; nil when the
    /// track has none or says "und".
    public let extendedLanguageTag: String?
    /// The option's language as a locale; nil when the track states none.
    public let locale: Locale?

    /// The channel count of the option's sound, where its format says (for variants' rendition
    /// attributes).
    let channelCount: Int?

    /// The option of `track`, with the track's values as its header gave them.
    init(track: AVAssetTrack) {
        let facts = track.facts
        trackID = track.trackID
        mediaType = track.mediaType
        characteristics = facts.mediaCharacteristics
        mediaSubTypes = facts.formatDescriptions.map { NSNumber(value: $0.mediaSubType.rawValue) }
        isPlayable = facts.isPlayable
        channelCount = facts.formatDescriptions.first?.audioStreamBasicDescription.map { Int($0.mChannelsPerFrame) }.flatMap { $0 > 0 ? $0 : nil }
        extendedLanguageTag = facts.extendedLanguageTag
        locale = facts.extendedLanguageTag.map { Locale(identifier: $0) }
        allMetadata = facts.metadata
        storedCommonMetadata = facts.commonMetadata
        formats = facts.availableMetadataFormats
        title = facts.renditionName ?? facts.commonMetadata.first { $0.commonKey == .commonKeyTitle }?.currentStringValue
        super.init()
    }

    /// Whether the option has `mediaCharacteristic`: `.audible`, `.legible` or `.visual` by its media
    /// type, and the ones the container's flags give (`.containsOnlyForcedSubtitles` for a forced
    /// subtitle track, `.describesVideoForAccessibility` for audio description, the hearing-impaired
    /// pair, `.dubbedTranslation`, `.isOriginalContent`).
    ///
    /// - Parameter mediaCharacteristic: The characteristic to look for.
    /// - Returns: True when the option's track has it.
    open func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        characteristics.contains(mediaCharacteristic)
    }

    /// The track's metadata that maps onto the common key space (its title, for one).
    open var commonMetadata: [AVMetadataItem] { storedCommonMetadata }

    /// The formats of the track's metadata, as raw strings.
    open var availableMetadataFormats: [String] { formats.map(\.rawValue) }

    /// The track's metadata items of one format.
    ///
    /// - Parameter format: A metadata format's raw value, as ``availableMetadataFormats`` lists them.
    /// - Returns: The items in that format; empty for a format the track has none of.
    open func metadata(forFormat format: String) -> [AVMetadataItem] {
        allMetadata.filter { $0.keySpace?.format.rawValue == format }
    }

    /// The option of another group that goes with this one (Apple's: a subtitle rendition tied to an
    /// audio rendition in HTTP Live Streaming). A file's tracks state no such tie, so Avocet's options
    /// give nil.
    ///
    /// - Parameter mediaSelectionGroup: The group to look in.
    /// - Returns: Nil.
    open func associatedMediaSelectionOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        nil
    }

    /// A property list that identifies the option within its group, for saving a choice and finding
    /// the option again with ``AVMediaSelectionGroup/mediaSelectionOption(withPropertyList:)``. Avocet's
    /// is a dictionary holding the track ID; treat it as opaque.
    ///
    /// - Returns: An `NSDictionary` that survives `PropertyListSerialization`.
    open func propertyList() -> Any {
        NSDictionary(dictionary: [MediaSelectionRules.propertyListKey: NSNumber(value: trackID)])
    }

    /// A name to show, in the current locale: an HLS rendition's `NAME`, or the track's title when it
    /// has one, else its language's name ("English", "français" in a French locale), else the name of
    /// an unknown language.
    open var displayName: String { displayName(with: Locale.current) }

    /// A name to show, in `locale`: the track's title when it has one (titles are not translated),
    /// else its language's name in `locale`, else the name of an unknown language in `locale`.
    ///
    /// - Parameter locale: The locale to name the language in.
    /// - Returns: The name.
    open func displayName(with locale: Locale) -> String {
        if let title, !title.isEmpty { return title }
        let code = self.locale?.language.languageCode?.identifier ?? "und"
        return locale.localizedString(forLanguageCode: code) ?? code
    }

    /// The option itself: options are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// Options are equal when they stand for the same track with the same values.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVMediaSelectionOption else { return false }
        return other === self || (other.trackID == trackID && other.mediaType == mediaType
            && other.extendedLanguageTag == extendedLanguageTag && other.characteristics == characteristics && other.title == title)
    }

    open override var hash: Int { Int(trackID) }

    open override var description: String {
        "<AVMediaSelectionOption track \(trackID) \(mediaType.rawValue) \(extendedLanguageTag ?? "und") \"\(displayName)\">"
    }
}
