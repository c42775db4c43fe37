/// The timing of a sample: its duration, presentation time and decode time.
///
/// One value may describe every sample of a buffer when they all have the same duration and follow
/// one another in presentation order: the `n`th sample is then presented at
/// `presentationTimeStamp + n * duration`. A plain value; creating one costs nothing.
public struct CMSampleTimingInfo: Hashable, Sendable {
    /// The duration of one sample.
    public var duration: CMTime
    /// When the sample is presented (for a value describing many samples, the earliest's).
    public var presentationTimeStamp: CMTime
    /// When the sample is decoded; `.invalid` when samples are decoded in presentation order.
    public var decodeTimeStamp: CMTime

    /// Every field zero, which is ``CMTime/invalid``, as Apple's empty initializer gives.
    public init() {
        duration = .invalid
        presentationTimeStamp = .invalid
        decodeTimeStamp = .invalid
    }

    /// A timing of these three times.
    public init(duration: CMTime, presentationTimeStamp: CMTime, decodeTimeStamp: CMTime) {
        self.duration = duration
        self.presentationTimeStamp = presentationTimeStamp
        self.decodeTimeStamp = decodeTimeStamp
    }

    /// Every field `.invalid` (``kCMTimingInfoInvalid``).
    public static let invalid = CMSampleTimingInfo()
}

/// Every field `.invalid`.
public let kCMTimingInfoInvalid = CMSampleTimingInfo.invalid
