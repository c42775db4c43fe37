import Foundation

/// The dictionary key of a time's value (`"value"`).
nonisolated(unsafe) public let kCMTimeValueKey: CFString = "value"
/// The dictionary key of a time's timescale (`"timescale"`).
nonisolated(unsafe) public let kCMTimeScaleKey: CFString = "timescale"
/// The dictionary key of a time's epoch (`"epoch"`).
nonisolated(unsafe) public let kCMTimeEpochKey: CFString = "epoch"
/// The dictionary key of a time's flags (`"flags"`).
nonisolated(unsafe) public let kCMTimeFlagsKey: CFString = "flags"

/// `time` as a dictionary of numbers under ``kCMTimeValueKey``, ``kCMTimeScaleKey``, ``kCMTimeEpochKey`` and
/// ``kCMTimeFlagsKey`` (what attachments such as the trim durations hold). The allocator is ignored.
///
/// - Returns: The dictionary, never nil; ``CMTimeMakeFromDictionary(_:)`` gives the time back.
public func CMTimeCopyAsDictionary(_ time: CMTime, allocator: CFAllocator?) -> CFDictionary? {
    [kCMTimeValueKey as String: NSNumber(value: time.value), kCMTimeScaleKey as String: NSNumber(value: time.timescale),
     kCMTimeEpochKey as String: NSNumber(value: time.epoch), kCMTimeFlagsKey as String: NSNumber(value: time.flags.rawValue)] as CFDictionary
}

/// The time a dictionary from ``CMTimeCopyAsDictionary(_:allocator:)`` holds; `.invalid` for anything else.
///
/// - Parameter dictionaryRepresentation: Numbers under ``kCMTimeValueKey``, ``kCMTimeScaleKey`` and
///   ``kCMTimeFlagsKey``, and optionally ``kCMTimeEpochKey`` (0 when absent); or nil.
/// - Returns: The time, its fields taken as given; ``CMTime/invalid`` for nil, or when the value,
///   timescale or flags is missing or not a number.
public func CMTimeMakeFromDictionary(_ dictionaryRepresentation: CFDictionary?) -> CMTime {
    guard let dictionary = dictionaryRepresentation,
          let value = (dictionary[kCMTimeValueKey] as? NSNumber)?.int64Value,
          let scale = (dictionary[kCMTimeScaleKey] as? NSNumber)?.int32Value,
          let flags = (dictionary[kCMTimeFlagsKey] as? NSNumber)?.uint32Value else { return .invalid }
    let epoch = (dictionary[kCMTimeEpochKey] as? NSNumber)?.int64Value ?? 0
    return CMTime(value: value, timescale: scale, flags: CMTimeFlags(rawValue: flags), epoch: epoch)
}
