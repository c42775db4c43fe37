import Foundation

/// A video composition instruction an app builds: every property settable.
open class AVMutableVideoCompositionInstruction: AVVideoCompositionInstruction, @unchecked Sendable {
    /// An instruction with an invalid time range, no background colour, no layer instructions and post
    /// processing enabled.
    public override init() {
        super.init()
    }

    override init(_ values: Values) {
        super.init(values)
    }

    open override var timeRange: CMTimeRange {
        get { values.withLock { $0.timeRange } }
        set { values.withLock { $0.timeRange = newValue } }
    }

    open override var backgroundColor: CGColor? {
        get { values.withLock { $0.backgroundColor } }
        set { values.withLock { $0.backgroundColor = newValue } }
    }

    /// The array is copied when set, its layer instructions are not (as Apple's `copy` property): a
    /// mutable layer instruction changed later changes this instruction too.
    open override var layerInstructions: [AVVideoCompositionLayerInstruction] {
        get { values.withLock { $0.layerInstructions } }
        set { values.withLock { $0.layerInstructions = newValue } }
    }

    open override var enablePostProcessing: Bool {
        get { values.withLock { $0.enablePostProcessing } }
        set { values.withLock { $0.enablePostProcessing = newValue } }
    }
}
