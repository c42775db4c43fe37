import Foundation

/// Receives the segments of an asset writer made with ``AVAssetWriter/init(contentType:)``, on the
/// writer's engine thread, in order. Implement one of the two methods (Apple's are optional; here both
/// have default implementations: the report-taking one, which the writer calls, passes the segment on
/// to the other). Copy `segmentData` if it is kept.
public protocol AVAssetWriterDelegate: NSObjectProtocol {
    /// A segment and its report. Called on the writer's engine thread, in order.
    ///
    /// - Parameters:
    ///   - writer: The writer that made the segment.
    ///   - segmentData: The segment's bytes; copy them if they are kept.
    ///   - segmentType: ``AVAssetSegmentType/initialization`` for the first segment, then
    ///     ``AVAssetSegmentType/separable``.
    ///   - segmentReport: The segment's type and per-track times. Avocet's writer always gives one; the
    ///     initialization segment's has no track reports.
    func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                     segmentReport: AVAssetSegmentReport?)
    /// A segment, without its report. Called by the default implementation of
    /// ``assetWriter(_:didOutputSegmentData:segmentType:segmentReport:)``.
    ///
    /// - Parameters:
    ///   - writer: The writer that made the segment.
    ///   - segmentData: The segment's bytes; copy them if they are kept.
    ///   - segmentType: ``AVAssetSegmentType/initialization`` for the first segment, then
    ///     ``AVAssetSegmentType/separable``.
    func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType)
}

extension AVAssetWriterDelegate {
    /// Passes the segment on to ``assetWriter(_:didOutputSegmentData:segmentType:)``.
    public func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType,
                            segmentReport: AVAssetSegmentReport?) {
        assetWriter(writer, didOutputSegmentData: segmentData, segmentType: segmentType)
    }

    /// Does nothing.
    public func assetWriter(_ writer: AVAssetWriter, didOutputSegmentData segmentData: Data, segmentType: AVAssetSegmentType) {}
}
