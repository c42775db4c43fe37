import Foundation

/// Told when a video output's media is about to arrive (after
/// `requestNotificationOfMediaDataChange(withAdvanceInterval:)`) and when its buffered pictures were
/// dropped (a seek). Both optional, as in Apple's Objective-C protocol. Called on the delegate queue.
public protocol AVPlayerItemOutputPullDelegate: NSObjectProtocol {
    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput)
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPullDelegate {
    public func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {}
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}
