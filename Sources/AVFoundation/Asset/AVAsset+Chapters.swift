import Foundation

extension AVAsset {
    /// The chapters as timed metadata groups, each with a title item (common key space, key "title")
    /// whose ``AVMetadataItem/time`` and ``AVMetadataItem/duration`` are the chapter's. Loads the header
    /// if needed (on the engine's threads).
    ///
    /// - Parameters:
    ///   - locale: The language of the titles. Chapters whose language is recorded are returned only
    ///     when it matches this locale's; chapters without one (Matroska's, as FFmpeg reads them) match
    ///     any locale.
    ///   - commonKeys: Other common keys to add items for where the chapter has them; ignored, as
    ///     Avocet's chapters carry titles only.
    /// - Returns: The chapters in the file's order, each group's ``AVTimedMetadataGroup/timeRange`` the
    ///   chapter's; empty when the asset has none in that language.
    /// - Throws: The header load's error, as ``AVAsset/load(_:)`` throws it.
    public func loadChapterMetadataGroups(withTitleLocale locale: Locale,
                                          containingItemsWithCommonKeys commonKeys: [AVMetadataKey] = []) async throws -> [AVTimedMetadataGroup] {
        AVAsset.chapters(try await facts().chapters, locale: locale)
    }

    /// The chapters in the first of `preferredLanguages` that the asset has; when none matches, the
    /// chapters whose language is not recorded, else those of the first language available. Loads the
    /// header if needed.
    ///
    /// - Parameter preferredLanguages: Language identifiers in order of preference, such as
    ///   `Locale.preferredLanguages`.
    /// - Returns: The chapters as timed metadata groups with title items; empty when the asset has none.
    /// - Throws: The header load's error, as ``AVAsset/load(_:)`` throws it.
    public func loadChapterMetadataGroups(bestMatchingPreferredLanguages preferredLanguages: [String]) async throws -> [AVTimedMetadataGroup] {
        let header = try await facts()
        for language in preferredLanguages {
            let code = MetadataValues.languageCode(of: Locale(identifier: language))
            let matching = header.chapters.filter { $0.locale.map(MetadataValues.languageCode) == code }
            if !matching.isEmpty { return matching.map(AVAsset.group) }
        }
        let unmarked = header.chapters.filter { $0.locale == nil }
        if !unmarked.isEmpty { return unmarked.map(AVAsset.group) }
        guard let first = header.chapters.first?.locale else { return [] }
        return header.chapters.filter { $0.locale == first }.map(AVAsset.group)
    }

    /// Calls `completionHandler` on a background queue with the chapters for `locale`, or the error
    /// (see ``loadChapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)``).
    ///
    /// - Parameters:
    ///   - locale: The language of the titles.
    ///   - commonKeys: Other common keys to add items for; ignored (titles only).
    ///   - completionHandler: Receives the groups and nil, or nil and the error; called exactly once.
    public func loadChapterMetadataGroups(withTitleLocale locale: Locale, containingItemsWithCommonKeys commonKeys: [AVMetadataKey],
                                          completionHandler: @escaping @Sendable ([AVTimedMetadataGroup]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) {
            try await self.loadChapterMetadataGroups(withTitleLocale: locale, containingItemsWithCommonKeys: commonKeys)
        }
    }

    /// Calls `completionHandler` on a background queue with the best-matching chapters, or the error
    /// (see ``loadChapterMetadataGroups(bestMatchingPreferredLanguages:)``).
    ///
    /// - Parameters:
    ///   - preferredLanguages: Language identifiers in order of preference.
    ///   - completionHandler: Receives the groups and nil, or nil and the error; called exactly once.
    public func loadChapterMetadataGroups(bestMatchingPreferredLanguages preferredLanguages: [String],
                                          completionHandler: @escaping @Sendable ([AVTimedMetadataGroup]?, (any Error)?) -> Void) {
        AVAsset.complete(completionHandler) { try await self.loadChapterMetadataGroups(bestMatchingPreferredLanguages: preferredLanguages) }
    }

    /// The chapters in `locale`'s language, and those whose language is not recorded.
    private static func chapters(_ chapters: [AssetFacts.Chapter], locale: Locale) -> [AVTimedMetadataGroup] {
        let wanted = MetadataValues.languageCode(of: locale)
        return chapters.filter { chapter in chapter.locale.map { MetadataValues.languageCode(of: $0) == wanted } ?? true }.map(group)
    }

    private static func group(_ chapter: AssetFacts.Chapter) -> AVTimedMetadataGroup {
        var items: [AVMetadataItem] = []
        if let title = chapter.title {
            items.append(MetadataMapping.item(key: AVMetadataKey.commonKeyTitle.rawValue, space: .common, common: .commonKeyTitle,
                                              text: title, locale: chapter.locale, time: chapter.range.start,
                                              duration: chapter.range.duration))
        }
        return AVTimedMetadataGroup(items: items, timeRange: chapter.range)
    }

    /// Synchronous form of ``loadChapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)``;
    /// blocks the calling thread while the header loads.
    ///
    /// - Parameters:
    ///   - locale: The language of the titles.
    ///   - commonKeys: Other common keys to add items for; ignored (titles only).
    /// - Returns: The chapters; empty when the asset has none, or when the header fails to load.
    @available(*, deprecated, message: "Use loadChapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:) instead")
    public func chapterMetadataGroups(withTitleLocale locale: Locale, containingItemsWithCommonKeys commonKeys: [AVMetadataKey]?) -> [AVTimedMetadataGroup] {
        guard let facts = try? blockingFacts().get() else { return [] }
        return AVAsset.chapters(facts.chapters, locale: locale)
    }
}
