import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// AVOutputSettingsAssistant: which presets exist, how the suggestions follow the source, and that a
/// writer takes them and writes what they say.
@Suite("Output settings assistant")
struct OutputSettingsAssistantTests {
    @Test("the H.264 and HEVC presets are available; those with alpha or views are not")
    func presets() {
        let available = AVOutputSettingsAssistant.availableOutputSettingsPresets()
        #expect(available.count == 8)
        for preset in available { #expect(AVOutputSettingsAssistant(preset: preset) != nil, "\(preset.rawValue)") }
        for preset in [AVOutputSettingsPreset.hevc1920x1080WithAlpha, .hevc3840x2160WithAlpha, .mvhevc960x960, .mvhevc1440x1440,
                       AVOutputSettingsPreset("nonesuch")] {
            #expect(AVOutputSettingsAssistant(preset: preset) == nil, "\(preset.rawValue)")
        }
        #expect(AVOutputSettingsPreset.preset1920x1080.rawValue == "AVOutputSettingsPreset1920x1080")
        #expect(AVOutputSettingsAssistant(preset: .preset640x480)?.outputFileType == .mov)
    }

    static func video(_ width: Int32, _ height: Int32) throws -> CMVideoFormatDescription {
        var made: CMVideoFormatDescription?
        #expect(CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: width, height: height,
                                               extensions: nil, formatDescriptionOut: &made) == noErr)
        return try #require(made)
    }

    static func size(_ settings: [String: Any]?) -> (Int, Int)? {
        guard let width = settings?[AVVideoWidthKey] as? Int, let height = settings?[AVVideoHeightKey] as? Int else { return nil }
        return (width, height)
    }

    @Test("pictures fit the preset's box, never enlarged; the frame rate and sound follow the source")
    func suggestionsFollowTheSource() throws {
        let assistant = try #require(AVOutputSettingsAssistant(preset: .preset1920x1080))
        #expect(Self.size(assistant.videoSettings).map { $0 == (1920, 1080) } == true)
        assistant.sourceVideoFormat = try Self.video(1280, 720)
        #expect(Self.size(assistant.videoSettings).map { $0 == (1280, 720) } == true, "a smaller source is not enlarged")
        assistant.sourceVideoFormat = try Self.video(4000, 3000)
        #expect(Self.size(assistant.videoSettings).map { $0 == (1440, 1080) } == true, "a larger 4:3 source is shrunk into the box")
        let properties = try #require(assistant.videoSettings?[AVVideoCompressionPropertiesKey] as? [String: Any])
        #expect(properties[AVVideoExpectedSourceFrameRateKey] as? Double == 30)
        #expect(properties[AVVideoMaxKeyFrameIntervalKey] as? Int == 60)
        assistant.sourceVideoAverageFrameDuration = CMTime(value: 1001, timescale: 60000)
        let faster = try #require(assistant.videoSettings?[AVVideoCompressionPropertiesKey] as? [String: Any])
        #expect(abs((faster[AVVideoExpectedSourceFrameRateKey] as? Double ?? 0) - 59.94) < 0.001)
        #expect((faster[AVVideoAverageBitRateKey] as? Int ?? 0) > (properties[AVVideoAverageBitRateKey] as? Int ?? .max))

        #expect(assistant.audioSettings?[AVSampleRateKey] as? Int == 44100 && assistant.audioSettings?[AVNumberOfChannelsKey] as? Int == 2)
        var mono = AudioStreamBasicDescription(mSampleRate: 48000, mFormatID: kAudioFormatLinearPCM, mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 1, mBitsPerChannel: 32, mReserved: 0)
        assistant.sourceAudioFormat = try CMFormatDescription(audioStreamBasicDescription: mono)
        #expect(assistant.audioSettings?[AVSampleRateKey] as? Int == 48000 && assistant.audioSettings?[AVNumberOfChannelsKey] as? Int == 1)
        mono.mSampleRate = 22050
        assistant.sourceAudioFormat = try CMFormatDescription(audioStreamBasicDescription: mono)
        #expect(assistant.audioSettings?[AVSampleRateKey] as? Int == 44100)
    }

    @Test("a writer takes every preset's settings, and writes a movie of the suggested size and codecs", arguments: [
        (AVOutputSettingsPreset.preset640x480, "h264"), (.hevc1920x1080, "hevc"),
    ])
    func aWriterTakesTheSuggestions(_ preset: AVOutputSettingsPreset, _ codec: String) async throws {
        let assistant = try #require(AVOutputSettingsAssistant(preset: preset))
        assistant.sourceVideoFormat = try Self.video(320, 240)
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("assistant-\(codec).mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: assistant.outputFileType)
        for available in AVOutputSettingsAssistant.availableOutputSettingsPresets() {
            let other = try #require(AVOutputSettingsAssistant(preset: available))
            #expect(writer.canApply(outputSettings: other.videoSettings, forMediaType: .video), "\(available.rawValue)")
            #expect(writer.canApply(outputSettings: other.audioSettings, forMediaType: .audio), "\(available.rawValue)")
        }
        let writerInputs = try await AssetWriterTests.writePictures(to: url, fileType: assistant.outputFileType, count: 10,
                                                                    settings: try #require(assistant.videoSettings))
        #expect(writerInputs.status == .completed, "\(String(describing: writerInputs.error))")
        #expect(try await AssetWriterTests.probe(url, "stream=codec_name,width,height") == ["\(codec),320,240"])
    }
}
