import Foundation

// CMSampleBuffer's C-style API, with Apple's names, argument labels and OSStatus results. Nothing
// here blocks or does I/O; creating a buffer validates counts and formats and keeps references.

/// Memory could not be allocated.
public let kCMSampleBufferError_AllocationFailed: OSStatus = -12730
/// A required argument is missing, or 0 where a count is needed.
public let kCMSampleBufferError_RequiredParameterMissing: OSStatus = -12731
/// The buffer has a data buffer already (it is set once).
public let kCMSampleBufferError_AlreadyHasDataBuffer: OSStatus = -12732
/// The buffer's data is not ready.
public let kCMSampleBufferError_BufferNotReady: OSStatus = -12733
/// A sample index outside the buffer's samples.
public let kCMSampleBufferError_SampleIndexOutOfRange: OSStatus = -12734
/// The buffer has no sample sizes (a picture, or non-interleaved audio).
public let kCMSampleBufferError_BufferHasNoSampleSizes: OSStatus = -12735
/// The buffer has no timing.
public let kCMSampleBufferError_BufferHasNoSampleTimingInfo: OSStatus = -12736
/// The array given is smaller than the entries (the count needed is given back).
public let kCMSampleBufferError_ArrayTooSmall: OSStatus = -12737
/// A count of timing or size entries other than 0, 1 or the number of samples.
public let kCMSampleBufferError_InvalidEntryCount: OSStatus = -12738
/// The buffer cannot be split into samples (it has no sizes).
public let kCMSampleBufferError_CannotSubdivide: OSStatus = -12739
/// The timing is not numeric where it must be.
public let kCMSampleBufferError_SampleTimingInfoInvalid: OSStatus = -12740
/// The operation is for another kind of media.
public let kCMSampleBufferError_InvalidMediaTypeForOperation: OSStatus = -12741
/// The sample data does not fit what is said of it (sizes beyond the data).
public let kCMSampleBufferError_InvalidSampleData: OSStatus = -12742
/// The format description does not describe the image buffer.
public let kCMSampleBufferError_InvalidMediaFormat: OSStatus = -12743
/// The buffer was invalidated.
public let kCMSampleBufferError_Invalidated: OSStatus = -12744
/// The buffer's data failed to become ready.
public let kCMSampleBufferError_DataFailed: OSStatus = -16750
/// Making the buffer's data ready was cancelled.
public let kCMSampleBufferError_DataCanceled: OSStatus = -16751

/// Makes a buffer's data ready, for buffers created not ready; called with the refcon given.
public typealias CMSampleBufferMakeDataReadyCallback = (CMSampleBuffer, UnsafeMutableRawPointer?) -> OSStatus
/// Called when a buffer is invalidated.
public typealias CMSampleBufferInvalidateHandler = (CMSampleBuffer) -> Void

/// Checks the counts and makes a buffer, or gives the status that refuses it.
func makeSampleBuffer(dataBuffer: CMBlockBuffer?, imageBuffer: CVImageBuffer?, dataReady: Bool, formatDescription: CMFormatDescription?,
                      numSamples: CMItemCount, timings: SampleEntries<CMSampleTimingInfo>, sizes: SampleEntries<Int>) -> Result<CMSampleBuffer, StatusCode> {
    guard numSamples >= 0, numSamples <= CMSampleBuffer.maximumSampleCount, [0, 1, numSamples].contains(timings.count),
          [0, 1, numSamples].contains(sizes.count), sizes.allSatisfy({ $0 >= 0 }) else {
        return .failure(.init(kCMSampleBufferError_InvalidEntryCount))
    }
    if numSamples > 0 && dataBuffer == nil && imageBuffer == nil && dataReady {
        return .failure(.init(kCMSampleBufferError_RequiredParameterMissing))
    }
    // The sizes' total must be a number (no overflow), and fit in the data where there is data.
    guard let total = totalSize(sizes, count: numSamples) else { return .failure(.init(kCMSampleBufferError_InvalidSampleData)) }
    if let dataBuffer, !sizes.isEmpty, total > dataBuffer.length { return .failure(.init(kCMSampleBufferError_InvalidSampleData)) }
    return .success(CMSampleBuffer(dataBuffer: dataBuffer, imageBuffer: imageBuffer, formatDescription: formatDescription,
                                   sampleCount: numSamples, timings: timings, sizes: sizes,
                                   readiness: dataReady || numSamples == 0 ? .ready : .notReady))
}

/// The sum of `count` samples' sizes given as 0, 1 or `count` entries; nil when it overflows.
func totalSize(_ sizes: SampleEntries<Int>, count: Int) -> Int? {
    if sizes.count == 1 {
        let total = sizes[0].multipliedReportingOverflow(by: count)
        return total.overflow ? nil : total.partialValue
    }
    var sum = 0
    for size in sizes {
        let next = sum.addingReportingOverflow(size)
        if next.overflow { return nil }
        sum = next.partialValue
    }
    return sum
}

