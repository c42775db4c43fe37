import CoreMedia
import Foundation
import Testing

/// Audio in sample buffers as Apple code reads and makes it: linear PCM through audio buffer lists
/// (interleaved and not), copies of frame ranges, compressed packets with packet descriptions, audio
/// format descriptions, and the buffer-list memory layout C code expects.
@Suite("CMSampleBuffer audio")
struct CMSampleBufferAudioTests {
    /// `frames` frames of 16-bit stereo (or one channel after the other when `planar`), sample values
    /// counting up from 0, at 48 kHz from 1 s.
    static func pcm(frames: Int = 100, planar: Bool = false) throws -> CMSampleBuffer {
        var flags = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked
        if planar { flags |= kAudioFormatFlagIsNonInterleaved }
        let asbd = AudioStreamBasicDescription(mSampleRate: 48000, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                               mBytesPerPacket: planar ? 2 : 4, mFramesPerPacket: 1, mBytesPerFrame: planar ? 2 : 4,
                                               mChannelsPerFrame: 2, mBitsPerChannel: 16, mReserved: 0)
        let format = try CMFormatDescription(audioStreamBasicDescription: asbd)
        let samples = (0..<(frames * 2)).map { Int16($0) }
        let data = try CMBlockBuffer(length: samples.count * 2, flags: .assureMemoryNow)
        try samples.withUnsafeBytes { try data.replaceDataBytes(with: $0) }
        let timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 48000), presentationTimeStamp: CMTime(value: 48000, timescale: 48000),
                                        decodeTimeStamp: .invalid)
        return try CMSampleBuffer(dataBuffer: data, formatDescription: format, numSamples: frames, sampleTimings: [timing],
                                  sampleSizes: [Int(asbd.mBytesPerFrame)])
    }

    @Test func bufferListLayoutIsCs() {
        #expect(MemoryLayout<AudioBuffer>.size == 16)
        #expect(MemoryLayout<AudioBufferList>.size == 24)
        #expect(MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers) == 8)
        #expect(AudioBufferList.sizeInBytes(maximumBuffers: 3) == 56)
        let list = AudioBufferList.allocate(maximumBuffers: 3)
        defer { free(list.unsafeMutablePointer) }
        #expect(list.count == 3)
        list[2] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 8, mData: nil)
        #expect(list[2].mDataByteSize == 8 && list[0].mDataByteSize == 0)
        #expect(list.map(\.mNumberChannels) == [0, 0, 1])
    }

    @Test func interleavedPCMAsOneBuffer() throws {
        let buffer = try Self.pcm()
        var size = 0
        #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            buffer, bufferListSizeNeededOut: &size, bufferListOut: nil, bufferListSize: 0, blockBufferAllocator: nil,
            blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: nil) == noErr)
        #expect(size == MemoryLayout<AudioBufferList>.size)
        var list = AudioBufferList()
        var block: CMBlockBuffer?
        let status = CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            buffer, bufferListSizeNeededOut: nil, bufferListOut: &list, bufferListSize: MemoryLayout<AudioBufferList>.size,
            blockBufferAllocator: nil, blockBufferMemoryAllocator: nil,
            flags: kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment, blockBufferOut: &block)
        #expect(status == noErr && block != nil)
        #expect(list.mNumberBuffers == 1 && list.mBuffers.mNumberChannels == 2 && list.mBuffers.mDataByteSize == 400)
        let samples = try #require(list.mBuffers.mData).bindMemory(to: Int16.self, capacity: 200)
        #expect(samples[0] == 0 && samples[199] == 199)
        #expect(Int(bitPattern: list.mBuffers.mData) % 16 == 0)
    }

    @Test func nonInterleavedPCMAsABufferPerChannel() throws {
        let buffer = try Self.pcm(planar: true)
        try buffer.withAudioBufferList { list, block in
            #expect(list.count == 2)
            #expect(list.allSatisfy { $0.mNumberChannels == 1 && $0.mDataByteSize == 200 })
            #expect(block.dataLength >= 400)
            // The second channel's buffer starts where the first channel's 100 samples end.
            let second = try #require(list[1].mData).bindMemory(to: Int16.self, capacity: 100)
            #expect(second[0] == 100 && second[99] == 199)
        }
        // A list with room for one buffer is too small.
        var one = AudioBufferList()
        var block: CMBlockBuffer?
        #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            buffer, bufferListSizeNeededOut: nil, bufferListOut: &one, bufferListSize: MemoryLayout<AudioBufferList>.size,
            blockBufferAllocator: nil, blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: &block) == kCMSampleBufferError_ArrayTooSmall)
    }

    @Test func copyPCMRange() throws {
        let buffer = try Self.pcm()
        var storage = [Int16](repeating: -1, count: 40)
        try storage.withUnsafeMutableBytes { raw in
            var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 2, mDataByteSize: UInt32(raw.count), mData: raw.baseAddress))
            try buffer.copyPCMData(fromRange: 10..<20, into: &list)
            #expect(list.mBuffers.mDataByteSize == 40)
            #expect(CMSampleBufferCopyPCMDataIntoAudioBufferList(buffer, at: 95, frameCount: 10, into: &list) == kCMSampleBufferError_SampleIndexOutOfRange)
        }
        #expect(storage[0] == 20 && storage[19] == 39)
    }

    @Test func audioCallsRefuseOtherMedia() throws {
        let format = try CMFormatDescription(mediaType: .video, mediaSubType: .h264)
        let data = try CMBlockBuffer(length: 4, flags: .assureMemoryNow)
        let video = try CMSampleBuffer(dataBuffer: data, formatDescription: format, numSamples: 1, sampleTimings: [], sampleSizes: [4])
        var size = 0
        #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
            video, bufferListSizeNeededOut: &size, bufferListOut: nil, bufferListSize: 0, blockBufferAllocator: nil,
            blockBufferMemoryAllocator: nil, flags: 0, blockBufferOut: nil) == kCMSampleBufferError_InvalidMediaTypeForOperation)
        #expect(throws: (any Error).self) { try video.audioStreamPacketDescriptions() }
    }

    @Test func compressedPacketsWithDescriptions() throws {
        let asbd = AudioStreamBasicDescription(mSampleRate: 44100, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
                                               mFramesPerPacket: 1024, mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        var format: CMAudioFormatDescription?
        var description = asbd
        let cookie: [UInt8] = [0x12, 0x10]
        #expect(cookie.withUnsafeBytes { bytes in
            CMAudioFormatDescriptionCreate(allocator: nil, asbd: &description, layoutSize: 0, layout: nil, magicCookieSize: bytes.count,
                                           magicCookie: bytes.baseAddress, extensions: nil, formatDescriptionOut: &format)
        } == noErr)
        let aac = try #require(format)
        #expect(aac.mediaSubType == .mpeg4AAC && aac.magicCookie == Data(cookie))
        #expect(CMAudioFormatDescriptionCreate(allocator: nil, asbd: &description, layoutSize: 8, layout: nil, magicCookieSize: 0,
                                               magicCookie: nil, extensions: nil, formatDescriptionOut: &format) == kCMFormatDescriptionError_InvalidParameter)

        let data = try CMBlockBuffer(length: 60, flags: .assureMemoryNow)
        let packets = [AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: 10),
                       AudioStreamPacketDescription(mStartOffset: 10, mVariableFramesInPacket: 0, mDataByteSize: 20),
                       AudioStreamPacketDescription(mStartOffset: 30, mVariableFramesInPacket: 0, mDataByteSize: 30)]
        let buffer = try CMSampleBuffer(dataBuffer: data, formatDescription: aac, numSamples: 3,
                                        presentationTimeStamp: CMTime(value: 2048, timescale: 44100), packetDescriptions: packets)
        #expect(buffer.numSamples == 3 && buffer.totalSampleSize == 60)
        #expect(try buffer.sampleTimingInfos().map(\.presentationTimeStamp.value) == [2048, 3072, 4096])
        #expect(buffer.duration == CMTime(value: 3072, timescale: 44100))
        #expect(try buffer.audioStreamPacketDescriptions() == packets)
        var pointer: UnsafePointer<AudioStreamPacketDescription>?
        var size = 0
        #expect(CMSampleBufferGetAudioStreamPacketDescriptionsPtr(buffer, packetDescriptionsPointerOut: &pointer, sizeOut: &size) == noErr)
        #expect(size == 3 * MemoryLayout<AudioStreamPacketDescription>.stride && pointer?[2].mDataByteSize == 30)
        // A range keeps its packets, their offsets from its own start.
        let last = try CMSampleBuffer(copying: buffer, forRange: 1..<3)
        #expect(try last.audioStreamPacketDescriptions().map(\.mStartOffset) == [0, 20])
        // Packets that do not follow one another in the data are refused.
        let gap = [packets[0], AudioStreamPacketDescription(mStartOffset: 40, mVariableFramesInPacket: 0, mDataByteSize: 20)]
        #expect(throws: (any Error).self) {
            try CMSampleBuffer(dataBuffer: data, formatDescription: aac, numSamples: 2, presentationTimeStamp: .zero, packetDescriptions: gap)
        }
    }

    @Test func channelLayoutTags() {
        #expect(kAudioChannelLayoutTag_Mono == 6_553_601 && kAudioChannelLayoutTag_Stereo == 6_619_138)
        #expect(kAudioChannelLayoutTag_MPEG_5_1_A == 7_929_862)
        #expect(AudioChannelLayoutTag_GetNumberOfChannels(kAudioChannelLayoutTag_MPEG_7_1_C) == 8)
        #expect(MemoryLayout<AudioChannelLayout>.size == 32)
    }
}
