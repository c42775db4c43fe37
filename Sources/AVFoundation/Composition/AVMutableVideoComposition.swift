import Foundation

/// A video composition an app builds: every property settable.
public class AVMutableVideoComposition: AVVideoComposition, @unchecked Sendable {
    /// An empty composition: no instructions, no frame duration, a zero render size.
    public override init() {
        super.init()
    }

    required init(_ values: Values) {
        super.init(values)
    }

    public override var frameDuration: CMTime {
        get { values.withLock { $0.frameDuration } }
        set { values.withLock { $0.frameDuration = newValue } }
    }

    public override var renderSize: CGSize {
        get { values.withLock { $0.renderSize } }
        set { values.withLock { $0.renderSize = newValue } }
    }

    public override var renderScale: Float {
        get { values.withLock { $0.renderScale } }
        set { values.withLock { $0.renderScale = newValue } }
    }

    public override var instructions: [any AVVideoCompositionInstructionProtocol] {
        get { values.withLock { $0.instructions } }
        set { values.withLock { $0.instructions = newValue } }
    }

    public override var sourceTrackIDForFrameTiming: CMPersistentTrackID {
        get { values.withLock { $0.sourceTrackIDForFrameTiming } }
        set { values.withLock { $0.sourceTrackIDForFrameTiming = newValue } }
    }
}