/// A buffer of `numSamples` samples in `dataBuffer` (nil with `dataReady` false: the data comes
/// later, through ``CMSampleBufferSetDataBuffer(_:newValue:)``), with 0, 1 or `numSamples` timing and
/// size entries.
///
/// - Parameters:
///   - allocator: Ignored.
///   - dataBuffer: The samples' data, or nil when it comes later.
///   - dataReady: Whether the data can be read now; false when it comes later or
///     `makeDataReadyCallback` makes it ready.
///   - makeDataReadyCallback: Called by ``CMSampleBufferMakeDataReady(_:)`` to make the data ready;
///     nil for none.
///   - makeDataReadyRefcon: Passed to `makeDataReadyCallback`.
///   - formatDescription: The samples' format, or nil.
///   - numSamples: How many samples, 0 to ``CMSampleBuffer/maximumSampleCount``.
///   - numSampleTimingEntries: 0 for no timing, 1 when every sample has the entry's duration and
///     follows the one before, or `numSamples`.
///   - sampleTimingArray: The timing entries; nil only with 0 entries.
///   - numSampleSizeEntries: 0 for no sizes, 1 when every sample has the entry's size, or `numSamples`.
///   - sampleSizeArray: The sizes in bytes, none negative; nil only with 0 entries.
///   - sampleBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: `noErr`; ``kCMSampleBufferError_RequiredParameterMissing`` for a nil array with entries,
///   or samples said ready with no data; ``kCMSampleBufferError_InvalidEntryCount`` for a sample count
///   out of range, an entry count other than 0, 1 or `numSamples`, or a negative size;
///   ``kCMSampleBufferError_InvalidSampleData`` when the sizes add up to more than the data holds.
@discardableResult
public func CMSampleBufferCreate(allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, dataReady: Bool,
                                 makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?, refcon makeDataReadyRefcon: UnsafeMutableRawPointer?,
                                 formatDescription: CMFormatDescription?, sampleCount numSamples: CMItemCount,
                                 sampleTimingEntryCount numSampleTimingEntries: CMItemCount, sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?,
                                 sampleSizeEntryCount numSampleSizeEntries: CMItemCount, sampleSizeArray: UnsafePointer<Int>?,
                                 sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard let timings = SampleEntries(sampleTimingArray, numSampleTimingEntries), let sizes = SampleEntries(sampleSizeArray, numSampleSizeEntries) else {
        return kCMSampleBufferError_RequiredParameterMissing
    }
    switch makeSampleBuffer(dataBuffer: dataBuffer, imageBuffer: nil, dataReady: dataReady, formatDescription: formatDescription,
                            numSamples: numSamples, timings: timings, sizes: sizes) {
    case .failure(let e): return e.status
    case .success(let buffer):
        if let makeDataReadyCallback {
            let refcon = makeDataReadyRefcon
            buffer.makeDataReadyHandler = { makeDataReadyCallback($0, refcon) }
        }
        sampleBufferOut.pointee = buffer
        return noErr
    }
}

/// ``CMSampleBufferCreate(allocator:dataBuffer:dataReady:makeDataReadyCallback:refcon:formatDescription:sampleCount:sampleTimingEntryCount:sampleTimingArray:sampleSizeEntryCount:sampleSizeArray:sampleBufferOut:)``
/// with its data ready.
///
/// - Returns: What ``CMSampleBufferCreate(allocator:dataBuffer:dataReady:makeDataReadyCallback:refcon:formatDescription:sampleCount:sampleTimingEntryCount:sampleTimingArray:sampleSizeEntryCount:sampleSizeArray:sampleBufferOut:)``
///   returns; with the data ready, samples with no `dataBuffer` are
///   ``kCMSampleBufferError_RequiredParameterMissing``.
@discardableResult
public func CMSampleBufferCreateReady(allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, formatDescription: CMFormatDescription?,
                                      sampleCount numSamples: CMItemCount, sampleTimingEntryCount numSampleTimingEntries: CMItemCount,
                                      sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?, sampleSizeEntryCount numSampleSizeEntries: CMItemCount,
                                      sampleSizeArray: UnsafePointer<Int>?, sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    CMSampleBufferCreate(allocator: allocator, dataBuffer: dataBuffer, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                         formatDescription: formatDescription, sampleCount: numSamples, sampleTimingEntryCount: numSampleTimingEntries,
                         sampleTimingArray: sampleTimingArray, sampleSizeEntryCount: numSampleSizeEntries, sampleSizeArray: sampleSizeArray,
                         sampleBufferOut: sampleBufferOut)
}

/// Whether `videoDesc` describes `imageBuffer`: video, the buffer's pixel format, its size.
public func CMVideoFormatDescriptionMatchesImageBuffer(_ videoDesc: CMVideoFormatDescription, imageBuffer: CVImageBuffer) -> Bool {
    videoDesc.mediaType == .video && videoDesc.mediaSubType.rawValue == imageBuffer.pixelFormat
        && videoDesc.dimensions.width == Int32(imageBuffer.width) && videoDesc.dimensions.height == Int32(imageBuffer.height)
}

