import Foundation

/// Receives the timed metadata a metadata output delivers as the item plays. The method is optional,
/// as in Apple's Objective-C protocol. Called on the output's delegate queue.
public protocol AVPlayerItemMetadataOutputPushDelegate: AVPlayerItemOutputPushDelegate {
    /// Groups of timed metadata whose time has come. Avocet delivers one group a call; a group whose
    /// duration is not known until the next one arrives (a timed ID3 tag in HLS) has an indefinite
    /// duration.
    ///
    /// - Parameters:
    ///   - output: The metadata output.
    ///   - groups: The groups, with the items the output was made to deliver.
    ///   - track: The item's track the groups come from.
    func metadataOutput(_ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
                        from track: AVPlayerItemTrack?)
}

extension AVPlayerItemMetadataOutputPushDelegate {
    /// Does nothing (the method is optional).
    public func metadataOutput(_ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
                               from track: AVPlayerItemTrack?) {}
}
