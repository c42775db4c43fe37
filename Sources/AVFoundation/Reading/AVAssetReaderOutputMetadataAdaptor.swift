import Foundation

/// Reads a metadata track's samples as timed metadata groups: each call takes the next sample of its
/// track output and makes a group of it (``AVTimedMetadataGroup/init(sampleBuffer:)``).
///
/// Give it an output of a metadata track made without output settings. Like the output's
/// ``AVAssetReaderOutput/copyNextSampleBuffer()``, reading blocks the calling thread until a sample is
/// read: call it from a thread of your own or a dispatch queue, never from Swift's cooperative pool.
open class AVAssetReaderOutputMetadataAdaptor: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the one stored property is immutable.

    /// The output whose samples are read.
    public let assetReaderTrackOutput: AVAssetReaderTrackOutput

    /// An adaptor reading `trackOutput`'s samples as groups.
    ///
    /// - Parameter trackOutput: An output of a metadata track, with nil output settings.
    public init(assetReaderTrackOutput trackOutput: AVAssetReaderTrackOutput) {
        assetReaderTrackOutput = trackOutput
        super.init()
    }

    /// The group of the track's next sample. A sample of a format Avocet does not read (neither timed
    /// ID3 nor QuickTime boxed metadata) is skipped.
    ///
    /// - Returns: The group; nil at the end of the track, for an output of a track that is not a
    ///   metadata track, or when the reader failed or was cancelled: check the reader's
    ///   ``AVAssetReader/status``.
    open func nextTimedMetadataGroup() -> AVTimedMetadataGroup? {
        // An output of another kind of track holds no timed metadata: nothing is read.
        guard assetReaderTrackOutput.track.mediaType == .metadata else { return nil }
        while let sample = assetReaderTrackOutput.copyNextSampleBuffer() {
            if let group = AVTimedMetadataGroup(sampleBuffer: sample) { return group }
        }
        return nil
    }
}