/// A video format description of an image buffer: its pixel format as the codec type, its size.
///
/// - Parameters:
///   - allocator: Ignored.
///   - imageBuffer: The picture to describe.
///   - formatDescriptionOut: Receives the description, which
///     ``CMVideoFormatDescriptionMatchesImageBuffer(_:imageBuffer:)`` finds matching `imageBuffer`.
/// - Returns: `noErr`, always.
@discardableResult
public func CMVideoFormatDescriptionCreateForImageBuffer(allocator: CFAllocator?, imageBuffer: CVImageBuffer,
                                                         formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>) -> OSStatus {
    formatDescriptionOut.pointee = CMFormatDescription(mediaType: .video, mediaSubType: .init(rawValue: imageBuffer.pixelFormat),
                                                       dimensions: CMVideoDimensions(width: Int32(imageBuffer.width), height: Int32(imageBuffer.height)))
    return noErr
}

/// A buffer of one decoded picture, ready, with its timing. The format description must describe the
/// image buffer (``CMVideoFormatDescriptionCreateForImageBuffer(allocator:imageBuffer:formatDescriptionOut:)``
/// makes one): else ``kCMSampleBufferError_InvalidMediaFormat``.
///
/// - Parameters:
///   - allocator: Ignored.
///   - imageBuffer: The picture.
///   - formatDescription: A description that
///     ``CMVideoFormatDescriptionMatchesImageBuffer(_:imageBuffer:)`` finds matching `imageBuffer`.
///   - sampleTiming: The picture's timing.
///   - sampleBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: `noErr`, or ``kCMSampleBufferError_InvalidMediaFormat`` when `formatDescription` does
///   not describe `imageBuffer`.
@discardableResult
public func CMSampleBufferCreateReadyWithImageBuffer(allocator: CFAllocator?, imageBuffer: CVImageBuffer, formatDescription: CMVideoFormatDescription,
                                                     sampleTiming: UnsafePointer<CMSampleTimingInfo>,
                                                     sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard CMVideoFormatDescriptionMatchesImageBuffer(formatDescription, imageBuffer: imageBuffer) else {
        return kCMSampleBufferError_InvalidMediaFormat
    }
    sampleBufferOut.pointee = CMSampleBuffer(dataBuffer: nil, imageBuffer: imageBuffer, formatDescription: formatDescription, sampleCount: 1,
                                             timings: [sampleTiming.pointee], sizes: [], readiness: .ready)
    return noErr
}

/// A buffer of one picture, ready or not (`dataReady` false: the callback makes it ready); the format
/// description must describe the image buffer.
///
/// - Parameters:
///   - allocator: Ignored.
///   - imageBuffer: The picture.
///   - dataReady: Whether the picture can be read now.
///   - makeDataReadyCallback: Called by ``CMSampleBufferMakeDataReady(_:)`` to make the picture
///     ready; nil for none. Not kept when `dataReady` is true.
///   - makeDataReadyRefcon: Passed to `makeDataReadyCallback`.
///   - formatDescription: A description that
///     ``CMVideoFormatDescriptionMatchesImageBuffer(_:imageBuffer:)`` finds matching `imageBuffer`.
///   - sampleTiming: The picture's timing.
///   - sampleBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: `noErr`, or ``kCMSampleBufferError_InvalidMediaFormat`` when `formatDescription` does
///   not describe `imageBuffer`.
@discardableResult
public func CMSampleBufferCreateForImageBuffer(allocator: CFAllocator?, imageBuffer: CVImageBuffer, dataReady: Bool,
                                               makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?,
                                               refcon makeDataReadyRefcon: UnsafeMutableRawPointer?, formatDescription: CMVideoFormatDescription,
                                               sampleTiming: UnsafePointer<CMSampleTimingInfo>,
                                               sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    let status = CMSampleBufferCreateReadyWithImageBuffer(allocator: allocator, imageBuffer: imageBuffer, formatDescription: formatDescription,
                                                          sampleTiming: sampleTiming, sampleBufferOut: sampleBufferOut)
    if status == noErr, !dataReady, let buffer = sampleBufferOut.pointee {
        buffer.readiness = .notReady
        if let makeDataReadyCallback {
            let refcon = makeDataReadyRefcon
            buffer.makeDataReadyHandler = { makeDataReadyCallback($0, refcon) }
        }
    }
    return status
}

/// A shallow copy: the same data, format and timing, the propagating attachments, a copy of each
/// sample's attachments.
///
/// The copy keeps an output presentation time set explicitly, and the packet descriptions. A copy of
/// a buffer whose data is not ready becomes ready when the original does.
///
/// - Parameters:
///   - allocator: Ignored.
///   - sbuf: The buffer to copy.
///   - sampleBufferOut: Receives the copy; nil when the call fails.
/// - Returns: `noErr`, or ``kCMSampleBufferError_Invalidated`` when `sbuf` was invalidated.
@discardableResult
public func CMSampleBufferCreateCopy(allocator: CFAllocator?, sampleBuffer sbuf: CMSampleBuffer,
                                     sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    sampleBufferOut.pointee = copy(of: sbuf, timings: sbuf.timings, keepsOutputTime: true)
    return noErr
}

