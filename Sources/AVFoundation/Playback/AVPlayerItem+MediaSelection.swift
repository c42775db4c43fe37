import Foundation

extension AVPlayerItem {
    /// Posted (object: the item) when the item's media selection changed.
    public static let mediaSelectionDidChangeNotification = NSNotification.Name("AVPlayerItemMediaSelectionDidChangeNotification")

    /// The option chosen in each of the asset's media selection groups: when the item loads, by its
    /// player's criteria (see ``AVPlayer/appliesMediaSelectionCriteriaAutomatically``) or each group's
    /// default; then as ``select(_:in:)`` changes it. Before the item has loaded, a selection of
    /// nothing. In memory.
    public var currentMediaSelection: AVMediaSelection {
        AVMediaSelection(asset: asset, choices: snapshot.selection)
    }

    /// Presents `mediaSelectionOption` in `mediaSelectionGroup` in place of the group's other options
    /// (nil: none, in a group that allows it): the tracks of the group's other options are disabled,
    /// the chosen one's enabled, and a player playing the item starts its sound again from its current
    /// time with the new track (what the device held of the old one is dropped, so the switch costs
    /// no more than the device's own start). An option that is not the group's, nil in a group that needs a choice, or a group that
    /// is not the asset's changes nothing. Posts ``mediaSelectionDidChangeNotification`` when the
    /// choice changed. A choice made here holds until ``selectMediaOptionAutomatically(in:)``; made
    /// before the item has loaded (with a group loaded from the asset), it holds when the item loads,
    /// in place of the player's own choice.
    ///
    /// - Parameters:
    ///   - mediaSelectionOption: One of the group's options, or nil for none.
    ///   - mediaSelectionGroup: One of the item's asset's groups.
    public func select(_ mediaSelectionOption: AVMediaSelectionOption?, in mediaSelectionGroup: AVMediaSelectionGroup) {
        choose(mediaSelectionOption, in: mediaSelectionGroup, byHand: true)
    }

    /// Lets the player choose in `mediaSelectionGroup` by its criteria again, as when the item loaded.
    /// Does nothing when the player does not apply its criteria automatically, or the item has no
    /// player.
    ///
    /// - Parameter mediaSelectionGroup: One of the item's asset's groups.
    public func selectMediaOptionAutomatically(in mediaSelectionGroup: AVMediaSelectionGroup) {
        guard let player, player.appliesMediaSelectionCriteriaAutomatically else { return }
        choose(player.automaticOption(in: mediaSelectionGroup), in: mediaSelectionGroup, byHand: false)
    }

    /// The option chosen in `mediaSelectionGroup`.
    ///
    /// - Parameter mediaSelectionGroup: One of the item's asset's groups.
    /// - Returns: The option, as the group holds it; nil when none is chosen.
    @available(*, deprecated, message: "Use currentMediaSelection instead")
    public func selectedMediaOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        currentMediaSelection.selectedMediaOption(in: mediaSelectionGroup)
    }

    private func choose(_ option: AVMediaSelectionOption?, in group: AVMediaSelectionGroup, byHand: Bool) {
        let changed: Bool = state.change { s in
            // Before the item has loaded its groups, the choice is kept and applied when it has.
            if !s.selectionGroups.isEmpty, !s.selectionGroups.contains(where: { $0.characteristic == group.characteristic }) { return false }
            let before = s.selection.option(in: group)?.trackID
            guard s.selection.choose(option, in: group, byHand: byHand) else { return false }
            AVPlayerItem.present(s.selection, of: s.selectionGroups, on: s.tracks)
            return before != option?.trackID
        }
        guard changed else { return }
        // Only a change of sound starts the sound again; subtitles and video leave it playing.
        if group.characteristic == .audible { player?.mediaSelectionDidChange(self) }
        for output in snapshot.outputs { output.itemTracksChanged() }
        NotificationCenter.default.post(name: AVPlayerItem.mediaSelectionDidChangeNotification, object: self)
    }

    /// Enables the tracks of the chosen options and disables those of the others, group by group;
    /// tracks in no group keep their state.
    static func present(_ choices: AVMediaSelection.Choices, of groups: [AVMediaSelectionGroup], on tracks: [AVPlayerItemTrack]) {
        for group in groups {
            let chosen = choices.option(in: group)?.trackID
            let members = Set(group.options.map(\.trackID))
            for track in tracks {
                guard let id = track.assetTrack?.trackID, members.contains(id) else { continue }
                track.isEnabled = id == chosen
            }
        }
    }
}
