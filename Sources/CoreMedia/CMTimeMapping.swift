import Foundation

/// How a range of one timeline (`source`, say media) maps onto a range of another (`target`, say a
/// track). An empty edit has an invalid `source.start`. Pure value type.
public struct CMTimeMapping: Sendable, Hashable, Codable {
    /// The range of the source timeline (the media); its start is invalid for an empty edit.
    public var source: CMTimeRange
    /// The range of the target timeline (the track) that `source` maps onto.
    public var target: CMTimeRange

    /// An invalid mapping.
    public init() {
        source = CMTimeRange()
        target = CMTimeRange()
    }

    /// A mapping of `source` onto `target`, taken as given.
    public init(source: CMTimeRange, target: CMTimeRange) {
        self.source = source
        self.target = target
    }

    /// A mapping whose ranges are both invalid.
    public static let invalid = CMTimeMapping()
}

/// A mapping of `source` onto `target`; invalid unless both durations are in epoch 0.
///
/// - Returns: The mapping, or ``CMTimeMapping/invalid`` when a duration is not in epoch 0.
public func CMTimeMappingMake(source: CMTimeRange, target: CMTimeRange) -> CMTimeMapping {
    guard source.duration.epoch == 0, target.duration.epoch == 0 else { return .invalid }
    return CMTimeMapping(source: source, target: target)
}

/// An empty edit covering `target`: its source range is invalid.
///
/// - Returns: The mapping, or ``CMTimeMapping/invalid`` when `target`'s duration is not in epoch 0.
public func CMTimeMappingMakeEmpty(target: CMTimeRange) -> CMTimeMapping {
    guard target.duration.epoch == 0 else { return .invalid }
    return CMTimeMapping(source: .invalid, target: target)
}

/// Whether the mapping's target range is valid.
public func CMTIMEMAPPING_IS_VALID(_ mapping: CMTimeMapping) -> Bool { mapping.target.isValid }
/// Whether the mapping's target range is invalid.
public func CMTIMEMAPPING_IS_INVALID(_ mapping: CMTimeMapping) -> Bool { !mapping.target.isValid }
/// Whether the mapping is an empty edit: a valid target whose source start is not numeric.
public func CMTIMEMAPPING_IS_EMPTY(_ mapping: CMTimeMapping) -> Bool {
    !mapping.source.start.isNumeric && mapping.target.isValid
}

/// The C name of ``CMTimeMapping/invalid``.
@available(*, deprecated, renamed: "CMTimeMapping.invalid")
public var kCMTimeMappingInvalid: CMTimeMapping { .invalid }
