internal import CFFmpeg

/// An `AVPacket` with one owner, freed with it: a packet kept past the call that read it (a writer's
/// segment, a segmented decoder's batch). Sendable because whoever holds it either is the one thread
/// using it or only reads it once it is made.
final class OwnedPacket: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVPacket>
    init(_ pointer: UnsafeMutablePointer<AVPacket>) { self.pointer = pointer }
    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }
}
