import Foundation

/// Where a sample lies in a segment's data: its presentation time, byte offset and length, and whether
/// it is a sync sample.
public final class AVAssetSegmentReportSampleInformation: NSObject, Sendable {
    public let presentationTimeStamp: CMTime
    public let offset: Int
    public let length: Int
    public let isSyncSample: Bool

    init(presentationTimeStamp: CMTime, offset: Int, length: Int, isSyncSample: Bool) {
        self.presentationTimeStamp = presentationTimeStamp
        self.offset = offset
        self.length = length
        self.isSyncSample = isSyncSample
        super.init()
    }
}