/// A copy with new timing (0, 1 or one entry per sample); an explicit output time is dropped.
///
/// Otherwise the copy is as ``CMSampleBufferCreateCopy(allocator:sampleBuffer:sampleBufferOut:)``
/// makes it.
///
/// - Parameters:
///   - allocator: Ignored.
///   - originalSBuf: The buffer to copy.
///   - numSampleTimingEntries: 0, 1 or the buffer's sample count.
///   - sampleTimingArray: The new timing entries; nil only with 0 entries.
///   - sampleBufferOut: Receives the copy; nil when the call fails.
/// - Returns: `noErr`; ``kCMSampleBufferError_Invalidated`` when `originalSBuf` was invalidated;
///   ``kCMSampleBufferError_RequiredParameterMissing`` for a nil array with entries;
///   ``kCMSampleBufferError_InvalidEntryCount`` for another count of entries.
@discardableResult
public func CMSampleBufferCreateCopyWithNewTiming(allocator: CFAllocator?, sampleBuffer originalSBuf: CMSampleBuffer,
                                                  sampleTimingEntryCount numSampleTimingEntries: CMItemCount,
                                                  sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?,
                                                  sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard originalSBuf.valid else { return kCMSampleBufferError_Invalidated }
    guard let timings = SampleEntries(sampleTimingArray, numSampleTimingEntries) else { return kCMSampleBufferError_RequiredParameterMissing }
    guard [0, 1, originalSBuf.sampleCount].contains(timings.count) else { return kCMSampleBufferError_InvalidEntryCount }
    sampleBufferOut.pointee = copy(of: originalSBuf, timings: timings, keepsOutputTime: false)
    return noErr
}

/// A buffer of samples `sampleRange` of `sbuf`, sharing its data (the buffer needs sample sizes).
///
/// The new buffer has the samples' timing, sizes, attachments and packet descriptions, and the
/// propagating attachments of `sbuf`.
///
/// - Parameters:
///   - allocator: Ignored.
///   - sbuf: The buffer to take samples from.
///   - sampleRange: The first sample's index and how many samples, at least one.
///   - sampleBufferOut: Receives the buffer; nil when the call fails.
/// - Returns: `noErr`; ``kCMSampleBufferError_Invalidated`` when `sbuf` was invalidated;
///   ``kCMSampleBufferError_SampleIndexOutOfRange`` for an empty range or one outside the samples;
///   ``kCMSampleBufferError_CannotSubdivide`` for a buffer without sizes or data;
///   ``kCMSampleBufferError_InvalidSampleData`` when the data is shorter than the sizes say.
@discardableResult
public func CMSampleBufferCopySampleBufferForRange(allocator: CFAllocator?, sampleBuffer sbuf: CMSampleBuffer, sampleRange: CFRange,
                                                   sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    let start = sampleRange.location, count = sampleRange.length
    guard start >= 0, count > 0, start <= sbuf.sampleCount - count else { return kCMSampleBufferError_SampleIndexOutOfRange }
    guard !sbuf.sizes.isEmpty, let data = sbuf.storedDataBuffer else { return kCMSampleBufferError_CannotSubdivide }
    // Sizes were checked not to overflow when the buffer was made.
    let offset = sbuf.sizes.count == 1 ? sbuf.sizes[0] * start : sbuf.sizes[..<start].reduce(0, +)
    let sizes = (start ..< start + count).map { sbuf.size(at: $0) ?? 0 }
    var part: CMBlockBuffer?
    let length = sizes.reduce(0, +)
    if length > 0 {
        let status = CMBlockBufferCreateWithBufferReference(allocator: nil, referenceBuffer: data, offsetToData: offset, dataLength: length,
                                                            flags: 0, blockBufferOut: &part)
        guard status == kCMBlockBufferNoErr else { return kCMSampleBufferError_InvalidSampleData }
    } else {
        part = CMBlockBuffer(pieces: [])
    }
    let timings = SampleEntries(sbuf.timings.isEmpty ? [] : (start ..< start + count).compactMap { sbuf.timing(at: $0) })
    let result = CMSampleBuffer(dataBuffer: part, imageBuffer: nil, formatDescription: sbuf.storedFormatDescription, sampleCount: count,
                                timings: timings, sizes: SampleEntries(sizes.count > 1 && Set(sizes).count == 1 ? [sizes[0]] : sizes), readiness: sbuf.readiness)
    result.track(sbuf)
    CMPropagateAttachments(sbuf, destination: result)
    if let perSample = sbuf.sampleAttachmentDictionaries {
        result.sampleAttachmentDictionaries = perSample[start ..< start + count].map(mutableCopy)
    }
    if sbuf.packetDescriptions.count == sbuf.sampleCount {
        let base = Int64(offset)
        result.packetDescriptions = sbuf.packetDescriptions[start ..< start + count].map {
            AudioStreamPacketDescription(mStartOffset: $0.mStartOffset - base, mVariableFramesInPacket: $0.mVariableFramesInPacket,
                                         mDataByteSize: $0.mDataByteSize)
        }
    }
    sampleBufferOut.pointee = result
    return noErr
}

