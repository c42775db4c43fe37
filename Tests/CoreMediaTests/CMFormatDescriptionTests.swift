import CoreMedia
import Foundation
import Testing

@Suite("CMFormatDescription")
struct CMFormatDescriptionTests {
    private func aac(_ rate: Double, channels: UInt32 = 2) -> AudioStreamBasicDescription {
        AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: kMPEG4Object_AAC_LC,
                                    mBytesPerPacket: 0, mFramesPerPacket: 1024, mBytesPerFrame: 0,
                                    mChannelsPerFrame: channels, mBitsPerChannel: 0, mReserved: 0)
    }

    @Test func fourCharCodes() {
        #expect(FourCharCode(fourCharString: "soun") == 0x736F_756E)
        #expect(kCMMediaType_Audio == 0x736F_756E)
        #expect(CMFormatDescription.MediaType.video.description == "vide")
        #expect(CMFormatDescription.MediaSubType.mpeg4AAC.description == "aac ")
        #expect(CMFormatDescription.MediaSubType.mpegLayer3.rawValue == FourCharCode(fourCharString: ".mp3"))
        #expect(FourCharCode(0x0001_6162).fourCharString == "..ab")
        #expect(kAudioFormatLinearPCM == FourCharCode(fourCharString: "lpcm"))
    }

    @Test func audioDescription() throws {
        let desc = try CMFormatDescription(audioStreamBasicDescription: aac(48000))
        #expect(desc.mediaType == .audio && desc.mediaSubType == .mpeg4AAC)
        #expect(desc.audioStreamBasicDescription?.mSampleRate == 48000)
        #expect(desc.audioStreamBasicDescription?.mFramesPerPacket == 1024)
        #expect(desc.dimensions == CMVideoDimensions())
        let pointer = try #require(CMAudioFormatDescriptionGetStreamBasicDescription(desc))
        #expect(pointer.pointee.mChannelsPerFrame == 2)
        #expect(CMFormatDescriptionGetMediaType(desc) == kCMMediaType_Audio)
        #expect(throws: CMFormatDescriptionError.self) { try CMFormatDescription(audioStreamBasicDescription: aac(0)) }
    }

    @Test func videoDescription() throws {
        var ext = CMFormatDescription.Extensions()
        ext[.pixelAspectRatio] = .pixelAspectRatio(horizontalSpacing: 4, verticalSpacing: 3)
        ext[.formatName] = .init("H.264")
        let desc = try CMFormatDescription(videoCodecType: .h264, width: 640, height: 480, extensions: ext)
        #expect(desc.mediaType == .video && desc.audioStreamBasicDescription == nil)
        #expect(desc.dimensions == CMVideoDimensions(width: 640, height: 480))
        #expect(CMVideoFormatDescriptionGetDimensions(desc).width == 640)
        #expect(desc.presentationDimensions() == CGSize(width: 640.0 * 4 / 3, height: 480))
        #expect(desc.presentationDimensions(usePixelAspectRatio: false) == CGSize(width: 640, height: 480))
        #expect(CMFormatDescriptionGetExtension(desc, extensionKey: "FormatName") as? String == "H.264")
        #expect(desc.extensions.count == 2)
        #expect(desc.extensions.map(\.key) == [.formatName, .pixelAspectRatio])
        #expect(throws: CMFormatDescriptionError.self) { try CMFormatDescription(videoCodecType: .h264, width: -1, height: 2) }
    }

    @Test func extensionsFromPropertyLists() {
        let ext = CMFormatDescription.Extensions(base: ["Depth": 24, "FullRangeVideo": true, "Bad": NSObject()])
        #expect(ext.count == 2, "non-plist values are dropped")
        #expect(ext[.depth]?.propertyListRepresentation as? Int == 24)
        #expect(ext[.fullRangeVideo] == .init(true))
    }

    /// Seed 000's sample relies on `Set(allDescriptions)`: equal contents must collapse.
    @Test func hashableByContents() throws {
        let a = try CMFormatDescription(audioStreamBasicDescription: aac(48000))
        let b = try CMFormatDescription(audioStreamBasicDescription: aac(48000))
        let c = try CMFormatDescription(audioStreamBasicDescription: aac(44100))
        #expect(a == b && a !== b && a != c)
        let rates = Set([a, b, c]).map { Float($0.audioStreamBasicDescription?.mSampleRate ?? 0) }.sorted(by: { $0 > $1 })
        #expect(rates == [48000, 44100])
    }
}
