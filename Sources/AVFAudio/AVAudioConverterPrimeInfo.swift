/// The input frames a converter's sample-rate filter wants before the first frame (leading) and after
/// the last (trailing) for its best output: the value of ``AVAudioConverter/primeInfo``. A plain
/// value.
public struct AVAudioConverterPrimeInfo: Sendable, Equatable {
    /// Frames wanted before the start of the input.
    public var leadingFrames: AVAudioFrameCount
    /// Frames wanted past the end of the input.
    public var trailingFrames: AVAudioFrameCount

    /// No priming: zero leading and trailing frames.
    public init() {
        leadingFrames = 0
        trailingFrames = 0
    }

    /// Priming of `leadingFrames` before the start and `trailingFrames` past the end.
    ///
    /// - Parameters:
    ///   - leadingFrames: Input frames before the start frame.
    ///   - trailingFrames: Input frames past the end frame.
    public init(leadingFrames: AVAudioFrameCount, trailingFrames: AVAudioFrameCount) {
        self.leadingFrames = leadingFrames
        self.trailingFrames = trailingFrames
    }
}