/// A new mutable dictionary with the entries of `dictionary`.
func mutableCopy(_ dictionary: NSDictionary) -> NSMutableDictionary {
    let copy = NSMutableDictionary()
    for (key, value) in dictionary { copy.setObject(value, forKey: key as? AnyHashable ?? AnyHashable("\(key)")) }
    return copy
}

func copy(of source: CMSampleBuffer, timings: SampleEntries<CMSampleTimingInfo>, keepsOutputTime: Bool) -> CMSampleBuffer {
    let copy = CMSampleBuffer(dataBuffer: source.storedDataBuffer, imageBuffer: source.storedImageBuffer,
                              formatDescription: source.storedFormatDescription, sampleCount: source.sampleCount,
                              timings: timings, sizes: source.sizes, readiness: source.readiness)
    if keepsOutputTime { copy.explicitOutputPresentationTimeStamp = source.explicitOutputPresentationTimeStamp }
    copy.track(source)
    CMPropagateAttachments(source, destination: copy)
    copy.sampleAttachmentDictionaries = source.sampleAttachmentDictionaries?.map(mutableCopy)
    copy.packetDescriptions = source.packetDescriptions
    return copy
}

/// The earliest presentation time of the samples; `.invalid` without timing.
///
/// - Returns: The presentation time of the one timing entry, or the least numeric one of several;
///   ``CMTime/invalid`` without timing or once the buffer is invalidated.
public func CMSampleBufferGetPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.earliestPresentationTime }
/// The first sample's decode time; `.invalid` when samples decode in presentation order.
public func CMSampleBufferGetDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime {
    sbuf.valid ? (sbuf.timings.first?.decodeTimeStamp ?? .invalid) : .invalid
}
/// The sum of the samples' durations.
///
/// - Returns: The sum; ``CMTime/invalid`` without timing or once the buffer is invalidated.
public func CMSampleBufferGetDuration(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.totalDuration }
/// The presentation time after trimming and reversal (or as set explicitly).
///
/// The trims are ``kCMSampleBufferAttachmentKey_TrimDurationAtStart`` and
/// ``kCMSampleBufferAttachmentKey_TrimDurationAtEnd``; ``kCMSampleBufferAttachmentKey_Reverse`` makes
/// it the end of the untrimmed samples. An explicit time comes from
/// ``CMSampleBufferSetOutputPresentationTimeStamp(_:newValue:)``.
public func CMSampleBufferGetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.outputPresentationTime }
/// The decode time after trimming and the speed multiplier.
public func CMSampleBufferGetOutputDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.outputDecodeTime }
/// The duration after trimming and the speed multiplier.
public func CMSampleBufferGetOutputDuration(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.outputDurationTime }

/// Sets the output presentation time (`.invalid` returns to the computed one).
///
/// - Parameters:
///   - sbuf: The buffer.
///   - outputPresentationTimeStamp: The time ``CMSampleBufferGetOutputPresentationTimeStamp(_:)``
///     gives from now on; ``CMTime/invalid`` to compute it again.
/// - Returns: `noErr`, or ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferSetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer, newValue outputPresentationTimeStamp: CMTime) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    sbuf.explicitOutputPresentationTimeStamp = outputPresentationTimeStamp.isValid ? outputPresentationTimeStamp : nil
    return noErr
}

/// How many samples; 0 when invalidated.
public func CMSampleBufferGetNumSamples(_ sbuf: CMSampleBuffer) -> CMItemCount { sbuf.valid ? sbuf.sampleCount : 0 }

/// The sum of the samples' sizes; 0 without sizes (a picture).
public func CMSampleBufferGetTotalSampleSize(_ sbuf: CMSampleBuffer) -> Int {
    guard sbuf.valid, !sbuf.sizes.isEmpty else { return 0 }
    return sbuf.sizes.count == 1 ? sbuf.sizes[0] &* sbuf.sampleCount : sbuf.sizes.reduce(0, &+)
}

/// The size of sample `sampleIndex`; 0 without sizes or for an index outside the samples.
public func CMSampleBufferGetSampleSize(_ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex) -> Int {
    sbuf.valid ? (sbuf.size(at: sampleIndex) ?? 0) : 0
}

