import Foundation

/// Media samples with their timing and format: compressed packets or PCM in a ``CMBlockBuffer``, or one
/// decoded picture in a `CVImageBuffer`.
///
/// Apple's CoreMedia type, through its C-style calls
/// (``CMSampleBufferCreateReady(allocator:dataBuffer:formatDescription:sampleCount:sampleTimingEntryCount:sampleTimingArray:sampleSizeEntryCount:sampleSizeArray:sampleBufferOut:)``,
/// ``CMSampleBufferGetPresentationTimeStamp(_:)``, ...) and Swift overlay (``presentationTimeStamp``,
/// ``sampleTimingInfos()``, ``sampleAttachments``, ...). Timing may be given once for samples of equal
/// duration in order, or once per sample; sizes likewise. Output timing follows Apple's rules: the
/// trim-duration attachments, ``kCMSampleBufferAttachmentKey_Reverse`` and the speed multiplier. Reading
/// it costs nothing beyond the arithmetic; it is not `Sendable`, as Apple's is not.
public final class CMSampleBuffer {
    var storedDataBuffer: CMBlockBuffer?
    let storedImageBuffer: CVImageBuffer?
    let storedFormatDescription: CMFormatDescription?
    let sampleCount: Int
    /// 0 entries, 1 for every sample, or one per sample.
    var timings: SampleEntries<CMSampleTimingInfo>
    /// 0 entries, 1 for every sample, or one per sample.
    let sizes: SampleEntries<Int>
    /// An output presentation time set explicitly; nil computes it.
    var explicitOutputPresentationTimeStamp: CMTime?
    var valid = true
    var invalidateHandler: ((CMSampleBuffer) -> Void)?
    var readiness: DataReadiness
    var makeDataReadyHandler: ((CMSampleBuffer) -> OSStatus)?
    /// The buffer's own attachments (`CMSetAttachment`), distinct from each sample's: made when first
    /// used (most buffers never have any, and a reader makes one buffer a sample).
    var attachmentStorage: AttachmentStorage { lazyAttachments.storage }
    /// The attachments for reading: nil while none was ever set (a read makes nothing).
    var existingAttachments: AttachmentStorage? { lazyAttachments.existing }
    private let lazyAttachments = LazyAttachmentStorage()
    /// One mutable dictionary per sample, made when first asked for; a one-sample buffer marked not
    /// sync before then (`markNotSync()`) gets its dictionary, with the key, at that point.
    var sampleAttachmentDictionaries: [NSMutableDictionary]? {
        get {
            if pendingNotSync {
                pendingNotSync = false
                let dictionary = NSMutableDictionary()
                dictionary.setObject(true, forKey: AnyHashable(kCMSampleAttachmentKey_NotSync as String))
                storedSampleAttachments = [dictionary]
            }
            return storedSampleAttachments
        }
        set {
            pendingNotSync = false
            storedSampleAttachments = newValue
        }
    }
    private var storedSampleAttachments: [NSMutableDictionary]?
    /// The one sample is not a sync sample, and no dictionary has been asked for yet.
    private var pendingNotSync = false
    /// The buffer this one was copied from while that one's data was not ready: this one is ready when
    /// it is (Apple's copies track their source's readiness).
    var readinessSource: CMSampleBuffer?
    /// Where each packet of compressed audio lies in the data (empty for other buffers and for audio
    /// whose packets have a constant size).
    var packetDescriptions: [AudioStreamPacketDescription] = [] {
        didSet { releasePacketDescriptionStorage() }
    }
    /// A copy of `packetDescriptions` at a stable address, made when first lent to C-style callers and
    /// freed with the buffer.
    private var lentPacketDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?

    /// The packet descriptions at an address that stays valid while the buffer lives; nil when there
    /// are none.
    var packetDescriptionStorage: UnsafePointer<AudioStreamPacketDescription>? {
        if packetDescriptions.isEmpty { return nil }
        if let lentPacketDescriptions { return UnsafePointer(lentPacketDescriptions) }
        let storage = UnsafeMutablePointer<AudioStreamPacketDescription>.allocate(capacity: packetDescriptions.count)
        storage.initialize(from: packetDescriptions, count: packetDescriptions.count)
        lentPacketDescriptions = storage
        return UnsafePointer(storage)
    }

    private func releasePacketDescriptionStorage() {
        lentPacketDescriptions?.deallocate()
        lentPacketDescriptions = nil
    }

    deinit { releasePacketDescriptionStorage() }

