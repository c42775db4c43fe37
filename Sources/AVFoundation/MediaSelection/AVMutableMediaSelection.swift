import Foundation

/// A media selection whose choices can be changed.
open class AVMutableMediaSelection: AVMediaSelection, @unchecked Sendable {
    /// Chooses `mediaSelectionOption` in `mediaSelectionGroup`, in place of the group's other options;
    /// nil chooses none, where the group allows it (``AVMediaSelectionGroup/allowsEmptySelection``).
    /// An option that is not one of the group's, or nil in a group that must have a choice, changes
    /// nothing (Apple's raises no error either). A choice made here is a choice by hand:
    /// ``AVMediaSelection/mediaSelectionCriteriaCanBeAppliedAutomatically(to:)`` is false for the group
    /// afterwards.
    ///
    /// - Parameters:
    ///   - mediaSelectionOption: One of the group's options, or nil for none.
    ///   - mediaSelectionGroup: One of the asset's groups.
    open func select(_ mediaSelectionOption: AVMediaSelectionOption?, in mediaSelectionGroup: AVMediaSelectionGroup) {
        choices.change { $0.choose(mediaSelectionOption, in: mediaSelectionGroup, byHand: true) }
    }
}