/// Fills `sizeArrayOut` with the size entries (1 for all, or one per sample), and the count needed.
///
/// Call it first with `sizeArrayOut` nil for the count, then with an array of that many entries.
///
/// - Parameters:
///   - sbuf: The buffer to read.
///   - sizeArrayEntries: How many entries `sizeArrayOut` has room for.
///   - sizeArrayOut: Receives the entries; nil to ask for the count only.
///   - sizeArrayEntriesNeededOut: Receives how many entries there are (0 once the buffer is invalidated); nil
///     when not wanted.
/// - Returns: `noErr`; ``kCMSampleBufferError_BufferHasNoSampleSizes`` for a buffer without sizes;
///   ``kCMSampleBufferError_ArrayTooSmall`` when `sizeArrayEntries` is less than the entries;
///   ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferGetSampleSizeArray(_ sbuf: CMSampleBuffer, entryCount sizeArrayEntries: CMItemCount,
                                             arrayToFill sizeArrayOut: UnsafeMutablePointer<Int>?,
                                             entriesNeededOut sizeArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    fill(sbuf.valid ? Array(sbuf.sizes) : nil, missing: kCMSampleBufferError_BufferHasNoSampleSizes, capacity: sizeArrayEntries,
         into: sizeArrayOut, needed: sizeArrayEntriesNeededOut)
}

/// The two-call pattern of Apple's array getters.
func fill<T>(_ values: [T]?, missing: OSStatus, capacity: CMItemCount, into array: UnsafeMutablePointer<T>?,
             needed: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    guard let values else { needed?.pointee = 0; return kCMSampleBufferError_Invalidated }
    needed?.pointee = values.count
    guard !values.isEmpty else { return missing }
    guard let array else { return noErr }
    guard capacity >= values.count else { return kCMSampleBufferError_ArrayTooSmall }
    for (index, value) in values.enumerated() { array[index] = value }
    return noErr
}

/// The timing entries (1 for all samples, or one per sample), and the count needed.
///
/// Call it first with `timingArrayOut` nil for the count, then with an array of that many entries.
///
/// - Parameters:
///   - sbuf: The buffer to read.
///   - numSampleTimingEntries: How many entries `timingArrayOut` has room for.
///   - timingArrayOut: Receives the entries; nil to ask for the count only.
///   - timingArrayEntriesNeededOut: Receives how many entries there are (0 once the buffer is invalidated); nil
///     when not wanted.
/// - Returns: `noErr`; ``kCMSampleBufferError_BufferHasNoSampleTimingInfo`` for a buffer without
///   timing; ``kCMSampleBufferError_ArrayTooSmall`` when `numSampleTimingEntries` is less than the
///   entries; ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferGetSampleTimingInfoArray(_ sbuf: CMSampleBuffer, entryCount numSampleTimingEntries: CMItemCount,
                                                   arrayToFill timingArrayOut: UnsafeMutablePointer<CMSampleTimingInfo>?,
                                                   entriesNeededOut timingArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    fill(sbuf.valid ? Array(sbuf.timings) : nil, missing: kCMSampleBufferError_BufferHasNoSampleTimingInfo, capacity: numSampleTimingEntries,
         into: timingArrayOut, needed: timingArrayEntriesNeededOut)
}

/// The timing entries after trimming, reversal and the speed multiplier: as many entries as the
/// buffer's timing has (a shared entry is spread over the samples when a trim makes them differ).
///
/// Call it first with `timingArrayOut` nil for the count, then with an array of that many entries.
///
/// - Parameters:
///   - sbuf: The buffer to read.
///   - timingArrayEntries: How many entries `timingArrayOut` has room for.
///   - timingArrayOut: Receives the entries; nil to ask for the count only.
///   - timingArrayEntriesNeededOut: Receives how many entries there are (0 once the buffer is invalidated); nil
///     when not wanted.
/// - Returns: `noErr`; ``kCMSampleBufferError_BufferHasNoSampleTimingInfo`` for a buffer without
///   timing; ``kCMSampleBufferError_ArrayTooSmall`` when `timingArrayEntries` is less than the
///   entries; ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferGetOutputSampleTimingInfoArray(_ sbuf: CMSampleBuffer, entryCount timingArrayEntries: CMItemCount,
                                                         arrayToFill timingArrayOut: UnsafeMutablePointer<CMSampleTimingInfo>?,
                                                         entriesNeededOut timingArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?) -> OSStatus {
    fill(sbuf.valid ? sbuf.outputTimings() : nil, missing: kCMSampleBufferError_BufferHasNoSampleTimingInfo, capacity: timingArrayEntries,
         into: timingArrayOut, needed: timingArrayEntriesNeededOut)
}

/// The timing of sample `sampleIndex` (spread from a shared entry where there is one).
///
/// - Parameters:
///   - sbuf: The buffer to read.
///   - sampleIndex: The sample's index, from 0.
///   - timingInfoOut: Receives the timing; left unchanged when the call fails.
/// - Returns: `noErr`; ``kCMSampleBufferError_BufferHasNoSampleTimingInfo`` for a buffer without
///   timing; ``kCMSampleBufferError_SampleIndexOutOfRange`` for an index outside the samples;
///   ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferGetSampleTimingInfo(_ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex,
                                              timingInfoOut: UnsafeMutablePointer<CMSampleTimingInfo>) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    guard !sbuf.timings.isEmpty else { return kCMSampleBufferError_BufferHasNoSampleTimingInfo }
    guard let timing = sbuf.timing(at: sampleIndex) else { return kCMSampleBufferError_SampleIndexOutOfRange }
    timingInfoOut.pointee = timing
    return noErr
}