    /// Marks the sample of a one-sample buffer not sync (`kCMSampleAttachmentKey_NotSync`), as
    /// `sampleAttachments[0][.notSync] = true` does, without making its dictionary until someone asks
    /// for the attachments: a reader's stored samples, most of them not sync, are often never asked.
    /// Other buffers get the key at once.
    package func markNotSync() {
        if sampleCount == 1 && storedSampleAttachments == nil {
            pendingNotSync = true
        } else {
            sampleAttachments[0][.notSync] = true
        }
    }

    /// Whether sample `index` is marked not sync, read without making any dictionary.
    package func isNotSync(_ index: Int) -> Bool {
        if pendingNotSync { return index == 0 }
        guard let dictionaries = storedSampleAttachments, dictionaries.indices.contains(index) else { return false }
        let value = dictionaries[index][kCMSampleAttachmentKey_NotSync as String]
        return (value as? Bool) ?? (value as? NSNumber)?.boolValue ?? false
    }

    /// The most samples a buffer may hold (a sample index is then an `Int32`, as CoreMedia's time
    /// arithmetic takes it); more is ``kCMSampleBufferError_InvalidEntryCount``.
    public static let maximumSampleCount = Int(Int32.max)
    /// The most samples for which per-sample attachment dictionaries are made (one dictionary each);
    /// ``CMSampleBufferGetSampleAttachmentsArray(_:createIfNecessary:)`` gives nil past it rather than
    /// exhaust memory.
    public static let maximumAttachedSampleCount = 1 << 20

    init(dataBuffer: CMBlockBuffer?, imageBuffer: CVImageBuffer?, formatDescription: CMFormatDescription?, sampleCount: Int,
         timings: SampleEntries<CMSampleTimingInfo>, sizes: SampleEntries<Int>, readiness: DataReadiness) {
        storedDataBuffer = dataBuffer
        storedImageBuffer = imageBuffer
        storedFormatDescription = formatDescription
        self.sampleCount = sampleCount
        self.timings = timings
        self.sizes = sizes
        self.readiness = readiness
    }

    /// Follows `source`'s readiness while it is not ready.
    func track(_ source: CMSampleBuffer) {
        if case .notReady = source.currentReadiness { readinessSource = source.readinessSource ?? source }
    }

    /// The readiness, followed through the source while this copy is not ready itself.
    var currentReadiness: DataReadiness {
        if case .notReady = readiness, let source = readinessSource {
            let followed = source.currentReadiness
            if case .notReady = followed { return .notReady }
            readiness = followed
            readinessSource = nil
        }
        return readiness
    }

    /// The output timing entries: the buffer's, each trimmed, reversed and sped as the attachments say.
    func outputTimings() -> [CMSampleTimingInfo] {
        guard !timings.isEmpty else { return [] }
        let adjust = outputAdjustments
        let untouched = adjust.start == .zero && adjust.end == .zero && !adjust.reverse && explicitOutputPresentationTimeStamp == nil
        // One shared entry stays one while nothing makes the samples differ.
        if timings.count == 1 && (sampleCount == 1 || untouched) {
            let speed = 1 / adjust.speed
            let shared = timings[0]
            return [CMSampleTimingInfo(duration: sampleCount == 1 ? outputDurationTime : CMTimeMultiplyByFloat64(shared.duration, multiplier: speed),
                                       presentationTimeStamp: outputPresentationTime, decodeTimeStamp: outputDecodeTime)]
        }
        let samples = (0 ..< sampleCount).compactMap { timing(at: $0) }
        let start = earliestPresentationTime, outputStart = outputPresentationTime
        guard start.isNumeric, outputStart.isNumeric else { return samples }
        let speed = 1 / adjust.speed
        return samples.enumerated().map { index, sample in
            var duration = sample.duration
            var pts = sample.presentationTimeStamp
            if index == 0 && !adjust.reverse { duration = duration - adjust.start; pts = pts + adjust.start }
            if index == samples.count - 1 { duration = duration - adjust.end }
            let offset = CMTimeMultiplyByFloat64(pts - start - (adjust.reverse ? .zero : adjust.start), multiplier: speed)
            let output = outputStart + offset
            let decode = sample.decodeTimeStamp.isNumeric
                ? output + CMTimeMultiplyByFloat64(sample.decodeTimeStamp - sample.presentationTimeStamp, multiplier: speed)
                : .invalid
            return CMSampleTimingInfo(duration: CMTimeMultiplyByFloat64(duration, multiplier: speed), presentationTimeStamp: output,
                                      decodeTimeStamp: decode)
        }
    }

