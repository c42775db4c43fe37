import Foundation

/// A choice of one option (or none, where a group allows it) in each of an asset's media selection
/// groups: the asset's ``AVAsset/preferredMediaSelection``, one of its ``AVAsset/allMediaSelections``, or
/// a player item's current selection.
///
/// A selection refers to groups by their characteristic and to options by their track, so a group of
/// the same asset loaded again (a composition's groups are made anew at each read) finds its choice.
/// Immutable; safe from any thread. ``AVMutableMediaSelection`` can be changed.
open class AVMediaSelection: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the choices sit behind a lock; the asset reference is set once.

    /// What a selection holds: the option chosen in each group (nil: none), and which groups were
    /// chosen by hand rather than by the asset's defaults.
    struct Choices: Sendable {
        /// Keyed by group: a value of nil is a choice of none. Written only by `choose(_:in:byHand:)`.
        var chosen: [AVMediaCharacteristic: AVMediaSelectionOption?] = [:]
        var byHand: Set<AVMediaCharacteristic> = []

        /// Records `option` (nil: none) as the choice in `group`, made by hand or not, when the group
        /// accepts it (``AVMediaSelectionGroup/accepts(_:)``); false, and nothing changed, when not.
        @discardableResult
        mutating func choose(_ option: AVMediaSelectionOption?, in group: AVMediaSelectionGroup, byHand: Bool) -> Bool {
            guard group.accepts(option) else { return false }
            chosen.updateValue(option.flatMap(group.member), forKey: group.characteristic)
            if byHand { self.byHand.insert(group.characteristic) } else { self.byHand.remove(group.characteristic) }
            return true
        }

        /// The choice in `group`, as the group holds it; nil when none is chosen there.
        func option(in group: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
            guard case let chosen?? = self.chosen[group.characteristic] else { return nil }
            return group.member(chosen)
        }
    }

    /// The asset whose groups the selection chooses in (not retained).
    open private(set) weak var asset: AVAsset?
    let choices: LockedState<Choices>

    init(asset: AVAsset?, choices: Choices) {
        self.asset = asset
        self.choices = LockedState(choices)
        super.init()
    }

    /// The selection of each group's default option (``AVMediaSelectionGroup/defaultOption``).
    convenience init(asset: AVAsset?, defaultsOf groups: [AVMediaSelectionGroup]) {
        var choices = Choices()
        for group in groups { choices.choose(group.defaultOption, in: group, byHand: false) }
        self.init(asset: asset, choices: choices)
    }

    /// The option chosen in `mediaSelectionGroup`.
    ///
    /// - Parameter mediaSelectionGroup: One of the asset's groups.
    /// - Returns: The chosen option, as that group holds it; nil when none is chosen there or the group
    ///   is not one of the asset's.
    open func selectedMediaOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        choices.value.option(in: mediaSelectionGroup)
    }

    /// Whether a player may choose in `mediaSelectionGroup` by its selection criteria: true unless the
    /// group's option was chosen by hand (``AVMutableMediaSelection/select(_:in:)``).
    ///
    /// - Parameter mediaSelectionGroup: One of the asset's groups.
    /// - Returns: False for a group chosen in by hand.
    open func mediaSelectionCriteriaCanBeAppliedAutomatically(to mediaSelectionGroup: AVMediaSelectionGroup) -> Bool {
        !choices.value.byHand.contains(mediaSelectionGroup.characteristic)
    }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        AVMediaSelection(asset: asset, choices: choices.value)
    }

    /// A mutable copy, to choose other options in.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableMediaSelection(asset: asset, choices: choices.value)
    }

    open override var description: String {
        let chosen = choices.value.chosen.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.rawValue): \($0.value.map { "track \($0.trackID)" } ?? "none")" }
        return "<\(type(of: self)) \(chosen.joined(separator: ", "))>"
    }
}
