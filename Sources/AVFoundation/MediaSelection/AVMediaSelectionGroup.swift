import Foundation

/// A set of options of which one at a time is presented: the audio languages of a movie (the audible
/// group), its subtitles (the legible group), alternative video (the visual group).
///
/// Avocet builds an asset's groups from its tracks when the header is parsed (see
/// ``AVAsset/loadMediaSelectionGroup(for:)``): in MP4 and QuickTime files, the tracks of one alternate
/// group (the track headers' `alternate_group`, which FFmpeg's muxer sets to one number per media
/// type); in containers without alternate groups (Matroska, WebM, Ogg, MPEG-TS, AVI, HLS), all the
/// tracks of one media type. Groups are immutable and safe from any thread.
open class AVMediaSelectionGroup: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// The characteristic the group is for (`.audible`, `.legible` or `.visual`).
    let characteristic: AVMediaCharacteristic

    /// The options, in the order of their tracks in the file.
    public let options: [AVMediaSelectionOption]
    /// The option presented when nothing else is chosen: the first whose track the container marks as
    /// the default (MP4's enabled flag, Matroska's default flag); in an audible or visual group with
    /// none marked, the first option; in a legible group with none marked, nil (no subtitles).
    public let defaultOption: AVMediaSelectionOption?
    /// Whether the group may have no option selected: true for subtitles (legible), false for sound
    /// and video.
    public let allowsEmptySelection: Bool

    init(characteristic: AVMediaCharacteristic, options: [AVMediaSelectionOption], defaultOption: AVMediaSelectionOption?) {
        self.characteristic = characteristic
        self.options = options
        self.defaultOption = defaultOption
        allowsEmptySelection = characteristic == .legible
        super.init()
    }

    /// The group's own option for `option`: the one of the same track (an option of the same asset
    /// loaded again is another object); nil when the group has none.
    func member(_ option: AVMediaSelectionOption) -> AVMediaSelectionOption? {
        options.first { $0.trackID == option.trackID }
    }

    /// Whether `option` can be chosen in the group: one of its options, or none where it allows that.
    func accepts(_ option: AVMediaSelectionOption?) -> Bool {
        option.map { member($0) != nil } ?? allowsEmptySelection
    }

    /// The option that `plist` identifies, as ``AVMediaSelectionOption/propertyList()`` made it.
    ///
    /// - Parameter plist: A property list from an option of this group (or of the same asset read again).
    /// - Returns: The option, or nil when the property list names none of this group's options.
    open func mediaSelectionOption(withPropertyList plist: Any) -> AVMediaSelectionOption? {
        guard let trackID = MediaSelectionRules.trackID(inPropertyList: plist) else { return nil }
        return options.first { $0.trackID == trackID }
    }

    /// The options that Avocet can play (``AVMediaSelectionOption/isPlayable``), in their order.
    ///
    /// - Parameter mediaSelectionOptions: The options to filter.
    /// - Returns: Those of them that are playable.
    open class func playableMediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption]) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter(\.isPlayable)
    }

    /// The options in one of `preferredLanguages`, ordered by that list: for each language in turn,
    /// the options whose tag is that language exactly, then those of the same language with another
    /// region or script (`en` matches `en-GB`, `pt-BR` matches `pt`). Options in none of the languages
    /// are left out. No option comes twice.
    ///
    /// - Parameters:
    ///   - mediaSelectionOptions: The options to filter.
    ///   - preferredLanguages: BCP 47 tags in order of preference, such as `Locale.preferredLanguages`.
    /// - Returns: The matching options, best first.
    open class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                          filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String]) -> [AVMediaSelectionOption] {
        MediaSelectionRules.sorted(mediaSelectionOptions, byLanguages: preferredLanguages)
    }

    /// The options whose locale has `locale`'s language, and its region where both name one (an
    /// option in `de` matches `de_DE`; one in `pt-BR` does not match `pt_PT`).
    ///
    /// - Parameters:
    ///   - mediaSelectionOptions: The options to filter.
    ///   - locale: The locale to match.
    /// - Returns: The matching options, in their order.
    open class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption], with locale: Locale) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { MediaSelectionRules.matches($0.locale, locale) }
    }

    /// The options that have every one of `mediaCharacteristics`.
    ///
    /// - Parameters:
    ///   - mediaSelectionOptions: The options to filter.
    ///   - mediaCharacteristics: The characteristics an option must all have.
    /// - Returns: The matching options, in their order.
    open class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                          withMediaCharacteristics mediaCharacteristics: [AVMediaCharacteristic]) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { option in mediaCharacteristics.allSatisfy { option.hasMediaCharacteristic($0) } }
    }

    /// The options that have none of `mediaCharacteristics`.
    ///
    /// - Parameters:
    ///   - mediaSelectionOptions: The options to filter.
    ///   - mediaCharacteristics: The characteristics an option must not have.
    /// - Returns: The matching options, in their order.
    open class func mediaSelectionOptions(from mediaSelectionOptions: [AVMediaSelectionOption],
                                          withoutMediaCharacteristics mediaCharacteristics: [AVMediaCharacteristic]) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { option in !mediaCharacteristics.contains { option.hasMediaCharacteristic($0) } }
    }

    /// The group itself: groups are immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    open override var description: String {
        "<AVMediaSelectionGroup \(characteristic.rawValue): \(options.count) options, default \(defaultOption.map { "track \($0.trackID)" } ?? "none")>"
    }
}