    /// The timing of sample `index` (one shared entry spreads over the samples in order).
    func timing(at index: Int) -> CMSampleTimingInfo? {
        guard index >= 0, index < sampleCount else { return nil }
        if timings.count == sampleCount { return timings[index] }
        guard let shared = timings.first else { return nil }
        let step = CMTimeMultiply(shared.duration, multiplier: Int32(clamping: index))
        return CMSampleTimingInfo(duration: shared.duration,
                                  presentationTimeStamp: shared.presentationTimeStamp.isNumeric ? shared.presentationTimeStamp + step : shared.presentationTimeStamp,
                                  decodeTimeStamp: shared.decodeTimeStamp.isNumeric ? shared.decodeTimeStamp + step : shared.decodeTimeStamp)
    }

    /// The size of sample `index`; nil when the buffer has no sizes or no such sample.
    func size(at index: Int) -> Int? {
        guard index >= 0, index < sampleCount, !sizes.isEmpty else { return nil }
        return sizes.count == 1 ? sizes[0] : sizes[index]
    }

    /// The earliest presentation time of the samples.
    var earliestPresentationTime: CMTime {
        guard valid, let first = timings.first else { return .invalid }
        if timings.count == 1 { return first.presentationTimeStamp }
        return timings.map(\.presentationTimeStamp).filter(\.isNumeric).min() ?? first.presentationTimeStamp
    }

    /// The sum of the samples' durations.
    var totalDuration: CMTime {
        guard valid, let first = timings.first else { return .invalid }
        if timings.count == 1 { return CMTimeMultiply(first.duration, multiplier: Int32(clamping: sampleCount)) }
        return timings.dropFirst().reduce(first.duration) { $0 + $1.duration }
    }

    /// A time attachment (a `CMTimeCopyAsDictionary` dictionary, or a `CMTime`).
    func timeAttachment(_ key: CFString) -> CMTime? {
        switch existingAttachments?[key as String]?.value {
        case let time as CMTime: return time
        case let dictionary as NSDictionary: return CMTimeMakeFromDictionary(dictionary)
        default: return nil
        }
    }

    /// The trims at both ends, whether played in reverse, and the speed multiplier, from the attachments.
    var outputAdjustments: (start: CMTime, end: CMTime, reverse: Bool, speed: Double) {
        guard let attachmentStorage = existingAttachments else { return (.zero, .zero, false, 1) }
        let start = timeAttachment(kCMSampleBufferAttachmentKey_TrimDurationAtStart).flatMap { $0.isNumeric ? $0 : nil } ?? .zero
        let end = timeAttachment(kCMSampleBufferAttachmentKey_TrimDurationAtEnd).flatMap { $0.isNumeric ? $0 : nil } ?? .zero
        let reverse = (attachmentStorage[kCMSampleBufferAttachmentKey_Reverse as String]?.value as? NSNumber)?.boolValue
            ?? (attachmentStorage[kCMSampleBufferAttachmentKey_Reverse as String]?.value as? Bool) ?? false
        let speedValue = attachmentStorage[kCMSampleBufferAttachmentKey_SpeedMultiplier as String]?.value
        let speed = (speedValue as? NSNumber)?.doubleValue ?? (speedValue as? Double) ?? 1
        return (start, end, reverse, speed.isFinite && speed > 0 ? speed : 1)
    }

    var outputPresentationTime: CMTime {
        if let explicit = explicitOutputPresentationTimeStamp { return explicit }
        let pts = earliestPresentationTime
        guard pts.isNumeric else { return pts }
        let adjust = outputAdjustments
        return adjust.reverse ? pts + totalDuration - adjust.end : pts + adjust.start
    }

    var outputDurationTime: CMTime {
        let duration = totalDuration
        guard duration.isNumeric else { return duration }
        let adjust = outputAdjustments
        return CMTimeMultiplyByFloat64(duration - adjust.start - adjust.end, multiplier: 1 / adjust.speed)
    }

    var outputDecodeTime: CMTime {
        guard let dts = timings.first?.decodeTimeStamp, dts.isNumeric else { return .invalid }
        let pts = earliestPresentationTime
        guard pts.isNumeric else { return .invalid }
        return outputPresentationTime + CMTimeMultiplyByFloat64(dts - pts, multiplier: 1 / outputAdjustments.speed)
    }
}
