import Foundation

extension AVPlayer {
    public enum Status: Int, Sendable {
        case unknown = 0, readyToPlay = 1, failed = 2
    }

    public enum TimeControlStatus: Int, Sendable {
        case paused = 0, waitingToPlayAtSpecifiedRate = 1, playing = 2
    }

    public enum ActionAtItemEnd: Int, Sendable {
        case advance = 0, pause = 1, none = 2
    }

    /// Why a player waits to play at its rate.
    public struct WaitingReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let toMinimizeStalls = WaitingReason(rawValue: "AVPlayerWaitingToMinimizeStallsReason")
        public static let evaluatingBufferingRate = WaitingReason(rawValue: "AVPlayerWaitingWhileEvaluatingBufferingRateReason")
        public static let noItemToPlay = WaitingReason(rawValue: "AVPlayerWaitingWithNoItemToPlayReason")
    }

    /// Posted (object: the player) when its rate changes.
    public static let rateDidChangeNotification = NSNotification.Name("AVPlayerRateDidChangeNotification")
}
