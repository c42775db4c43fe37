import Foundation

/// Receives the segments of an asset writer made with `init(contentType:)`, on the writer's engine
/// thread, in order. Implement one of the two methods (Apple's are optional; here both have default
/// implementations: the report-taking one, which the writer calls, passes the segment on to the
/// other). Copy `segmentData` if it is kept.
public protocol AVAssetWriterDelegate: NSObjectProtocol {
    /// A segment and its report (nil for the initialization segment's per-track details).
    func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                     segmentReport: AVAssetSegmentReport?)
    /// A segment.
    func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType)
}

extension AVAssetWriterDelegate {
    /// Passes the segment on to `assetWriter(_:didOutputSegmentData:segmentType:)`.
    public func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                            segmentReport: AVAssetSegmentReport?) {
        assetWriter(writer, didOutputSegmentData: segmentData, segmentType: segmentType)
    }

    /// Does nothing.
    public func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType) {}
}
