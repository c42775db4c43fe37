import CoreMedia
import Foundation
import Testing

/// Sample buffers as Apple code makes and reads them: packets in a block buffer with shared or
/// per-sample timing and sizes, a picture in an image buffer, copies, ranges, per-sample and buffer
/// attachments with the output-timing rules, and Apple's error codes where a call is wrong.
@Suite("CMSampleBuffer")
struct CMSampleBufferTests {
    static func t(_ value: Int64, _ scale: Int32 = 30) -> CMTime { CMTime(value: value, timescale: scale) }

    /// Three packets of 4, 2 and 6 bytes (bytes 0...11) at 1/30 s each from 10/30 s, one timing entry.
    func packets(sharedTiming: Bool = true) throws -> CMSampleBuffer {
        let data = try CMBlockBuffer(length: 12, flags: .assureMemoryNow)
        try (0 ..< 12).map { UInt8($0) }.withUnsafeBytes { try data.replaceDataBytes(with: $0) }
        let format = try CMFormatDescription(mediaType: .video, mediaSubType: .h264)
        let timing = sharedTiming
            ? [CMSampleTimingInfo(duration: Self.t(1), presentationTimeStamp: Self.t(10), decodeTimeStamp: .invalid)]
            : [12, 10, 11].map { CMSampleTimingInfo(duration: Self.t(1), presentationTimeStamp: Self.t($0), decodeTimeStamp: Self.t($0 - 12 + 10)) }
        return try CMSampleBuffer(dataBuffer: data, formatDescription: format, numSamples: 3, sampleTimings: timing, sampleSizes: [4, 2, 6])
    }