/// The format description.
///
/// - Returns: The description; nil when the buffer has none or was invalidated.
public func CMSampleBufferGetFormatDescription(_ sbuf: CMSampleBuffer) -> CMFormatDescription? { sbuf.valid ? sbuf.storedFormatDescription : nil }
/// The picture of an image buffer sample buffer; nil for one of a block buffer.
///
/// - Returns: The picture; nil for a buffer of a block buffer, or one that was invalidated.
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { sbuf.valid ? sbuf.storedImageBuffer : nil }
/// The data of a block buffer sample buffer; nil for one of a picture.
///
/// - Returns: The data; nil for a buffer of a picture, one whose data is still to come, or one that
///   was invalidated.
public func CMSampleBufferGetDataBuffer(_ sbuf: CMSampleBuffer) -> CMBlockBuffer? { sbuf.valid ? sbuf.storedDataBuffer : nil }

/// Gives the buffer its data, once (``kCMSampleBufferError_AlreadyHasDataBuffer`` after that).
///
/// Setting the data does not make it ready: see ``CMSampleBufferSetDataReady(_:)``.
///
/// - Parameters:
///   - sbuf: A buffer created without data.
///   - dataBuffer: The samples' data; it must hold at least the bytes the sample sizes add up to.
/// - Returns: `noErr`; ``kCMSampleBufferError_AlreadyHasDataBuffer`` for a buffer that has data or a
///   picture; ``kCMSampleBufferError_InvalidSampleData`` when `dataBuffer` is shorter than the sizes
///   say; ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferSetDataBuffer(_ sbuf: CMSampleBuffer, newValue dataBuffer: CMBlockBuffer) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    guard sbuf.storedDataBuffer == nil, sbuf.storedImageBuffer == nil else { return kCMSampleBufferError_AlreadyHasDataBuffer }
    if !sbuf.sizes.isEmpty, (totalSize(sbuf.sizes, count: sbuf.sampleCount) ?? .max) > dataBuffer.length {
        return kCMSampleBufferError_InvalidSampleData
    }
    sbuf.storedDataBuffer = dataBuffer
    return noErr
}

/// Whether the data is ready.
public func CMSampleBufferDataIsReady(_ sbuf: CMSampleBuffer) -> Bool {
    if case .ready = sbuf.currentReadiness { return true }
    return false
}

/// Marks the data ready (for good).
///
/// - Returns: `noErr`, or ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferSetDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    sbuf.readiness = .ready
    return noErr
}

/// Marks the data failed with `status`.
///
/// - Parameters:
///   - sbuf: The buffer.
///   - status: Why the data failed; ``CMSampleBufferHasDataFailed(_:statusOut:)`` gives it back.
/// - Returns: `noErr`, or ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferSetDataFailed(_ sbuf: CMSampleBuffer, status: OSStatus) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    sbuf.readiness = .failed(status)
    return noErr
}

/// Whether the data failed, and with what status.
///
/// - Parameters:
///   - sbuf: The buffer.
///   - statusOut: Receives the status given to ``CMSampleBufferSetDataFailed(_:status:)``, or `noErr`
///     when the data has not failed; nil when not wanted.
/// - Returns: true when the data failed.
public func CMSampleBufferHasDataFailed(_ sbuf: CMSampleBuffer, statusOut: UnsafeMutablePointer<OSStatus>?) -> Bool {
    if case .failed(let status) = sbuf.currentReadiness {
        statusOut?.pointee = status
        return true
    }
    statusOut?.pointee = noErr
    return false
}

/// Makes the data ready through the buffer's callback (``kCMSampleBufferError_BufferNotReady`` without one).
///
/// Runs the callback on the calling thread. A copy of a buffer whose data is not ready makes the
/// original ready.
///
/// - Returns: `noErr` when the data is ready, already or now; the callback's status when it fails
///   (the data stays not ready); ``kCMSampleBufferError_DataFailed`` when the data failed;
///   ``kCMSampleBufferError_BufferNotReady`` without a callback; ``kCMSampleBufferError_Invalidated``
///   when the buffer was invalidated.
@discardableResult
public func CMSampleBufferMakeDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    switch sbuf.currentReadiness {
    case .ready: return noErr
    case .failed: return kCMSampleBufferError_DataFailed
    case .notReady:
        // A copy of a buffer not ready follows its source: making the source ready makes it ready.
        if let source = sbuf.readinessSource { return CMSampleBufferMakeDataReady(source) }
        guard let handler = sbuf.makeDataReadyHandler else { return kCMSampleBufferError_BufferNotReady }
        let status = handler(sbuf)
        guard status == noErr else { return status }
        sbuf.readiness = .ready
        return noErr
    }
}

