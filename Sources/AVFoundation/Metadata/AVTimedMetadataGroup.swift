import Foundation

/// Metadata items that apply to one span of time, such as a chapter's title over its range.
open class AVTimedMetadataGroup: AVMetadataGroup, NSCopying, NSMutableCopying, @unchecked Sendable {
    // @unchecked Sendable: the items and range sit behind a lock (the mutable subclass changes them).
    struct Contents {
        var items: [AVMetadataItem]
        var timeRange: CMTimeRange
    }

    let contents: LockedState<Contents>

    /// A group of `items` applying during `timeRange`.
    ///
    /// - Parameters:
    ///   - items: The items, such as a chapter's title.
    ///   - timeRange: When they apply, on the asset's timeline.
    public init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        contents = LockedState(Contents(items: items, timeRange: timeRange))
        super.init()
    }

    /// The group a timed metadata sample holds: the items of its tag or boxes, over the sample's time
    /// (from its presentation time for its duration; a sample without a duration, as a timed ID3 tag
    /// in HLS, gives an indefinite duration, since its end is not known until the next one). Parses
    /// the sample's bytes, in memory.
    ///
    /// Reads timed ID3 (`'id3 '`, versions 2.3 and 2.4) and QuickTime boxed metadata (`'mebx'`, a
    /// phone movie's timed metadata track, keyed by the format description's key table). Returns nil
    /// for a sample that is not timed metadata, or whose format Avocet does not read.
    ///
    /// - Parameter sampleBuffer: A sample of a metadata track, as a track output without output
    ///   settings gives it.
    public convenience init?(sampleBuffer: CMSampleBuffer) {
        guard let format = sampleBuffer.formatDescription, format.mediaType == .metadata,
              let data = try? sampleBuffer.dataBuffer?.dataBytes() else { return nil }
        let start = sampleBuffer.presentationTimeStamp
        guard start.isNumeric else { return nil }
        let stated = sampleBuffer.duration
        let duration = stated.isNumeric && stated > .zero ? stated : .indefinite
        let items: [AVMetadataItem]
        switch format.mediaSubType.rawValue {
        case kCMMetadataFormatType_ID3: items = ID3Tag.items(in: data, time: start, duration: duration)
        case kCMMetadataFormatType_Boxed: items = BoxedMetadata.items(in: data, keys: format.metadataKeyTable, time: start, duration: duration)
        default: return nil
        }
        self.init(items: items, timeRange: CMTimeRange(start: start, duration: duration))
    }

    /// The items that apply during ``timeRange``.
    open override var items: [AVMetadataItem] { contents.value.items }

    /// When the items apply.
    open var timeRange: CMTimeRange { contents.value.timeRange }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let c = contents.value
        return AVTimedMetadataGroup(items: c.items, timeRange: c.timeRange)
    }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let c = contents.value
        return AVMutableTimedMetadataGroup(items: c.items, timeRange: c.timeRange)
    }
}
