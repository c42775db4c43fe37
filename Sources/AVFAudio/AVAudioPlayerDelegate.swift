import Foundation

/// Told when an ``AVAudioPlayer`` finishes playing or meets a decoding error. Both methods are
/// optional, as in Apple's Objective-C protocol (they do nothing unless implemented).
///
/// Avocet calls them on a serial queue of the player's own, in order, never on the main queue and
/// never while the player's lock is held (so a method may call the player back, play it again or let
/// it go). Apple's calls them on the main thread (observed; undocumented) and marks the protocol
/// `@MainActor` in recent SDKs; on Linux a server or command-line tool may never run the main queue,
/// and a delegate waiting there would never be told. This is the queue AVPlayer's notifications come
/// from in Avocet too: hop to the main queue (or an actor) inside the method where that matters.
public protocol AVAudioPlayerDelegate: NSObjectProtocol {
    /// The player played to its end (every loop of it), or stopped at a decoding error.
    ///
    /// Not called when playing ends through ``AVAudioPlayer/stop()``, ``AVAudioPlayer/pause()`` or the
    /// player's release. Called on the player's delegate queue once the last sound has been heard; the
    /// player's ``AVAudioPlayer/currentTime`` is then 0 (after a decoding error, where the sound
    /// stopped).
    ///
    /// - Parameters:
    ///   - player: The player that finished.
    ///   - flag: True when it played to the end; false when a decoding error stopped it (after
    ///     ``audioPlayerDecodeErrorDidOccur(_:error:)``).
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)

    /// The media could not be decoded as it played: a damaged or truncated file (sound that ends well
    /// before the duration its header states), or a read that failed. Playing stops there;
    /// ``audioPlayerDidFinishPlaying(_:successfully:)`` follows with false. Called on the player's
    /// delegate queue.
    ///
    /// - Parameters:
    ///   - player: The player that met the error.
    ///   - error: An `NSError` in `NSOSStatusErrorDomain` ('dta?', 1685348671, for damaged media).
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?)
}

extension AVAudioPlayerDelegate {
    /// Does nothing (the method is optional).
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}

    /// Does nothing (the method is optional).
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {}
}
