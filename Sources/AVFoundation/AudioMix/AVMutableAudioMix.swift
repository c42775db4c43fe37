import Foundation

/// An audio mix an app builds: its input parameters settable. The array is copied when set, its
/// parameters are not (as Apple's `copy` property): mutable parameters changed later change the mix.
open class AVMutableAudioMix: AVAudioMix, @unchecked Sendable {
    /// A mix with no input parameters.
    public override init() {
        super.init()
    }

    override init(_ inputParameters: [AVAudioMixInputParameters]) {
        super.init(inputParameters)
    }

    open override var inputParameters: [AVAudioMixInputParameters] {
        get { parameters.withLock { $0 } }
        set { parameters.withLock { $0 = newValue } }
    }
}
