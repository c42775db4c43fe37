import Foundation

/// Receives the text a legible output delivers as the item plays. The method is optional, as in
/// Apple's Objective-C protocol. Called on the output's delegate queue.
public protocol AVPlayerItemLegibleOutputPushDelegate: AVPlayerItemOutputPushDelegate {
    /// The text showing from `itemTime` on: every cue that shows then, as attributed strings (or, for
    /// the subtypes the output was made to hand over natively, as the stored `CMSampleBuffer`s). Empty
    /// arrays mean no text shows any more.
    ///
    /// - Parameters:
    ///   - output: The legible output.
    ///   - strings: The cues' text, one string each.
    ///   - nativeSamples: The cues' stored samples (`CMSampleBuffer`s) for the native subtypes.
    ///   - itemTime: When the text starts to show: the latest start among the cues, or the item time
    ///     when the last cue ended.
    func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                       nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime)
}

extension AVPlayerItemLegibleOutputPushDelegate {
    /// Does nothing (the method is optional).
    public func legibleOutput(_ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
                              nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime) {}
}