    @Test func packetsReadAsAppleDescribes() throws {
        let buffer = try packets()
        #expect(buffer.numSamples == 3 && buffer.totalSampleSize == 12)
        #expect(buffer.presentationTimeStamp == Self.t(10) && buffer.duration == Self.t(3))
        #expect(buffer.decodeTimeStamp == .invalid)
        #expect(try buffer.sampleTimingInfo(at: 2).presentationTimeStamp == Self.t(12), "one entry spreads over the samples")
        #expect(try buffer.sampleSizes() == [4, 2, 6] && buffer.sampleSize(at: 2) == 6 && buffer.sampleSize(at: 3) == 0)
        #expect(buffer.formatDescription?.mediaSubType == .h264)
        #expect(try buffer.dataBuffer?.dataBytes() == Data(0 ..< 12))
        #expect(CMSampleBufferGetImageBuffer(buffer) == nil && CMSampleBufferDataIsReady(buffer))
        // The two-call pattern.
        var needed = 0
        #expect(CMSampleBufferGetSampleSizeArray(buffer, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed) == noErr && needed == 3)
        var two = [0, 0]
        #expect(CMSampleBufferGetSampleSizeArray(buffer, entryCount: 2, arrayToFill: &two, entriesNeededOut: &needed)
                == kCMSampleBufferError_ArrayTooSmall)
        var timing = CMSampleTimingInfo()
        #expect(CMSampleBufferGetSampleTimingInfo(buffer, at: 3, timingInfoOut: &timing) == kCMSampleBufferError_SampleIndexOutOfRange)
    }

    @Test func perSampleTimingGivesTheEarliestPresentationAndTheFirstDecodeTime() throws {
        let buffer = try packets(sharedTiming: false)
        #expect(buffer.presentationTimeStamp == Self.t(10), "the numerically earliest, not the first")
        #expect(buffer.decodeTimeStamp == Self.t(10) && buffer.duration == Self.t(3))
        #expect(try buffer.sampleTimingInfos().count == 3)
    }

    @Test func singleSamplesAndRangesShareTheData() throws {
        let buffer = try packets()
        let singles = Array(try buffer.singleSampleBuffers())
        #expect(singles.count == 3)
        #expect(try singles.map { try $0.dataBuffer?.dataBytes() } == [Data(0 ..< 4), Data(4 ..< 6), Data(6 ..< 12)])
        #expect(singles.map(\.presentationTimeStamp) == [Self.t(10), Self.t(11), Self.t(12)])
        let lastTwo = try CMSampleBuffer(copying: buffer, forRange: 1 ..< 3)
        #expect(lastTwo.numSamples == 2 && lastTwo.totalSampleSize == 8 && lastTwo.presentationTimeStamp == Self.t(11))
        var out: CMSampleBuffer?
        #expect(CMSampleBufferCopySampleBufferForRange(allocator: nil, sampleBuffer: buffer, sampleRange: CFRangeMake(2, 2),
                                                       sampleBufferOut: &out) == kCMSampleBufferError_SampleIndexOutOfRange)
        var seen: [CMItemCount] = []
        #expect(CMSampleBufferCallBlockForEachSample(buffer) { _, index in seen.append(index); return noErr } == noErr)
        #expect(seen == [0, 1, 2])
    }

    @Test func aPictureBufferHoldsOneSampleWithoutSizes() throws {
        var pixels: CVPixelBuffer?
        CVPixelBufferCreate(kCFAllocatorDefault, 64, 48, kCVPixelFormatType_32BGRA, nil, &pixels)
        let image = try #require(pixels)
        var format: CMVideoFormatDescription?
        #expect(CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: image, formatDescriptionOut: &format) == noErr)
        let description = try #require(format)
        #expect(description.dimensions.width == 64 && CMVideoFormatDescriptionMatchesImageBuffer(description, imageBuffer: image))
        let timing = CMSampleTimingInfo(duration: Self.t(1), presentationTimeStamp: Self.t(5), decodeTimeStamp: .invalid)
        let buffer = try CMSampleBuffer(imageBuffer: image, formatDescription: description, sampleTiming: timing)
        #expect(buffer.numSamples == 1 && buffer.imageBuffer === image && buffer.dataBuffer == nil)
        #expect(buffer.totalSampleSize == 0 && buffer.presentationTimeStamp == Self.t(5))
        #expect(throws: NSError.self) { try buffer.sampleSizes() }
        // A description of another size does not describe it.
        let other = try CMFormatDescription(mediaType: .video, mediaSubType: .h264)
        var refused: CMSampleBuffer?
        var pointerTiming = timing
        #expect(CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: image, formatDescription: other, sampleTiming: &pointerTiming,
                                                         sampleBufferOut: &refused) == kCMSampleBufferError_InvalidMediaFormat)
    }

    @Test func outputTimingFollowsTrimsReverseAndSpeed() throws {
        let buffer = try packets()
        #expect(buffer.outputPresentationTimeStamp == Self.t(10) && buffer.outputDuration == Self.t(3))
        CMSetAttachment(buffer, key: kCMSampleBufferAttachmentKey_TrimDurationAtStart,
                        value: CMTimeCopyAsDictionary(Self.t(1), allocator: kCFAllocatorDefault), attachmentMode: kCMAttachmentMode_ShouldPropagate)
        #expect(buffer.outputPresentationTimeStamp == Self.t(11) && buffer.outputDuration == Self.t(2))
        CMSetAttachment(buffer, key: kCMSampleBufferAttachmentKey_SpeedMultiplier, value: NSNumber(value: 2.0),
                        attachmentMode: kCMAttachmentMode_ShouldPropagate)
        #expect(buffer.outputDuration.seconds == 1.0 / 30, "two thirtieths played twice as fast")
        CMSetAttachment(buffer, key: kCMSampleBufferAttachmentKey_Reverse, value: kCFBooleanTrue, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        CMSetAttachment(buffer, key: kCMSampleBufferAttachmentKey_TrimDurationAtEnd,
                        value: CMTimeCopyAsDictionary(Self.t(1), allocator: nil), attachmentMode: kCMAttachmentMode_ShouldPropagate)
        #expect(buffer.outputPresentationTimeStamp == Self.t(12), "reversed: PTS + duration - trim at end")
        try buffer.setOutputPresentationTimeStamp(Self.t(100))
        #expect(buffer.outputPresentationTimeStamp == Self.t(100))
        let retimed = try CMSampleBuffer(copying: buffer, withNewTiming: [CMSampleTimingInfo(duration: Self.t(2), presentationTimeStamp: .zero,
                                                                                             decodeTimeStamp: .invalid)])
        #expect(retimed.presentationTimeStamp == .zero && retimed.duration == Self.t(6))
        #expect(retimed.outputPresentationTimeStamp == Self.t(5), "the explicit output time is dropped; the trims propagated")
        var mode: CMAttachmentMode = 9
        #expect(CMGetAttachment(retimed, key: kCMSampleBufferAttachmentKey_Reverse, attachmentModeOut: &mode) != nil && mode == 1)
    }

    @Test func attachmentsPropagateOnlyWhenAskedAndPerSampleOnesChangeInPlace() throws {
        let buffer = try packets()
        CMSetAttachment(buffer, key: "Mine" as CFString, value: NSNumber(value: 1), attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        CMSetAttachment(buffer, key: "Ours" as CFString, value: NSNumber(value: 2), attachmentMode: kCMAttachmentMode_ShouldPropagate)
        let copy = try CMSampleBuffer(copying: buffer)
        #expect(CMGetAttachment(copy, key: "Mine" as CFString, attachmentModeOut: nil) == nil)
        #expect((CMGetAttachment(copy, key: "Ours" as CFString, attachmentModeOut: nil) as? NSNumber)?.intValue == 2)
        #expect(CMCopyDictionaryOfAttachments(allocator: nil, target: buffer, attachmentMode: kCMAttachmentMode_ShouldNotPropagate)?.count == 1)
        CMRemoveAllAttachments(buffer)
        #expect(CMGetAttachment(buffer, key: "Ours" as CFString, attachmentModeOut: nil) == nil)
        // Per sample: absent notSync means a sync sample; set through the overlay, read through the C array.
        #expect(CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: false) == nil)
        buffer.sampleAttachments[1][.notSync] = true
        let array = try #require(CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: false))
        #expect(array.count == 3)
        #expect((array[1] as? NSDictionary)?[kCMSampleAttachmentKey_NotSync as String] as? Bool == true)
        #expect(buffer.sampleAttachments[0][.notSync] == nil)
        let second = try CMSampleBuffer(copying: buffer, forRange: 1 ..< 2)
        #expect(second.sampleAttachments[0][.notSync] as? Bool == true, "a range keeps its samples' attachments")
        #expect(second.isNotSync(0) && !buffer.isNotSync(0) && buffer.isNotSync(1))
    }

    /// A reader's fast path: a one-sample buffer marked not sync makes no dictionary until asked, and
    /// then shows the key every way Apple's code reads it; copies keep it.
    @Test func markedNotSyncShowsTheKeyWhenAskedFor() throws {
        let data = try CMBlockBuffer(length: 4, flags: .assureMemoryNow)
        let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
        let one = try CMSampleBuffer(dataBuffer: data, formatDescription: nil, numSamples: 1, sampleTimings: [timing], sampleSizes: [4])
        #expect(!one.isNotSync(0))
        one.markNotSync()
        #expect(one.isNotSync(0) && !one.isNotSync(1))
        let copy = try CMSampleBuffer(copying: one)
        let array = try #require(CMSampleBufferGetSampleAttachmentsArray(one, createIfNecessary: false))
        #expect((array[0] as? NSDictionary)?[kCMSampleAttachmentKey_NotSync as String] as? Bool == true)
        #expect(one.sampleAttachments[0][.notSync] as? Bool == true)
        #expect(copy.sampleAttachments[0][.notSync] as? Bool == true && copy.isNotSync(0))
        one.sampleAttachments[0][.notSync] = nil
        #expect(!one.isNotSync(0) && one.sampleAttachments[0][.notSync] == nil)
        // A buffer of several samples takes the key at once, on its first sample.
        let three = try packets()
        three.markNotSync()
        #expect(three.isNotSync(0) && !three.isNotSync(1))
        #expect(CMSampleBufferGetSampleAttachmentsArray(three, createIfNecessary: false)?.count == 3)
    }

    @Test func wrongCountsAndLateDataAreRefusedWithApplesCodes() throws {
        let data = try CMBlockBuffer(length: 8, flags: .assureMemoryNow)
        var out: CMSampleBuffer?
        let two = [CMSampleTimingInfo.invalid, .invalid]
        #expect(CMSampleBufferCreateReady(allocator: nil, dataBuffer: data, formatDescription: nil, sampleCount: 3, sampleTimingEntryCount: 2,
                                          sampleTimingArray: two, sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &out)
                == kCMSampleBufferError_InvalidEntryCount && out == nil)
        #expect(CMSampleBufferCreateReady(allocator: nil, dataBuffer: data, formatDescription: nil, sampleCount: 3, sampleTimingEntryCount: 0,
                                          sampleTimingArray: nil, sampleSizeEntryCount: 1, sampleSizeArray: [4], sampleBufferOut: &out)
                == kCMSampleBufferError_InvalidSampleData, "3 samples of 4 bytes do not fit in 8")
        #expect(CMSampleBufferCreateReady(allocator: nil, dataBuffer: data, formatDescription: nil, sampleCount: 2, sampleTimingEntryCount: 1,
                                          sampleTimingArray: nil, sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &out)
                == kCMSampleBufferError_RequiredParameterMissing, "an entry count with no array")
        // Not ready: data given later, once; made ready by its callback.
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: { _, _ in noErr }, refcon: nil,
                                     formatDescription: nil, sampleCount: 1, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                                     sampleSizeEntryCount: 1, sampleSizeArray: [8], sampleBufferOut: &out) == noErr)
        let late = try #require(out)
        #expect(late.dataReadiness == .notReady && late.dataBuffer == nil)
        #expect(throws: NSError.self) { try late.sampleTimingInfos() }
        try late.setDataBuffer(data)
        #expect(throws: NSError.self) { try late.setDataBuffer(data) }
        try late.makeDataReady()
        #expect(late.dataReadiness == .ready)
    }

    @Test func anInvalidatedBufferRunsItsHandlerOnceAndAnswersNothing() throws {
        let buffer = try packets()
        var calls = 0
        try buffer.setInvalidateHandler { _ in calls += 1 }
        try buffer.invalidate()
        #expect(calls == 1 && !buffer.isValid)
        #expect(buffer.numSamples == 0 && buffer.presentationTimeStamp == .invalid && buffer.dataBuffer == nil)
        do {
            try buffer.invalidate()
            Issue.record("a second invalidation is an error")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == Int(kCMSampleBufferError_Invalidated))
        }
        #expect(calls == 1)
    }

    @Test func timesRoundTripThroughDictionaries() {
        let time = CMTime(value: 1001, timescale: 30000)
        #expect(CMTimeMakeFromDictionary(CMTimeCopyAsDictionary(time, allocator: nil)) == time)
        #expect(CMTimeMakeFromDictionary(CMTimeCopyAsDictionary(.positiveInfinity, allocator: nil)) == .positiveInfinity)
        #expect(CMTimeMakeFromDictionary(["value": 1] as CFDictionary) == .invalid)
        #expect(CMTimeMakeFromDictionary(nil) == .invalid)
    }

    @Test func sizesThatOverflowAreRefusedWithOrWithoutData() throws {
        var out: CMSampleBuffer?
        let huge = [Int.max, Int.max, 2]
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: nil, refcon: nil,
                                     formatDescription: nil, sampleCount: 3, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                                     sampleSizeEntryCount: 3, sampleSizeArray: huge, sampleBufferOut: &out) == kCMSampleBufferError_InvalidSampleData)
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: nil, refcon: nil,
                                     formatDescription: nil, sampleCount: Int.max, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                                     sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &out) == kCMSampleBufferError_InvalidEntryCount)
        // Data given later must hold the sizes.
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: nil, refcon: nil,
                                     formatDescription: nil, sampleCount: 2, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                                     sampleSizeEntryCount: 1, sampleSizeArray: [8], sampleBufferOut: &out) == noErr)
        let late = try #require(out)
        #expect(CMSampleBufferSetDataBuffer(late, newValue: try CMBlockBuffer(length: 8)) == kCMSampleBufferError_InvalidSampleData)
        #expect(throws: NSError.self) { try late.singleSampleBuffers() }
    }

    @Test func settingAnotherBuffersAttachmentsCopiesThemAndKeepsTheCount() throws {
        let three = try packets(), one = try CMSampleBuffer(copying: try packets(), forRange: 0 ..< 1)
        one.sampleAttachments[0][.dependsOnOthers] = false
        three.sampleAttachments = one.sampleAttachments
        #expect(three.sampleAttachments.count == 3 && three.sampleAttachments[0][.dependsOnOthers] == nil, "another count is ignored")
        let other = try packets()
        other.sampleAttachments[2][.notSync] = true
        three.sampleAttachments = other.sampleAttachments
        #expect(three.sampleAttachments[2][.notSync] as? Bool == true)
        three.sampleAttachments[2][.notSync] = nil
        #expect(other.sampleAttachments[2][.notSync] as? Bool == true, "copied, not shared")
        #expect(try CMSampleBuffer(copying: three, forRange: 1 ..< 2).numSamples == 1)
    }

    @Test func theCArrayHandsOutTheSamplesOwnDictionaries() throws {
        let buffer = try packets()
        let array = try #require(CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: true))
        let second = try #require(array[1] as? NSMutableDictionary)
        second[kCMSampleAttachmentKey_NotSync as String] = kCFBooleanTrue
        #expect(buffer.sampleAttachments[1][.notSync] as? Bool == true)
        #expect((array as? [[String: Any]])?.count == 3)
    }

    @Test func outputTimingEntriesMatchTheTimingAndTheTrims() throws {
        let perSample = try packets(sharedTiming: false)
        #expect(try perSample.outputSampleTimingInfos().count == 3)
        CMSetAttachment(perSample, key: kCMSampleBufferAttachmentKey_SpeedMultiplier, value: 2, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        let fast = try perSample.outputSampleTimingInfos()
        #expect(fast.map(\.duration.seconds).allSatisfy { abs($0 - 1.0 / 60) < 1e-9 }, "\(fast)")
        // One AAC packet whose priming is trimmed: the entry's duration is what is heard.
        let aac = try CMSampleBuffer(dataBuffer: try CMBlockBuffer(length: 10), formatDescription: nil, numSamples: 1,
                                     sampleTimings: [CMSampleTimingInfo(duration: CMTime(value: 1024, timescale: 44100),
                                                                        presentationTimeStamp: .zero, decodeTimeStamp: .invalid)],
                                     sampleSizes: [10])
        CMSetAttachment(aac, key: kCMSampleBufferAttachmentKey_TrimDurationAtStart,
                        value: CMTimeCopyAsDictionary(CMTime(value: 1000, timescale: 44100), allocator: nil), attachmentMode: 1)
        let heard = try aac.outputSampleTimingInfos()
        #expect(heard.count == 1 && heard[0].duration == CMTime(value: 24, timescale: 44100) && heard[0].duration == aac.outputDuration)
        #expect(heard[0].presentationTimeStamp == CMTime(value: 1000, timescale: 44100))
    }

    @Test func aCopyOfABufferNotReadyBecomesReadyWithIt() throws {
        var out: CMSampleBuffer?
        CMSampleBufferCreate(allocator: nil, dataBuffer: try CMBlockBuffer(length: 4), dataReady: false, makeDataReadyCallback: nil, refcon: nil,
                             formatDescription: nil, sampleCount: 1, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                             sampleSizeEntryCount: 1, sampleSizeArray: [4], sampleBufferOut: &out)
        let source = try #require(out)
        let copy = try CMSampleBuffer(copying: source)
        #expect(copy.dataReadiness == .notReady)
        CMSampleBufferSetDataReady(source)
        #expect(copy.dataReadiness == .ready && CMSampleBufferDataIsReady(copy))
    }

    @Test func theAttachmentOverlayReadsAndWritesTheBearersOwn() throws {
        let buffer = try packets()
        buffer.attachments[.trimDurationAtStart] = .shouldPropagate(CMTimeCopyAsDictionary(Self.t(1), allocator: nil) as Any)
        #expect(buffer.outputPresentationTimeStamp == Self.t(11), "the overlay writes what the output timing reads")
        #expect(buffer.attachments[.trimDurationAtStart]?.mode == .shouldPropagate)
        buffer.attachments["Mine"] = .shouldNotPropagate(3)
        #expect(buffer.attachments.nonPropagated["Mine"] as? Int == 3 && buffer.attachments.propagated.count == 1)
        let block = try CMBlockBuffer(length: 4)
        buffer.propagateAttachments(to: block)
        #expect(CMGetAttachment(block, key: kCMSampleBufferAttachmentKey_TrimDurationAtStart, attachmentModeOut: nil) != nil)
        #expect(block.attachments["Mine"] == nil)
        buffer.attachments.removeAll()
        #expect(buffer.attachments[.trimDurationAtStart] == nil && buffer.outputPresentationTimeStamp == Self.t(10))
    }

    @Test func pixelBufferAttachmentsThroughCoreVideoAndCoreMedia() throws {
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, 8, 8, kCVPixelFormatType_32BGRA, nil, &made)
        let pixels = try #require(made)
        CVBufferSetAttachment(pixels, "ColorPrimaries" as CFString, "ITU_R_709_2" as CFString, .shouldPropagate)
        var mode = CVAttachmentMode.shouldNotPropagate
        let value = CVBufferGetAttachment(pixels, "ColorPrimaries" as CFString, &mode)?.takeUnretainedValue()
        #expect(value as? String == "ITU_R_709_2" && mode == .shouldPropagate)
        #expect(CMGetAttachment(pixels, key: "ColorPrimaries" as CFString, attachmentModeOut: nil) as? String == "ITU_R_709_2")
        // A Swift value set through CoreMedia is boxed once and kept, so the unretained reference stays valid.
        CMSetAttachment(pixels, key: "Count" as CFString, value: 7, attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        let boxed = try #require(CVBufferGetAttachment(pixels, "Count" as CFString, nil))
        #expect(boxed.takeUnretainedValue() as? Int == 7 && CVBufferGetAttachment(pixels, "Count" as CFString, nil)?.toOpaque() == boxed.toOpaque())
        var other: CVPixelBuffer?
        CVPixelBufferCreate(nil, 8, 8, kCVPixelFormatType_32BGRA, nil, &other)
        CVBufferPropagateAttachments(pixels, try #require(other))
        #expect(try #require(other).attachments["ColorPrimaries"] != nil && CVBufferCopyAttachment(try #require(other), "Count" as CFString, nil) == nil)
        CVBufferRemoveAllAttachments(pixels)
        #expect(CVBufferCopyAttachments(pixels, .shouldPropagate) == nil)
    }

    @Test func aPictureBufferMadeNotReadyBecomesReadyThroughItsCallback() throws {
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, 16, 16, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &made)
        let image = try #require(made)
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: image, formatDescriptionOut: &format)
        var timing = CMSampleTimingInfo(duration: Self.t(1), presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
        var out: CMSampleBuffer?
        #expect(CMSampleBufferCreateForImageBuffer(allocator: nil, imageBuffer: image, dataReady: false, makeDataReadyCallback: { _, _ in noErr },
                                                   refcon: nil, formatDescription: try #require(format), sampleTiming: &timing,
                                                   sampleBufferOut: &out) == noErr)
        let buffer = try #require(out)
        #expect(!CMSampleBufferDataIsReady(buffer))
        #expect(CMSampleBufferMakeDataReady(buffer) == noErr && CMSampleBufferDataIsReady(buffer))
        buffer.sampleAttachments[0][.hevcSyncSampleNALUnitType] = 19
        #expect(buffer.sampleAttachments[0][.hevcSyncSampleNALUnitType] as? Int == 19)
    }
}
