import Foundation

extension AVPlayerItem {
    /// Posted (object: the item) when the item has played to its end.
    public static let didPlayToEndTimeNotification = NSNotification.Name("AVPlayerItemDidPlayToEndTimeNotification")
    /// Posted when the item could not play to its end; the error is under
    /// ``AVPlayerItemFailedToPlayToEndTimeErrorKey``.
    public static let failedToPlayToEndTimeNotification = NSNotification.Name("AVPlayerItemFailedToPlayToEndTimeNotification")
    /// Posted when media did not arrive in time to keep playing.
    public static let playbackStalledNotification = NSNotification.Name("AVPlayerItemPlaybackStalledNotification")
    /// Posted when the item's time jumped (a seek) rather than moved on.
    public static let timeJumpedNotification = NSNotification.Name("AVPlayerItemTimeJumpedNotification")
}

/// The user-info key of the error in ``AVPlayerItem/failedToPlayToEndTimeNotification``.
public let AVPlayerItemFailedToPlayToEndTimeErrorKey = "AVPlayerItemFailedToPlayToEndTimeErrorKey"

/// AVFoundation's notification names in `NSNotification.Name`.
extension NSNotification.Name {
    /// The older name of ``AVPlayerItem/didPlayToEndTimeNotification``.
    public static let AVPlayerItemDidPlayToEndTime = AVPlayerItem.didPlayToEndTimeNotification
    /// The older name of ``AVPlayerItem/failedToPlayToEndTimeNotification``.
    public static let AVPlayerItemFailedToPlayToEndTime = AVPlayerItem.failedToPlayToEndTimeNotification
    /// The older name of ``AVPlayerItem/playbackStalledNotification``.
    public static let AVPlayerItemPlaybackStalled = AVPlayerItem.playbackStalledNotification
    /// The older name of ``AVPlayerItem/timeJumpedNotification``.
    public static let AVPlayerItemTimeJumped = AVPlayerItem.timeJumpedNotification
}
