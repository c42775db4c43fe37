import Foundation
internal import Locking
import Synchronization

/// How the audio tracks of an asset are mixed: input parameters per track (tracks without any play
/// at their own volume). Immutable; ``AVMutableAudioMix`` is the form an app builds.
open class AVAudioMix: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the array sits behind a lock; parameters guard themselves.
    let parameters: Locked<[AVAudioMixInputParameters]>

    /// A mix with no input parameters: every track plays at its own volume.
    public override init() {
        parameters = Locked([])
        super.init()
    }

    init(_ inputParameters: [AVAudioMixInputParameters]) {
        parameters = Locked(inputParameters)
        super.init()
    }

    /// The parameters, one per track mixed.
    open var inputParameters: [AVAudioMixInputParameters] { parameters.withLock { $0 } }

    /// The parameters for `trackID`, if any.
    func parameters(for trackID: CMPersistentTrackID) -> AVAudioMixInputParameters? {
        inputParameters.first { $0.trackID == trackID }
    }

    /// An immutable mix with the same input parameters (shared, not copied).
    open func copy(with zone: NSZone? = nil) -> Any {
        AVAudioMix(inputParameters)
    }

    /// A mutable mix with the same input parameters (shared, not copied).
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableAudioMix(inputParameters)
    }
}
