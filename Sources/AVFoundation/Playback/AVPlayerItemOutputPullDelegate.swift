import Foundation

/// Told when a video output's media is about to arrive (after
/// ``AVPlayerItemVideoOutput/requestNotificationOfMediaDataChange(withAdvanceInterval:)``) and when its
/// buffered pictures were dropped (a seek). Both optional, as in Apple's Objective-C protocol. Called
/// on the delegate queue.
public protocol AVPlayerItemOutputPullDelegate: NSObjectProtocol {
    /// Pictures are buffered at `sender`, after
    /// ``AVPlayerItemVideoOutput/requestNotificationOfMediaDataChange(withAdvanceInterval:)`` asked to be
    /// told; once per request, on the delegate queue.
    ///
    /// - Parameter sender: The video output whose pictures are buffered.
    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput)
    /// The output dropped its buffered pictures to decode from a new time (a seek); on the delegate queue.
    ///
    /// - Parameter output: The video output that dropped its pictures.
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPullDelegate {
    /// Does nothing (the method is optional).
    public func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {}
    /// Does nothing (the method is optional).
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}
