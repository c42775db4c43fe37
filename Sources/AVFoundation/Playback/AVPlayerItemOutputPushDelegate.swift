import Foundation

/// Told when an output that pushes media to its delegate dropped what it had delivered (a seek). The
/// method is optional, as in Apple's Objective-C protocol. Called on the output's delegate queue.
public protocol AVPlayerItemOutputPushDelegate: NSObjectProtocol {
    /// The output's media starts over from a new time (a seek or another jump); what it delivered
    /// before no longer shows.
    ///
    /// - Parameter output: The output whose sequence starts over.
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPushDelegate {
    /// Does nothing (the method is optional).
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}
