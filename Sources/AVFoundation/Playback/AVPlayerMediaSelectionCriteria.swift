import Foundation

/// What a player prefers when it chooses an item's option in a media selection group by itself: the
/// languages, then the characteristics, in order of preference. Immutable.
open class AVPlayerMediaSelectionCriteria: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.

    /// BCP 47 language tags, most preferred first; nil for no preference.
    public let preferredLanguages: [String]?
    /// Characteristics an option should have, most important first; nil for no preference.
    public let preferredMediaCharacteristics: [AVMediaCharacteristic]?
    /// Characteristics an option must have to be considered at all (Apple's, from iOS 12); nil for none.
    public let principalMediaCharacteristics: [AVMediaCharacteristic]?

    /// Criteria of languages and characteristics.
    ///
    /// - Parameters:
    ///   - preferredLanguages: Language tags, most preferred first.
    ///   - preferredMediaCharacteristics: Characteristics, most important first.
    public init(preferredLanguages: [String]?, preferredMediaCharacteristics: [AVMediaCharacteristic]?) {
        self.preferredLanguages = preferredLanguages
        self.preferredMediaCharacteristics = preferredMediaCharacteristics
        principalMediaCharacteristics = nil
        super.init()
    }

    /// Criteria that also name the characteristics an option must have.
    ///
    /// - Parameters:
    ///   - principalMediaCharacteristics: Characteristics every option considered must have.
    ///   - preferredLanguages: Language tags, most preferred first.
    ///   - preferredMediaCharacteristics: Characteristics, most important first.
    public init(principalMediaCharacteristics: [AVMediaCharacteristic]?, preferredLanguages: [String]?,
                preferredMediaCharacteristics: [AVMediaCharacteristic]?) {
        self.principalMediaCharacteristics = principalMediaCharacteristics
        self.preferredLanguages = preferredLanguages
        self.preferredMediaCharacteristics = preferredMediaCharacteristics
        super.init()
    }

    /// The option these criteria choose in `group`: among its playable options having the principal
    /// characteristics, those in the first preferred language that has any, then among them those
    /// with the most important preferred characteristic that any has; the first of what is left. In a
    /// subtitle group, forced-only subtitles count only when the criteria name that characteristic,
    /// and preferred languages that no option has choose no subtitles; otherwise, nothing matching
    /// leaves the group's default.
    func choice(in group: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        var candidates = AVMediaSelectionGroup.playableMediaSelectionOptions(from: group.options)
        // Forced-only subtitles are not a language's subtitles: chosen only when the criteria ask for them.
        let asksForced = (preferredMediaCharacteristics ?? []).contains(.containsOnlyForcedSubtitles)
            || (principalMediaCharacteristics ?? []).contains(.containsOnlyForcedSubtitles)
        if group.characteristic == .legible && !asksForced {
            candidates = AVMediaSelectionGroup.mediaSelectionOptions(from: candidates, withoutMediaCharacteristics: [.containsOnlyForcedSubtitles])
        }
        if let principal = principalMediaCharacteristics, !principal.isEmpty {
            candidates = AVMediaSelectionGroup.mediaSelectionOptions(from: candidates, withMediaCharacteristics: principal)
        }
        if let languages = preferredLanguages, !languages.isEmpty {
            let inLanguage = AVMediaSelectionGroup.mediaSelectionOptions(from: candidates, filteredAndSortedAccordingToPreferredLanguages: languages)
            if inLanguage.isEmpty { return group.allowsEmptySelection ? nil : group.defaultOption }
            if let first = inLanguage.first?.extendedLanguageTag {
                candidates = inLanguage.filter { $0.extendedLanguageTag == first }
            }
        }
        for characteristic in preferredMediaCharacteristics ?? [] {
            let having = candidates.filter { $0.hasMediaCharacteristic(characteristic) }
            if !having.isEmpty {
                candidates = having
                break
            }
        }
        return candidates.first ?? group.defaultOption
    }
}