/// False once the buffer was invalidated.
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { sbuf.valid }

/// Invalidates the buffer: runs its invalidate handler; every accessor then fails or gives a sentinel.
///
/// The handler runs once, on the calling thread, before the call returns.
///
/// - Returns: `noErr`, or ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated already.
@discardableResult
public func CMSampleBufferInvalidate(_ sbuf: CMSampleBuffer) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    sbuf.valid = false
    let handler = sbuf.invalidateHandler
    sbuf.invalidateHandler = nil
    handler?(sbuf)
    return noErr
}

/// The handler ``CMSampleBufferInvalidate(_:)`` runs (not run when the buffer is merely released).
///
/// - Parameters:
///   - sbuf: The buffer.
///   - invalidateHandler: Called with the buffer by ``CMSampleBufferInvalidate(_:)``, on its thread;
///     replaces a handler set before.
/// - Returns: `noErr`, or ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferSetInvalidateHandler(_ sbuf: CMSampleBuffer, invalidateHandler: @escaping CMSampleBufferInvalidateHandler) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    sbuf.invalidateHandler = invalidateHandler
    return noErr
}

/// The per-sample attachment dictionaries (mutable: `array[i] as? NSMutableDictionary` changes the
/// sample's own), made empty when `createIfNecessary`; nil when there are none and none were to be
/// made, or for more than ``CMSampleBuffer/maximumAttachedSampleCount`` samples.
///
/// - Parameters:
///   - sbuf: The buffer.
///   - createIfNecessary: Whether to make an empty dictionary for each sample when there are none
///     yet.
/// - Returns: One dictionary per sample, keyed by the `kCMSampleAttachmentKey_...` constants, such as
///   ``kCMSampleAttachmentKey_NotSync``; nil as above, or once the buffer is invalidated.
public func CMSampleBufferGetSampleAttachmentsArray(_ sbuf: CMSampleBuffer, createIfNecessary: Bool) -> CFArray? {
    guard sbuf.valid else { return nil }
    if sbuf.sampleAttachmentDictionaries == nil && createIfNecessary {
        guard sbuf.sampleCount <= CMSampleBuffer.maximumAttachedSampleCount else { return nil }
        sbuf.sampleAttachmentDictionaries = (0 ..< sbuf.sampleCount).map { _ in NSMutableDictionary() }
    }
    return sbuf.sampleAttachmentDictionaries.map { SampleAttachmentDictionaries($0) }
}

/// Calls `handler` with a buffer of each sample in turn and its index; stops at the first status
/// that is not `noErr` and returns it. Needs sample sizes unless the buffer holds one sample.
///
/// - Parameters:
///   - sbuf: The buffer.
///   - handler: Called on the calling thread with a buffer of one sample (made as
///     ``CMSampleBufferCopySampleBufferForRange(allocator:sampleBuffer:sampleRange:sampleBufferOut:)``
///     makes it; `sbuf` itself when it holds one sample) and the sample's index.
/// - Returns: `noErr` after the last sample (at once for no samples); else the first status that is
///   not `noErr`, from `handler` or from making a sample's buffer
///   (``kCMSampleBufferError_CannotSubdivide`` for a buffer without sizes);
///   ``kCMSampleBufferError_Invalidated`` when the buffer was invalidated.
@discardableResult
public func CMSampleBufferCallBlockForEachSample(_ sbuf: CMSampleBuffer, _ handler: (CMSampleBuffer, CMItemCount) -> OSStatus) -> OSStatus {
    guard sbuf.valid else { return kCMSampleBufferError_Invalidated }
    if sbuf.sampleCount == 1 { return handler(sbuf, 0) }
    for index in 0 ..< sbuf.sampleCount {
        var one: CMSampleBuffer?
        let status = CMSampleBufferCopySampleBufferForRange(allocator: nil, sampleBuffer: sbuf, sampleRange: CFRange(location: index, length: 1),
                                                            sampleBufferOut: &one)
        guard status == noErr, let one else { return status }
        let result = handler(one, index)
        if result != noErr { return result }
    }
    return noErr
}

/// The per-sample attachment dictionaries as an array that hands out the dictionaries themselves (an
/// `NSArray` of Linux's Foundation would hand out bridged copies).
final class SampleAttachmentDictionaries: NSArray {
    private let dictionaries: [NSMutableDictionary]

    init(_ dictionaries: [NSMutableDictionary]) {
        self.dictionaries = dictionaries
        super.init()
    }

    required init(objects: UnsafePointer<AnyObject>?, count: Int) {
        dictionaries = []
        super.init(objects: objects, count: count)
    }

    required convenience init(arrayLiteral elements: Any...) {
        self.init([])
    }

    required init?(coder: NSCoder) { nil }

    override var count: Int { dictionaries.count }

    override func object(at index: Int) -> Any { dictionaries[index] }
}

/// No error (0).
public let noErr: OSStatus = 0
