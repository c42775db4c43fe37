import Foundation

/// What a video composition's instruction says for its time range: which source tracks it needs and
/// whether one passes through unchanged. Apple's protocol: ``AVVideoCompositionInstruction`` is Avocet's
/// built-in one; an app's own class renders only when it passes a track through.
public protocol AVVideoCompositionInstructionProtocol: NSObjectProtocol {
    /// The time range the instruction covers.
    var timeRange: CMTimeRange { get }
    /// Whether the composition's post-processing (Core Animation on Apple's platforms) applies.
    var enablePostProcessing: Bool { get }
    /// Whether the rendering changes over the time range even where the sources do not.
    var containsTweening: Bool { get }
    /// The tracks whose pictures the instruction needs (`NSValue`s of track IDs), nil for all.
    var requiredSourceTrackIDs: [NSValue]? { get }
    /// The track whose pictures pass through unchanged, or `kCMPersistentTrackID_Invalid`.
    var passthroughTrackID: CMPersistentTrackID { get }
}
