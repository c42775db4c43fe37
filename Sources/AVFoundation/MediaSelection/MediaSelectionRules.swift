import Foundation

/// How Avocet makes an asset's media selection groups from its tracks, and the matching rules of the
/// groups' filters. Pure computation over values.
enum MediaSelectionRules {
    /// The key of an option's property list.
    static let propertyListKey = "AvocetTrackID"
    /// The most selections ``AVAsset/allMediaSelections`` lists: the combinations grow as the product
    /// of the groups' sizes, and a file may have hundreds of tracks.
    static let maximumSelections = 4096

    /// The groups of `tracks`, audible, legible and visual in that order (see `AVMediaSelectionGroup`).
    /// `isDefault` says whether the container marks a track as its type's default.
    static func groups(of tracks: [AVAssetTrack], isDefault: (AVAssetTrack) -> Bool) -> [AVMediaSelectionGroup] {
        let usesAlternateGroups = tracks.contains { $0.facts.alternateGroup != nil }
        var groups: [AVMediaSelectionGroup] = []
        for characteristic in [AVMediaCharacteristic.audible, .legible, .visual] {
            let candidates = tracks.filter { characteristic == self.characteristic(of: $0.mediaType) }
            var members: [AVAssetTrack]
            if usesAlternateGroups {
                // The first alternate group (in track order) that holds tracks of this kind; group 0 is none.
                let first = candidates.first { ($0.facts.alternateGroup ?? 0) != 0 }?.facts.alternateGroup
                members = first.map { group in candidates.filter { $0.facts.alternateGroup == group } } ?? []
            } else {
                members = candidates
                // One video track is the movie, not a choice: a visual group needs alternatives.
                if characteristic == .visual && members.count < 2 { members = [] }
            }
            guard !members.isEmpty else { continue }
            let options = members.map(AVMediaSelectionOption.init(track:))
            var preferred = zip(members, options).first { isDefault($0.0) }?.1
            if preferred == nil && characteristic != .legible { preferred = options.first }
            groups.append(AVMediaSelectionGroup(characteristic: characteristic, options: options, defaultOption: preferred))
        }
        return groups
    }

    /// The group characteristic a track of `mediaType` belongs under.
    static func characteristic(of mediaType: AVMediaType) -> AVMediaCharacteristic? {
        TrackFacts.characteristics(of: mediaType).first { [.audible, .legible, .visual].contains($0) }
    }

    /// Every combination of one option per group (or none, where a group allows it), the defaults'
    /// combination first, at most `maximumSelections`.
    static func allSelections(of groups: [AVMediaSelectionGroup], asset: AVAsset?) -> [AVMediaSelection] {
        var combinations: [AVMediaSelection.Choices] = [AVMediaSelection.Choices()]
        for group in groups {
            var choices: [AVMediaSelectionOption?] = group.options
            if group.allowsEmptySelection { choices.append(nil) }
            // The default first, so that the first combination is the preferred selection.
            if let index = choices.firstIndex(where: { $0 === group.defaultOption }) { choices.insert(choices.remove(at: index), at: 0) }
            var next: [AVMediaSelection.Choices] = []
            outer: for combination in combinations {
                for choice in choices {
                    guard next.count < maximumSelections else { break outer }
                    var extended = combination
                    extended.choose(choice, in: group, byHand: false)
                    next.append(extended)
                }
            }
            combinations = next
        }
        guard !groups.isEmpty else { return [] }
        return combinations.map { AVMediaSelection(asset: asset, choices: $0) }
    }

    /// The track ID an option's property list holds; nil for anything else.
    static func trackID(inPropertyList plist: Any) -> CMPersistentTrackID? {
        let value: Any?
        if let dictionary = plist as? NSDictionary {
            value = dictionary[propertyListKey]
        } else if let dictionary = plist as? [String: Any] {
            value = dictionary[propertyListKey]
        } else {
            value = nil
        }
        if let number = value as? NSNumber { return CMPersistentTrackID(exactly: number.int64Value) }
        if let number = value as? Int { return CMPersistentTrackID(exactly: number) }
        return nil
    }

    /// `options` in the order of `languages`: per language, exact tags first, then the same language
    /// with another region or script; options in no listed language left out.
    static func sorted(_ options: [AVMediaSelectionOption], byLanguages languages: [String]) -> [AVMediaSelectionOption] {
        var result: [AVMediaSelectionOption] = []
        func add(_ option: AVMediaSelectionOption) {
            if !result.contains(where: { $0 === option }) { result.append(option) }
        }
        for language in languages {
            let wanted = normalized(language)
            for option in options where option.extendedLanguageTag.map(normalized) == wanted { add(option) }
            let primary = primaryLanguage(language)
            for option in options where option.extendedLanguageTag.map(primaryLanguage) == primary { add(option) }
        }
        return result
    }

    /// Whether an option's locale has `locale`'s language, and its region where both name one.
    static func matches(_ optionLocale: Locale?, _ locale: Locale) -> Bool {
        guard let optionLocale, let wanted = locale.language.languageCode?.identifier,
              optionLocale.language.languageCode?.identifier == wanted else { return false }
        guard let region = locale.region?.identifier, let optionRegion = optionLocale.region?.identifier else { return true }
        return optionRegion == region
    }

    /// A tag in one spelling: lowercase, hyphens (`en_GB` and `EN-gb` are `en-gb`).
    private static func normalized(_ tag: String) -> String {
        tag.replacingOccurrences(of: "_", with: "-").lowercased()
    }

    /// A tag's language subtag (`en` of `en-GB`), through `Locale.Language` so that ISO 639-2 codes
    /// (`fra`) meet their ISO 639-1 twins (`fr`).
    private static func primaryLanguage(_ tag: String) -> String {
        let first = String(normalized(tag).split(separator: "-").first ?? "")
        return Locale.LanguageCode(first).identifier(.alpha2) ?? first
    }
}
