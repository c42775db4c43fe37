import Foundation

extension AVAsset {
    /// The asset's media selection group for `mediaCharacteristic`, from its header parse (run once on
    /// the engine's threads and shared with every other key; at once when already loaded).
    ///
    /// - Parameter mediaCharacteristic: `.audible`, `.legible` or `.visual`.
    /// - Returns: The group; nil for another characteristic or when the asset has no such group (a
    ///   movie with one audio track in an MP4 whose tracks are in no alternate group, a file without
    ///   subtitles).
    /// - Throws: The ``AVError`` of a failed header parse; `CancellationError` when the task is cancelled.
    public func loadMediaSelectionGroup(for mediaCharacteristic: AVMediaCharacteristic) async throws -> AVMediaSelectionGroup? {
        try await facts().mediaSelectionGroup(for: mediaCharacteristic)
    }

    /// Calls `completionHandler` on a background queue with the media selection group, or the error
    /// (see ``loadMediaSelectionGroup(for:)``).
    ///
    /// - Parameters:
    ///   - mediaCharacteristic: `.audible`, `.legible` or `.visual`.
    ///   - completionHandler: Receives the group (nil when there is none) and nil, or nil and the
    ///     error; called exactly once.
    public func loadMediaSelectionGroup(for mediaCharacteristic: AVMediaCharacteristic,
                                        completionHandler: @escaping @Sendable (AVMediaSelectionGroup?, (any Error)?) -> Void) {
        AVAsset.complete({ group, error in completionHandler(group ?? nil, error) }) {
            try await self.loadMediaSelectionGroup(for: mediaCharacteristic)
        }
    }
}

// The synchronous forms Apple deprecates: each blocks the calling thread until the header is parsed
// (at once when it was), and gives an empty value when the parse fails.
extension _AVAssetAccessors where Self: AVAsset {
    /// The characteristics that have a media selection group, loaded while the calling thread waits;
    /// empty when loading fails.
    @available(*, deprecated, message: "Use load(.availableMediaCharacteristicsWithMediaSelectionOptions) instead")
    public var availableMediaCharacteristicsWithMediaSelectionOptions: [AVMediaCharacteristic] {
        blockingValue(.availableMediaCharacteristicsWithMediaSelectionOptions, fallback: [])
    }

    /// The media selection group for `mediaCharacteristic`, loaded while the calling thread waits.
    ///
    /// - Parameter mediaCharacteristic: `.audible`, `.legible` or `.visual`.
    /// - Returns: The group; nil when there is none or loading fails.
    @available(*, deprecated, message: "Use loadMediaSelectionGroup(for:) instead")
    public func mediaSelectionGroup(forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> AVMediaSelectionGroup? {
        (try? blockingFacts().get())?.mediaSelectionGroup(for: mediaCharacteristic)
    }

    /// The selection of each group's default option, loaded while the calling thread waits; a
    /// selection of nothing when loading fails.
    @available(*, deprecated, message: "Use load(.preferredMediaSelection) instead")
    public var preferredMediaSelection: AVMediaSelection {
        blockingValue(.preferredMediaSelection, fallback: AVMediaSelection(asset: self, choices: AVMediaSelection.Choices()))
    }

    /// Every combination of options, loaded while the calling thread waits; empty when loading fails.
    @available(*, deprecated, message: "Use load(.allMediaSelections) instead")
    public var allMediaSelections: [AVMediaSelection] { blockingValue(.allMediaSelections, fallback: []) }
}
