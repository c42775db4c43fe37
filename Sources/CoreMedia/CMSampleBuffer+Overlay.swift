import Foundation

// CMSampleBuffer's Swift overlay (Apple's, iOS 13 / macOS 10.15): throwing initializers, properties
// and methods over the C-style calls. Failures throw the `CMSampleBuffer.Error` values: NSErrors in
// `NSOSStatusErrorDomain` whose codes are the calls' OSStatus.

extension CMSampleBuffer {
    /// The errors the overlay throws, one per `kCMSampleBufferError_...`.
    public enum Error {
        /// ``kCMSampleBufferError_AllocationFailed``.
        public static var allocationFailed: NSError { StatusCode(kCMSampleBufferError_AllocationFailed).nsError }
        /// ``kCMSampleBufferError_RequiredParameterMissing``.
        public static var requiredParameterMissing: NSError { StatusCode(kCMSampleBufferError_RequiredParameterMissing).nsError }
        /// ``kCMSampleBufferError_AlreadyHasDataBuffer``.
        public static var alreadyHasDataBuffer: NSError { StatusCode(kCMSampleBufferError_AlreadyHasDataBuffer).nsError }
        /// ``kCMSampleBufferError_BufferNotReady``.
        public static var bufferNotReady: NSError { StatusCode(kCMSampleBufferError_BufferNotReady).nsError }
        /// ``kCMSampleBufferError_SampleIndexOutOfRange``.
        public static var sampleIndexOutOfRange: NSError { StatusCode(kCMSampleBufferError_SampleIndexOutOfRange).nsError }
        /// ``kCMSampleBufferError_BufferHasNoSampleSizes``.
        public static var bufferHasNoSampleSizes: NSError { StatusCode(kCMSampleBufferError_BufferHasNoSampleSizes).nsError }
        /// ``kCMSampleBufferError_BufferHasNoSampleTimingInfo``.
        public static var bufferHasNoSampleTimingInfo: NSError { StatusCode(kCMSampleBufferError_BufferHasNoSampleTimingInfo).nsError }
        /// ``kCMSampleBufferError_ArrayTooSmall``.
        public static var arrayTooSmall: NSError { StatusCode(kCMSampleBufferError_ArrayTooSmall).nsError }
        /// ``kCMSampleBufferError_InvalidEntryCount``.
        public static var invalidEntryCount: NSError { StatusCode(kCMSampleBufferError_InvalidEntryCount).nsError }
        /// ``kCMSampleBufferError_CannotSubdivide``.
        public static var cannotSubdivide: NSError { StatusCode(kCMSampleBufferError_CannotSubdivide).nsError }
        /// ``kCMSampleBufferError_SampleTimingInfoInvalid``.
        public static var sampleTimingInfoInvalid: NSError { StatusCode(kCMSampleBufferError_SampleTimingInfoInvalid).nsError }
        /// ``kCMSampleBufferError_InvalidMediaTypeForOperation``.
        public static var invalidMediaTypeForOperation: NSError { StatusCode(kCMSampleBufferError_InvalidMediaTypeForOperation).nsError }
        /// ``kCMSampleBufferError_InvalidSampleData``.
        public static var invalidSampleData: NSError { StatusCode(kCMSampleBufferError_InvalidSampleData).nsError }
        /// ``kCMSampleBufferError_InvalidMediaFormat``.
        public static var invalidMediaFormat: NSError { StatusCode(kCMSampleBufferError_InvalidMediaFormat).nsError }
        /// ``kCMSampleBufferError_Invalidated``.
        public static var invalidated: NSError { StatusCode(kCMSampleBufferError_Invalidated).nsError }
        /// ``kCMSampleBufferError_DataFailed``.
        public static var dataFailed: NSError { StatusCode(kCMSampleBufferError_DataFailed).nsError }
        /// ``kCMSampleBufferError_DataCanceled``.
        public static var dataCanceled: NSError { StatusCode(kCMSampleBufferError_DataCanceled).nsError }
    }

    /// Whether a buffer's data can be read.
    public enum DataReadiness: Hashable, Sendable {
        /// The data will come later.
        case notReady
        /// The data can be read.
        case ready
        /// Making the data ready failed with this status.
        case failed(OSStatus)
    }

