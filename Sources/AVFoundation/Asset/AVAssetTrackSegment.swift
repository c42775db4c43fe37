import Foundation

/// A span of a track's timeline and the span of its media it plays.
open class AVAssetTrackSegment: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    /// The span of media (`source`) and the span of the track's timeline it plays in (`target`).
    public let timeMapping: CMTimeMapping
    /// An empty edit: no media plays during the target range.
    open var isEmpty: Bool { !timeMapping.source.start.isNumeric }

    init(timeMapping: CMTimeMapping) {
        self.timeMapping = timeMapping
    }
}
