import Foundation

extension AVPlayerLooper {
    /// Whether a looper can loop: `unknown` while the template's asset loads, then `ready` (its replicas
    /// are in the queue), `failed` (see ``AVPlayerLooper/error``) or, after
    /// ``AVPlayerLooper/disableLooping()``, `cancelled`.
    public enum Status: Int, Sendable {
        /// `unknown`: the template's duration is not known yet; `ready`: the replicas loop in the
        /// player's queue; `failed`: the template cannot be looped (see ``AVPlayerLooper/error``);
        /// `cancelled`: ``AVPlayerLooper/disableLooping()`` was called. A failed or cancelled looper
        /// stays so: make a new one to loop again.
        case unknown = 0, ready = 1, failed = 2, cancelled = 3
    }
}