    /// Takes another buffer's contents (the overlay's initializers make one with the C calls first).
    convenience init(adopting made: CMSampleBuffer?) throws {
        guard let made else { throw Error.allocationFailed }
        self.init(dataBuffer: made.storedDataBuffer, imageBuffer: made.storedImageBuffer, formatDescription: made.storedFormatDescription,
                  sampleCount: made.sampleCount, timings: made.timings, sizes: made.sizes, readiness: made.readiness)
        explicitOutputPresentationTimeStamp = made.explicitOutputPresentationTimeStamp
        makeDataReadyHandler = made.makeDataReadyHandler
        readinessSource = made.readinessSource
        sampleAttachmentDictionaries = made.sampleAttachmentDictionaries
        packetDescriptions = made.packetDescriptions
        for (mode, values) in [(kCMAttachmentMode_ShouldPropagate, made.attachmentStorage.all(mode: kCMAttachmentMode_ShouldPropagate)),
                               (kCMAttachmentMode_ShouldNotPropagate, made.attachmentStorage.all(mode: kCMAttachmentMode_ShouldNotPropagate))] {
            for (key, value) in values { attachmentStorage[key] = AttachmentStorage.Entry(value: value, mode: mode) }
        }
    }

    /// A ready buffer of `numSamples` samples in `dataBuffer`, with 0, 1 or `numSamples` timings and sizes.
    ///
    /// - Parameters:
    ///   - dataBuffer: The samples' data; nil only for no samples.
    ///   - formatDescription: The samples' format, or nil.
    ///   - numSamples: How many samples, 0 to ``maximumSampleCount``.
    ///   - sampleTimings: No entry, one shared by every sample (each follows the one before), or one
    ///     per sample.
    ///   - sampleSizes: No entry, one size in bytes for every sample, or one per sample.
    /// - Throws: ``Error/invalidEntryCount`` for a sample count out of range, another count of entries
    ///   or a negative size; ``Error/requiredParameterMissing`` for samples with no data;
    ///   ``Error/invalidSampleData`` when the sizes add up to more than the data holds.
    public convenience init(dataBuffer: CMBlockBuffer?, formatDescription: CMFormatDescription?, numSamples: CMItemCount,
                            sampleTimings: [CMSampleTimingInfo], sampleSizes: [Int]) throws {
        var made: CMSampleBuffer?
        try sampleTimings.withUnsafeBufferPointer { timings in
            try sampleSizes.withUnsafeBufferPointer { sizes in
                try StatusCode.check(CMSampleBufferCreateReady(allocator: nil, dataBuffer: dataBuffer, formatDescription: formatDescription,
                                                         sampleCount: numSamples, sampleTimingEntryCount: timings.count,
                                                         sampleTimingArray: timings.baseAddress, sampleSizeEntryCount: sizes.count,
                                                         sampleSizeArray: sizes.baseAddress, sampleBufferOut: &made))
            }
        }
        try self.init(adopting: made)
    }

