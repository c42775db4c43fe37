import Foundation
internal import Locking
import Synchronization

/// How the video tracks of an asset are put together into pictures: the size and rate of the output
/// and, per time range, an instruction.
///
/// Immutable; ``AVMutableVideoComposition`` is the form an app builds. Image generators and export
/// sessions given one render through it: pass-through instructions, and Avocet's built-in
/// instructions with their layer instructions (custom compositors are not supported).
public class AVVideoComposition: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the values sit behind a lock; instructions are the app's objects, which
    // Apple's composition holds the same way.
    struct Values: @unchecked Sendable {
        var frameDuration = CMTime.invalid
        var renderSize = CGSize.zero
        var renderScale: Float = 1
        var instructions: [any AVVideoCompositionInstructionProtocol] = []
        var sourceTrackIDForFrameTiming = kCMPersistentTrackID_Invalid
    }

    let values: Locked<Values>

    /// An empty composition: no instructions, no frame duration, a zero render size.
    public override init() {
        values = Locked(Values())
        super.init()
    }

    required init(_ values: Values) {
        self.values = Locked(values)
        super.init()
    }

    /// The interval between output pictures.
    public var frameDuration: CMTime { values.withLock { $0.frameDuration } }
    /// The size of the output pictures.
    public var renderSize: CGSize { values.withLock { $0.renderSize } }
    /// The scale applied to the output (Apple's image generator accepts only 1).
    public var renderScale: Float { values.withLock { $0.renderScale } }
    /// The instructions, in time order, each for its own time range.
    public var instructions: [any AVVideoCompositionInstructionProtocol] { values.withLock { $0.instructions } }
    /// The track whose picture times set the output's (`kCMPersistentTrackID_Invalid`:
    /// ``frameDuration``).
    public var sourceTrackIDForFrameTiming: CMPersistentTrackID { values.withLock { $0.sourceTrackIDForFrameTiming } }

    /// An immutable copy of the composition's values; the instructions are shared, not copied.
    public func copy(with zone: NSZone? = nil) -> Any {
        AVVideoComposition(values.withLock { $0 })
    }

    /// A mutable copy of the composition's values; the instructions are shared, not copied.
    public func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableVideoComposition(values.withLock { $0 })
    }
}
