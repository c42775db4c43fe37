internal import CFFmpeg

/// An `AVFrame` with one owner, freed with it: a decoded picture or sound kept past the call that
/// decoded it. Sendable because it is handed from the thread that decoded it to the one that uses
/// it, one at a time.
final class OwnedFrame: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>
    init(_ pointer: UnsafeMutablePointer<AVFrame>) { self.pointer = pointer }
    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&p)
    }
}