    /// A ready buffer of one picture; the format description must describe it.
    ///
    /// - Parameters:
    ///   - imageBuffer: The picture.
    ///   - formatDescription: A description of the picture, such as
    ///     ``CMFormatDescription/init(imageBuffer:)`` makes.
    ///   - sampleTiming: The picture's timing.
    /// - Throws: ``Error/invalidMediaFormat`` when `formatDescription` does not describe `imageBuffer`
    ///   (see ``CMFormatDescription/matchesImageBuffer(_:)``).
    public convenience init(imageBuffer: CVImageBuffer, formatDescription: CMVideoFormatDescription, sampleTiming: CMSampleTimingInfo) throws {
        var made: CMSampleBuffer?
        var timing = sampleTiming
        try StatusCode.check(CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: imageBuffer, formatDescription: formatDescription,
                                                                sampleTiming: &timing, sampleBufferOut: &made))
        try self.init(adopting: made)
    }

    /// A shallow copy (``CMSampleBufferCreateCopy(allocator:sampleBuffer:sampleBufferOut:)``).
    ///
    /// - Throws: ``Error/invalidated`` when `sampleBuffer` was invalidated.
    public convenience init(copying sampleBuffer: CMSampleBuffer) throws {
        var made: CMSampleBuffer?
        try StatusCode.check(CMSampleBufferCreateCopy(allocator: nil, sampleBuffer: sampleBuffer, sampleBufferOut: &made))
        try self.init(adopting: made)
    }

    /// A copy with new timing
    /// (``CMSampleBufferCreateCopyWithNewTiming(allocator:sampleBuffer:sampleTimingEntryCount:sampleTimingArray:sampleBufferOut:)``).
    ///
    /// - Parameters:
    ///   - sampleBuffer: The buffer to copy.
    ///   - sampleTimings: No entry, one shared by every sample, or one per sample.
    /// - Throws: ``Error/invalidated`` when `sampleBuffer` was invalidated; ``Error/invalidEntryCount``
    ///   for another count of entries.
    public convenience init(copying sampleBuffer: CMSampleBuffer, withNewTiming sampleTimings: [CMSampleTimingInfo]) throws {
        var made: CMSampleBuffer?
        try sampleTimings.withUnsafeBufferPointer { timings in
            try StatusCode.check(CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: sampleBuffer, sampleTimingEntryCount: timings.count,
                                                                 sampleTimingArray: timings.baseAddress, sampleBufferOut: &made))
        }
        try self.init(adopting: made)
    }

    /// A buffer of samples `range`
    /// (``CMSampleBufferCopySampleBufferForRange(allocator:sampleBuffer:sampleRange:sampleBufferOut:)``).
    ///
    /// - Parameters:
    ///   - sampleBuffer: The buffer to take samples from; it needs sample sizes.
    ///   - range: The samples' indices; not empty.
    /// - Throws: ``Error/sampleIndexOutOfRange`` for an empty range or one outside the samples;
    ///   ``Error/cannotSubdivide`` for a buffer without sizes or data; ``Error/invalidSampleData`` when
    ///   the data is shorter than the sizes say; ``Error/invalidated`` when `sampleBuffer` was
    ///   invalidated.
    public convenience init(copying sampleBuffer: CMSampleBuffer, forRange range: Range<Int>) throws {
        var made: CMSampleBuffer?
        try StatusCode.check(CMSampleBufferCopySampleBufferForRange(allocator: nil, sampleBuffer: sampleBuffer,
                                                              sampleRange: CFRange(location: range.lowerBound, length: range.count),
                                                              sampleBufferOut: &made))
        try self.init(adopting: made)
    }

    /// The data; nil for a picture's buffer.
    public var dataBuffer: CMBlockBuffer? { CMSampleBufferGetDataBuffer(self) }
    /// The picture; nil for a data buffer's.
    public var imageBuffer: CVImageBuffer? { CMSampleBufferGetImageBuffer(self) }
    /// The format description.
    public var formatDescription: CMFormatDescription? { CMSampleBufferGetFormatDescription(self) }
    /// How many samples.
    public var numSamples: CMItemCount { CMSampleBufferGetNumSamples(self) }
    /// The sum of the samples' sizes; 0 without sizes.
    public var totalSampleSize: Int { CMSampleBufferGetTotalSampleSize(self) }
    /// The earliest presentation time.
    public var presentationTimeStamp: CMTime { CMSampleBufferGetPresentationTimeStamp(self) }
    /// The first sample's decode time; ``CMTime/invalid`` when samples decode in presentation order.
    public var decodeTimeStamp: CMTime { CMSampleBufferGetDecodeTimeStamp(self) }
    /// The sum of the samples' durations.
    public var duration: CMTime { CMSampleBufferGetDuration(self) }
    /// The presentation time after trimming and reversal.
    public var outputPresentationTimeStamp: CMTime { CMSampleBufferGetOutputPresentationTimeStamp(self) }
    /// The decode time after trimming and the speed multiplier.
    public var outputDecodeTimeStamp: CMTime { CMSampleBufferGetOutputDecodeTimeStamp(self) }
    /// The duration after trimming and the speed multiplier.
    public var outputDuration: CMTime { CMSampleBufferGetOutputDuration(self) }
    /// False once invalidated.
    public var isValid: Bool { valid }

    /// Whether the data can be read.
    public var dataReadiness: DataReadiness { currentReadiness }

    /// Marks the data ready or failed (not ready again).
    ///
    /// - Parameter newValue: ``DataReadiness/ready``, or ``DataReadiness/failed(_:)`` with the reason.
    /// - Throws: ``Error/requiredParameterMissing`` for ``DataReadiness/notReady``;
    ///   ``Error/invalidated`` when the buffer was invalidated.
    public func setDataReadiness(_ newValue: DataReadiness) throws {
        switch newValue {
        case .ready: try StatusCode.check(CMSampleBufferSetDataReady(self))
        case .failed(let status): try StatusCode.check(CMSampleBufferSetDataFailed(self, status: status))
        case .notReady: throw Error.requiredParameterMissing
        }
    }

    /// Makes the data ready through the buffer's handler.
    ///
    /// Runs the handler on the calling thread (see ``CMSampleBufferMakeDataReady(_:)``).
    ///
    /// - Throws: An NSError with the handler's status when it fails; ``Error/dataFailed`` when the data
    ///   failed; ``Error/bufferNotReady`` without a handler; ``Error/invalidated`` when the buffer was
    ///   invalidated.
    public func makeDataReady() throws { try StatusCode.check(CMSampleBufferMakeDataReady(self)) }
    /// Gives the buffer its data, once.
    ///
    /// - Parameter dataBuffer: The samples' data; it must hold at least the bytes the sample sizes add
    ///   up to. Setting it does not make it ready.
    /// - Throws: ``Error/alreadyHasDataBuffer`` for a buffer that has data or a picture;
    ///   ``Error/invalidSampleData`` when `dataBuffer` is shorter than the sizes say;
    ///   ``Error/invalidated`` when the buffer was invalidated.
    public func setDataBuffer(_ dataBuffer: CMBlockBuffer) throws { try StatusCode.check(CMSampleBufferSetDataBuffer(self, newValue: dataBuffer)) }
    /// Sets the output presentation time (`.invalid` returns to the computed one).
    ///
    /// - Parameter newValue: The time ``outputPresentationTimeStamp`` gives from now on;
    ///   ``CMTime/invalid`` to compute it again.
    /// - Throws: ``Error/invalidated`` when the buffer was invalidated.
    public func setOutputPresentationTimeStamp(_ newValue: CMTime) throws {
        try StatusCode.check(CMSampleBufferSetOutputPresentationTimeStamp(self, newValue: newValue))
    }
    /// Invalidates the buffer, running its invalidate handler.
    ///
    /// - Throws: ``Error/invalidated`` when the buffer was invalidated already.
    public func invalidate() throws { try StatusCode.check(CMSampleBufferInvalidate(self)) }
    /// The handler ``invalidate()`` runs.
    ///
    /// - Parameter body: Called with the buffer by ``invalidate()``, on its thread; an error it throws
    ///   is dropped. Replaces a handler set before.
    /// - Throws: ``Error/invalidated`` when the buffer was invalidated.
    public func setInvalidateHandler(_ body: @escaping (CMSampleBuffer) throws -> Void) throws {
        try StatusCode.check(CMSampleBufferSetInvalidateHandler(self) { try? body($0) })
    }

    /// The size entries: one for all samples, or one per sample.
    ///
    /// - Returns: The sizes in bytes, as given when the buffer was made.
    /// - Throws: ``Error/bufferHasNoSampleSizes`` for a buffer without sizes; ``Error/invalidated``
    ///   when the buffer was invalidated.
    public func sampleSizes() throws -> [Int] {
        guard valid else { throw Error.invalidated }
        guard !sizes.isEmpty else { throw Error.bufferHasNoSampleSizes }
        return Array(sizes)
    }

    /// The size of one sample; 0 without sizes or for an index outside the samples.
    public func sampleSize(at sampleIndex: Int) -> Int { CMSampleBufferGetSampleSize(self, at: sampleIndex) }

    /// The timing entries: one for all samples, or one per sample.
    ///
    /// - Returns: The entries, as given when the buffer was made (or copied with new timing).
    /// - Throws: ``Error/bufferHasNoSampleTimingInfo`` for a buffer without timing;
    ///   ``Error/invalidated`` when the buffer was invalidated.
    public func sampleTimingInfos() throws -> [CMSampleTimingInfo] {
        guard valid else { throw Error.invalidated }
        guard !timings.isEmpty else { throw Error.bufferHasNoSampleTimingInfo }
        return Array(timings)
    }

    /// The timing entries after trimming, reversal and the speed multiplier.
    ///
    /// - Returns: As many entries as ``sampleTimingInfos()`` gives, or one per sample when a trim,
    ///   reversal or an explicit output time makes the samples of a shared entry differ (see
    ///   ``CMSampleBufferGetOutputSampleTimingInfoArray(_:entryCount:arrayToFill:entriesNeededOut:)``).
    /// - Throws: ``Error/bufferHasNoSampleTimingInfo`` for a buffer without timing;
    ///   ``Error/invalidated`` when the buffer was invalidated.
    public func outputSampleTimingInfos() throws -> [CMSampleTimingInfo] {
        var needed = 0
        try StatusCode.check(CMSampleBufferGetOutputSampleTimingInfoArray(self, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed))
        var result = [CMSampleTimingInfo](repeating: .invalid, count: needed)
        try result.withUnsafeMutableBufferPointer { out in
            try StatusCode.check(CMSampleBufferGetOutputSampleTimingInfoArray(self, entryCount: out.count, arrayToFill: out.baseAddress,
                                                                        entriesNeededOut: nil))
        }
        return result
    }

    /// The timing of one sample.
    ///
    /// - Parameter sampleIndex: The sample's index, from 0.
    /// - Returns: The sample's timing, spread from a shared entry where there is one.
    /// - Throws: ``Error/sampleIndexOutOfRange`` for an index outside the samples;
    ///   ``Error/bufferHasNoSampleTimingInfo`` for a buffer without timing; ``Error/invalidated`` when
    ///   the buffer was invalidated.
    public func sampleTimingInfo(at sampleIndex: CMItemIndex) throws -> CMSampleTimingInfo {
        var timing = CMSampleTimingInfo()
        try StatusCode.check(CMSampleBufferGetSampleTimingInfo(self, at: sampleIndex, timingInfoOut: &timing))
        return timing
    }

    /// The samples one buffer each (sharing the data); needs sample sizes unless there is one sample.
    ///
    /// - Returns: A sequence that makes each sample's buffer as it is reached.
    /// - Throws: ``Error/cannotSubdivide`` for a buffer of several samples without sizes or data;
    ///   ``Error/invalidated`` when the buffer was invalidated.
    public func singleSampleBuffers() throws -> SingleSampleBuffers {
        guard valid else { throw Error.invalidated }
        guard sampleCount <= 1 || (!sizes.isEmpty && storedDataBuffer != nil) else { throw Error.cannotSubdivide }
        return SingleSampleBuffers(buffer: self)
    }

    /// The samples of a buffer, one buffer each.
    public struct SingleSampleBuffers: Sequence {
        let buffer: CMSampleBuffer

        /// Makes each sample's buffer as it is reached.
        public struct Iterator: IteratorProtocol {
            let buffer: CMSampleBuffer
            var index = 0

            /// The next sample's buffer; nil after the last.
            public mutating func next() -> CMSampleBuffer? {
                guard index < buffer.sampleCount else { return nil }
                defer { index += 1 }
                if buffer.sampleCount == 1 { return buffer }
                // singleSampleBuffers() checked that the buffer has sizes; a buffer whose data is still
                // to come has nothing to split, and the sequence ends.
                return try? CMSampleBuffer(copying: buffer, forRange: index ..< index + 1)
            }
        }

        /// An iterator over the samples, from the first.
        public func makeIterator() -> Iterator { Iterator(buffer: buffer) }
    }

    /// Each sample's attachments, made empty when first asked for; changed in place. Setting copies
    /// the dictionaries of another buffer's array of the same count (one of another count is ignored:
    /// every sample has exactly one dictionary).
    public var sampleAttachments: SampleAttachmentsArray {
        get {
            _ = CMSampleBufferGetSampleAttachmentsArray(self, createIfNecessary: true)
            return SampleAttachmentsArray(dictionaries: sampleAttachmentDictionaries ?? [])
        }
        set {
            guard valid, newValue.dictionaries.count == sampleCount else { return }
            sampleAttachmentDictionaries = newValue.dictionaries.map(mutableCopy)
        }
    }

    /// The per-sample attachment dictionaries of a buffer.
    public struct SampleAttachmentsArray: RandomAccessCollection {
        let dictionaries: [NSMutableDictionary]
        /// 0.
        public var startIndex: Int { 0 }
        /// The number of samples.
        public var endIndex: Int { dictionaries.count }
        /// The attachments of sample `position`.
        public subscript(position: Int) -> PerSampleAttachmentsDictionary { PerSampleAttachmentsDictionary(storage: dictionaries[position]) }
    }

    /// One sample's attachments: `notSync`, `dependsOnOthers` and the rest, by key.
    public struct PerSampleAttachmentsDictionary: Sequence {
        let storage: NSMutableDictionary

        /// The value under `key`; setting nil removes it. Changes the buffer's own dictionary.
        public subscript(key: Key) -> Any? {
            get { storage[key.rawValue as String] }
            nonmutating set {
                if let newValue { storage.setObject(newValue, forKey: AnyHashable(key.rawValue as String)) } else {
                    storage.removeObject(forKey: key.rawValue as String)
                }
            }
        }

        /// The attachments, as keys and values.
        public func makeIterator() -> Dictionary<Key, Any>.Iterator {
            var values: [Key: Any] = [:]
            for (key, value) in storage {
                if let name = key as? String { values[Key(rawValue: name as CFString)] = value }
            }
            return values.makeIterator()
        }

        /// A per-sample attachment key.
        public struct Key: RawRepresentable, Hashable, @unchecked Sendable {
            // @unchecked Sendable: the raw value is an immutable string.
            /// The key's string, one of the `kCMSampleAttachmentKey_...` constants.
            public let rawValue: CFString
            /// A key from its string.
            public init(rawValue: CFString) { self.rawValue = rawValue }
            /// ``kCMSampleAttachmentKey_NotSync``: true when the sample is not a key frame.
            public static let notSync = Key(rawValue: kCMSampleAttachmentKey_NotSync)
            /// ``kCMSampleAttachmentKey_PartialSync``.
            public static let partialSync = Key(rawValue: kCMSampleAttachmentKey_PartialSync)
            /// ``kCMSampleAttachmentKey_HasRedundantCoding``.
            public static let hasRedundantCoding = Key(rawValue: kCMSampleAttachmentKey_HasRedundantCoding)
            /// ``kCMSampleAttachmentKey_IsDependedOnByOthers``: false when the sample may be dropped.
            public static let isDependedOnByOthers = Key(rawValue: kCMSampleAttachmentKey_IsDependedOnByOthers)
            /// ``kCMSampleAttachmentKey_DependsOnOthers``: false for an I-frame.
            public static let dependsOnOthers = Key(rawValue: kCMSampleAttachmentKey_DependsOnOthers)
            /// ``kCMSampleAttachmentKey_EarlierDisplayTimesAllowed``.
            public static let earlierDisplayTimesAllowed = Key(rawValue: kCMSampleAttachmentKey_EarlierDisplayTimesAllowed)
            /// ``kCMSampleAttachmentKey_DisplayImmediately``.
            public static let displayImmediately = Key(rawValue: kCMSampleAttachmentKey_DisplayImmediately)
            /// ``kCMSampleAttachmentKey_DoNotDisplay``.
            public static let doNotDisplay = Key(rawValue: kCMSampleAttachmentKey_DoNotDisplay)
            /// ``kCMSampleAttachmentKey_HEVCTemporalLevelInfo``.
            public static let hevcTemporalLevelInfo = Key(rawValue: kCMSampleAttachmentKey_HEVCTemporalLevelInfo)
            /// ``kCMSampleAttachmentKey_HEVCTemporalSubLayerAccess``.
            public static let hevcTemporalSubLayerAccess = Key(rawValue: kCMSampleAttachmentKey_HEVCTemporalSubLayerAccess)
            /// ``kCMSampleAttachmentKey_HEVCStepwiseTemporalSubLayerAccess``.
            public static let hevcStepwiseTemporalSubLayerAccess = Key(rawValue: kCMSampleAttachmentKey_HEVCStepwiseTemporalSubLayerAccess)
            /// ``kCMSampleAttachmentKey_HEVCSyncSampleNALUnitType``.
            public static let hevcSyncSampleNALUnitType = Key(rawValue: kCMSampleAttachmentKey_HEVCSyncSampleNALUnitType)
            /// ``kCMSampleAttachmentKey_AudioIndependentSampleDecoderRefreshCount``.
            public static let audioIndependentSampleDecoderRefreshCount = Key(rawValue: kCMSampleAttachmentKey_AudioIndependentSampleDecoderRefreshCount)
        }
    }
}
