import AVFoundation
import Foundation
import Testing

/// AVFAudio's formats, channel layouts and buffers, in memory: Apple's stream descriptions for the
/// common formats, settings in and out, the failing cases, and buffers whose memory is where the
/// buffer list and the channel pointers say.
@Suite("Audio formats and buffers")
struct AudioFormatTests {
    /// A format's stream description, read while the format is alive (its pointer is valid only as long
    /// as the format is: as on Apple's platforms, `format.streamDescription.pointee` on a temporary reads
    /// freed memory).
    static func asbd(_ format: AVAudioFormat?) -> AudioStreamBasicDescription? {
        guard let format else { return nil }
        return withExtendedLifetime(format) { format.streamDescription.pointee }
    }

    @Test func theStandardFormatIsDeinterleavedFloat() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let d = try #require(Self.asbd(format))
        #expect(d.mFormatID == kAudioFormatLinearPCM && d.mFormatFlags == 41, "float, packed, non-interleaved: \(d.mFormatFlags)")
        #expect(d.mBytesPerFrame == 4 && d.mBytesPerPacket == 4 && d.mFramesPerPacket == 1 && d.mBitsPerChannel == 32 && d.mChannelsPerFrame == 2)
        #expect(format.isStandard && !format.isInterleaved && format.commonFormat == .pcmFormatFloat32)
        #expect(format.sampleRate == 48_000 && format.channelCount == 2 && format.channelLayout == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 0) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 6) == nil, "more than two channels need a layout")
        #expect(AVAudioFormat(standardFormatWithSampleRate: -1, channels: 1) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: .nan, channels: 1) == nil)
    }

    @Test func commonFormatsHaveApplesDescriptions() throws {
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 2, interleaved: true))
        let d = try #require(Self.asbd(int16))
        #expect(d.mFormatFlags == kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked && d.mBytesPerFrame == 4 && d.mBitsPerChannel == 16)
        #expect(int16.isInterleaved && !int16.isStandard && int16.commonFormat == .pcmFormatInt16)
        let float64 = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat64, sampleRate: 44_100, channels: 1, interleaved: false))
        #expect(Self.asbd(float64)?.mBytesPerFrame == 8 && float64.commonFormat == .pcmFormatFloat64)
        #expect(AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 8_000, channels: 1, interleaved: true)?.commonFormat == .pcmFormatInt32)
        #expect(AVAudioFormat(commonFormat: .otherFormat, sampleRate: 8_000, channels: 1, interleaved: true) == nil)

        let surround = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A))
        let six = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: surround)
        #expect(six.channelCount == 6 && six.channelLayout == surround && six.isStandard)
        let interleaved = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, interleaved: true, channelLayout: surround)
        #expect(Self.asbd(interleaved)?.mBytesPerFrame == 12)
    }

    @Test func settingsGoInAndComeBackOut() throws {
        let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 22_050, channels: 2, interleaved: true))
        let settings = format.settings
        #expect((settings[AVFormatIDKey] as? NSNumber)?.uint32Value == kAudioFormatLinearPCM)
        #expect((settings[AVLinearPCMBitDepthKey] as? NSNumber)?.intValue == 16 && (settings[AVSampleRateKey] as? NSNumber)?.doubleValue == 22_050)
        #expect(AVAudioFormat(settings: settings) == format)

        // Linear PCM is the default; its depth defaults to 16 and is rounded up to whole bytes.
        let plain = try #require(AVAudioFormat(settings: [AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 1]))
        #expect(plain.commonFormat == .pcmFormatInt16 && plain.isInterleaved)
        #expect(Self.asbd(AVAudioFormat(settings: [AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 20]))?.mBitsPerChannel == 24)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 40]) == nil)
        for bad in [Double.nan, .infinity, -8, 1e300] {
            #expect(AVAudioFormat(settings: [AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: bad]) == nil, "\(bad) bits")
        }
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 1, AVLinearPCMIsFloatKey: true,
                                         AVLinearPCMIsNonInterleaved: true])?.isStandard == true)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 8_000]) == nil && AVAudioFormat(settings: [AVNumberOfChannelsKey: 2]) == nil)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 6]) == nil, "six channels need a layout")

        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        #expect(aac.commonFormat == .otherFormat && Self.asbd(aac)?.mFramesPerPacket == 1024)
        #expect(aac.formatDescription.mediaType == .audio && aac.formatDescription.mediaSubType == .mpeg4AAC)

        // A layout travels as Data, and must agree with the channel count.
        let surround = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A))
        let six = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: surround)
        let again = try #require(AVAudioFormat(settings: six.settings))
        #expect(again == six && again.channelLayout?.layoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)
        var wrong = six.settings
        wrong[AVNumberOfChannelsKey] = 4
        #expect(AVAudioFormat(settings: wrong) == nil)
        wrong = six.settings
        wrong[AVChannelLayoutKey] = Data([1, 2, 3])
        #expect(AVAudioFormat(settings: wrong) == nil, "a layout of too few bytes")
    }

    @Test func streamDescriptionsAndEquality() throws {
        let standard = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        var d = try #require(Self.asbd(standard))
        let made = try #require(AVAudioFormat(streamDescription: &d))
        #expect(made == AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        #expect(made != AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        d.mChannelsPerFrame = 3
        #expect(AVAudioFormat(streamDescription: &d) == nil)
        let three = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_3_0_A)
        #expect(AVAudioFormat(streamDescription: &d, channelLayout: three)?.channelCount == 3)
        #expect(AVAudioFormat(streamDescription: &d, channelLayout: AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)) == nil)
        let fromDescription = AVAudioFormat(cmAudioFormatDescription: made.formatDescription)
        #expect(fromDescription == made)
        made.magicCookie = Data([0x12, 0x10])
        #expect(made.magicCookie == Data([0x12, 0x10]) && made.formatDescription.magicCookie == Data([0x12, 0x10]))
    }

    @Test func channelLayouts() throws {
        let stereo = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo))
        #expect(stereo.channelCount == 2 && stereo.layoutTag == kAudioChannelLayoutTag_Stereo && withExtendedLifetime(stereo) { stereo.layout.pointee.mNumberChannelDescriptions } == 0)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_UseChannelDescriptions) == nil)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_UseChannelBitmap) == nil)
        var bitmap = AudioChannelLayout()
        bitmap.mChannelLayoutTag = kAudioChannelLayoutTag_UseChannelBitmap
        bitmap.mChannelBitmap = [.bit_Left, .bit_Right, .bit_Center]
        #expect(AVAudioChannelLayout(layout: &bitmap).channelCount == 3)
        #expect(stereo == AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo) && stereo != AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Mono))
    }

    @Test func pcmBuffersHoldTheirFramesWhereTheListSays() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 2))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1_000))
        #expect(buffer.frameCapacity == 1_000 && buffer.frameLength == 0 && buffer.stride == 1)
        let channels = try #require(buffer.floatChannelData)
        #expect(buffer.int16ChannelData == nil && buffer.int32ChannelData == nil)
        for i in 0..<1_000 { channels[0][i] = Float(i); channels[1][i] = -Float(i) }
        buffer.frameLength = 250
        let list = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: buffer.audioBufferList))
        #expect(list.count == 2 && list.map(\.mDataByteSize) == [1_000, 1_000] && list.map(\.mNumberChannels) == [1, 1])
        #expect(list[1].mData?.assumingMemoryBound(to: Float.self)[10] == -10)
        // The list's byte count sets the length too; a length past the capacity is the capacity.
        let mutable = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        mutable[0].mDataByteSize = 400
        #expect(buffer.frameLength == 100)
        buffer.frameLength = 5_000
        #expect(buffer.frameLength == 1_000)
        let copy = try #require(buffer.copy() as? AVAudioPCMBuffer)
        #expect(copy.frameLength == 1_000 && copy.floatChannelData?[1][999] == -999 && copy.format == format)

        let interleaved = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 8_000, channels: 2, interleaved: true))
        let frames = try #require(AVAudioPCMBuffer(pcmFormat: interleaved, frameCapacity: 4))
        #expect(frames.stride == 2)
        let samples = try #require(frames.int16ChannelData)
        samples[0][0] = 1; samples[1][0] = 2; samples[0][2] = 3; samples[1][2] = 4
        frames.frameLength = 2
        let one = UnsafeMutableAudioBufferListPointer(frames.mutableAudioBufferList)
        #expect(one.count == 1 && one[0].mNumberChannels == 2 && one[0].mDataByteSize == 8)
        let raw = try #require(one[0].mData?.assumingMemoryBound(to: Int16.self))
        #expect((0..<4).map { raw[$0] } == [1, 2, 3, 4], "frames interleaved, channel pointers one sample apart")
        withExtendedLifetime(frames) {}  // its memory is read through pointers above

        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        #expect(AVAudioPCMBuffer(pcmFormat: aac, frameCapacity: 10) == nil, "not linear PCM")
        #expect(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: .max) == nil, "more bytes than 32 bits count")
    }

    @Test func compressedBuffers() throws {
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        let buffer = AVAudioCompressedBuffer(format: aac, packetCapacity: 8, maximumPacketSize: 1_536)
        #expect(buffer.packetCapacity == 8 && buffer.maximumPacketSize == 1_536 && buffer.byteCapacity == 12_288)
        #expect(buffer.packetDescriptions != nil && buffer.packetCount == 0 && buffer.byteLength == 0)
        buffer.data.storeBytes(of: 0xAB, as: UInt8.self)
        buffer.packetCount = 20
        buffer.byteLength = 100
        #expect(buffer.packetCount == 8 && withExtendedLifetime(buffer) { buffer.audioBufferList.pointee.mBuffers.mDataByteSize } == 100)
        let copy = try #require(buffer.copy() as? AVAudioCompressedBuffer)
        #expect(copy.byteLength == 100 && copy.data.load(as: UInt8.self) == 0xAB)
        var ulaw = AudioStreamBasicDescription(mSampleRate: 8_000, mFormatID: kAudioFormatULaw, mFormatFlags: 0, mBytesPerPacket: 1,
                                               mFramesPerPacket: 1, mBytesPerFrame: 1, mChannelsPerFrame: 1, mBitsPerChannel: 8, mReserved: 0)
        let constant = AVAudioCompressedBuffer(format: try #require(AVAudioFormat(streamDescription: &ulaw)), packetCapacity: 160)
        #expect(constant.byteCapacity == 160 && constant.packetDescriptions == nil)
    }

    @Test func formatsAndLayoutsSurviveAnArchive() throws {
        let layout = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A))
        let surround = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, interleaved: true, channelLayout: layout)
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        aac.magicCookie = Data([0x12, 0x10])
        for format in [surround, aac] {
            let data = try NSKeyedArchiver.archivedData(withRootObject: format, requiringSecureCoding: true)
            let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: AVAudioFormat.self, from: data))
            #expect(back == format, "\(back) for \(format)")
            #expect(back.magicCookie == format.magicCookie && back.channelLayout?.layoutTag == format.channelLayout?.layoutTag)
        }
        let data = try NSKeyedArchiver.archivedData(withRootObject: layout, requiringSecureCoding: true)
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: AVAudioChannelLayout.self, from: data) == layout)
        #expect(AVAudioFormat.supportsSecureCoding && AVAudioChannelLayout.supportsSecureCoding)
    }

    @Test func buffersOverTheCallersMemory() throws {
        let format = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 8_000, channels: 2, interleaved: false))
        var left: [Int16] = [1, 2, 3, 4], right: [Int16] = [-1, -2, -3, -4]
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { list.unsafeMutablePointer.deallocate() }
        var released = 0
        try left.withUnsafeMutableBufferPointer { l in
            try right.withUnsafeMutableBufferPointer { r in
                list[0] = AudioBuffer(l, numberOfChannels: 1)
                list[1] = AudioBuffer(r, numberOfChannels: 1)
                #expect(list[0].mDataByteSize == 8 && list[1].mNumberChannels == 1)
                do {
                    let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, bufferListNoCopy: list.unsafePointer) { _ in released += 1 })
                    #expect(buffer.frameCapacity == 4 && buffer.frameLength == 4)
                    let data = try #require(buffer.int16ChannelData)
                    #expect(data[0][2] == 3 && data[1][3] == -4)
                    data[1][0] = 100   // writes the caller's memory
                    // Apple's overlay reads a buffer as typed samples.
                    #expect(Array(UnsafeBufferPointer<Int16>(buffer.audioBufferList.pointee.mBuffers)) == [1, 2, 3, 4])
                }
            }
        }
        #expect(right[0] == 100 && released == 1, "the deallocator runs once, when the buffer goes")
        // A list that does not match the format is refused.
        let mono = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 8_000, channels: 1, interleaved: true))
        #expect(AVAudioPCMBuffer(pcmFormat: mono, bufferListNoCopy: list.unsafePointer) == nil)
    }
}
