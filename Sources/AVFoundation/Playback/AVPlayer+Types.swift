import Foundation

extension AVPlayer {
    /// Whether a player can play: `unknown` until an item of it is ready, then `readyToPlay`
    /// (Avocet's players never become `failed`; an item's failure is the item's ``AVPlayerItem/status``).
    public enum Status: Int, Sendable {
        /// `unknown`: no item has been ready yet; `readyToPlay`: an item was ready; `failed`: the player cannot play.
        case unknown = 0, readyToPlay = 1, failed = 2
    }

    /// Whether the player's time is moving.
    public enum TimeControlStatus: Int, Sendable {
        /// `paused`: the rate is 0; `waitingToPlayAtSpecifiedRate`: the rate is not 0 but the time stands
        /// still (see ``AVPlayer/reasonForWaitingToPlay``); `playing`: the time moves at the rate.
        case paused = 0, waitingToPlayAtSpecifiedRate = 1, playing = 2
    }

    /// What a player does when its item plays to its end.
    public enum ActionAtItemEnd: Int, Sendable {
        /// `advance`: the next item plays (an ``AVQueuePlayer``'s; a plain player lets its item go);
        /// `pause`: the player pauses at the end; `none`: nothing happens.
        case advance = 0, pause = 1, none = 2
    }

    /// Why a player waits to play at its rate.
    public struct WaitingReason: RawRepresentable, Hashable, Sendable {
        /// The reason's name, as Apple's constant holds it.
        public let rawValue: String
        /// A reason from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The media at the player's time has not been read far enough ahead (a stall, or a start before enough is read).
        public static let toMinimizeStalls = WaitingReason(rawValue: "AVPlayerWaitingToMinimizeStallsReason")
        /// The item is not ready yet.
        public static let evaluatingBufferingRate = WaitingReason(rawValue: "AVPlayerWaitingWhileEvaluatingBufferingRateReason")
        /// The player has no item.
        public static let noItemToPlay = WaitingReason(rawValue: "AVPlayerWaitingWithNoItemToPlayReason")
    }

    /// Posted (object: the player) when its rate changes.
    public static let rateDidChangeNotification = NSNotification.Name("AVPlayerRateDidChangeNotification")
}
