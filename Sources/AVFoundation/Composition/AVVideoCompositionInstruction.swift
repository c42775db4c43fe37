import Foundation
internal import Locking
import Synchronization

/// What a video composition does during one time range: which layer instructions place which tracks'
/// pictures, over what background. Immutable; ``AVMutableVideoCompositionInstruction`` is the form an
/// app builds. Defaults: an invalid time range, no background colour (black), no layers, post
/// processing enabled.
open class AVVideoCompositionInstruction: NSObject, AVVideoCompositionInstructionProtocol, NSCopying, NSMutableCopying,
    @unchecked Sendable {
    // @unchecked Sendable: the values sit behind a lock; layer instructions guard themselves.
    struct Values: Sendable {
        var timeRange = CMTimeRange.invalid
        var backgroundColor: CGColor?
        var layerInstructions: [AVVideoCompositionLayerInstruction] = []
        var enablePostProcessing = true
    }

    let values: Locked<Values>

    override init() {
        values = Locked(Values())
        super.init()
    }

    init(_ values: Values) {
        self.values = Locked(values)
        super.init()
    }

    public var timeRange: CMTimeRange { values.withLock { $0.timeRange } }
    /// The colour behind the layers; nil renders black.
    public var backgroundColor: CGColor? { values.withLock { $0.backgroundColor } }
    /// The layers, front to back: the first is drawn on top.
    public var layerInstructions: [AVVideoCompositionLayerInstruction] { values.withLock { $0.layerInstructions } }
    public var enablePostProcessing: Bool { values.withLock { $0.enablePostProcessing } }
    /// Always true: Avocet's compositor renders every frame of the range.
    public var containsTweening: Bool { true }
    /// The tracks the layer instructions name.
    public var requiredSourceTrackIDs: [NSValue]? {
        layerInstructions.map { NSNumber(value: $0.trackID) }
    }
    /// `kCMPersistentTrackID_Invalid`: Apple's built-in instructions render their layers.
    public var passthroughTrackID: CMPersistentTrackID { kCMPersistentTrackID_Invalid }

    /// An immutable copy of the instruction; the layer instructions are shared, not copied.
    public func copy(with zone: NSZone? = nil) -> Any {
        AVVideoCompositionInstruction(values.withLock { $0 })
    }

    /// A mutable copy of the instruction; the layer instructions are shared, not copied.
    public func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableVideoCompositionInstruction(values.withLock { $0 })
    }
}
