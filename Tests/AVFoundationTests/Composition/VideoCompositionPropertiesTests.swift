import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// `propertiesOf` (async, completion handler, synchronous), `isValid` with its delegate, and audio mixes.
@Suite("Video composition properties and validation")
struct VideoCompositionPropertiesTests {
    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }

    /// Records what the validator reports, and stops after `limit` reports.
    final class Recorder: NSObject, AVVideoCompositionValidationHandling, @unchecked Sendable {
        var reports: [String] = []
        let limit: Int
        init(limit: Int = .max) { self.limit = limit }
        private func report(_ text: String) -> Bool {
            reports.append(text)
            return reports.count < limit
        }
        func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String) -> Bool {
            report("value \(key)")
        }
        func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange) -> Bool {
            report("empty \(timeRange.start.seconds)-\(timeRange.end.seconds)")
        }
        func videoComposition(_ videoComposition: AVVideoComposition,
                              shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol) -> Bool {
            report("range \(videoCompositionInstruction.timeRange.start.seconds)")
        }
        func videoComposition(_ videoComposition: AVVideoComposition,
                              shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol,
                              layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool {
            report("track \(layerInstruction.trackID)")
        }
    }

    /// Seed 002's sample, as written there.
    @Test func seed002Sample() async throws {
        let asset = AVURLAsset(url: Self.url("frames-h264.mp4"))
        let range = CMTimeRange(start: .zero, duration: CMTime(seconds: 4, preferredTimescale: 600))
        let delegate = Recorder()
        let videoComposition = try await AVVideoComposition
            .videoComposition(withPropertiesOf: asset)

        let valid = try await videoComposition.isValid(for: asset, timeRange: range, validationDelegate: delegate)
        #expect(valid && delegate.reports.isEmpty)
    }

    @Test func propertiesOfAFile() async throws {
        let asset = AVURLAsset(url: Self.url("frames-rotated.mov"))
        let composition = try await AVVideoComposition.videoComposition(withPropertiesOf: asset)
        #expect(composition.renderSize == CGSize(width: 240, height: 320), "the box of the turned picture")
        #expect(composition.frameDuration == CMTime(value: 1, timescale: 25))
        #expect(composition.renderScale == 1 && composition.sourceTrackIDForFrameTiming == 1)
        let instruction = try #require(composition.instructions.first as? AVVideoCompositionInstruction)
        let duration = try await asset.load(.duration)
        #expect(composition.instructions.count == 1 && instruction.timeRange == CMTimeRange(start: .zero, duration: duration))
        let layer = try #require(instruction.layerInstructions.first)
        var transform = CGAffineTransform.identity
        #expect(layer.getTransformRamp(for: .zero, start: &transform, end: nil, timeRange: nil))
        #expect(layer.trackID == 1 && transform == CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0))
        #expect(instruction.backgroundColor == nil)
    }

    /// Two overlapping clips on their own tracks: an instruction per span of the same tracks, the
    /// first track on top; the composition's natural size; the greater rate.
    @Test func propertiesOfAComposition() async throws {
        let composition = AVMutableComposition()
        let a = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        let b = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 2))
        let h264 = try #require(try await AVURLAsset(url: Self.url("frames-h264.mp4")).loadTracks(withMediaType: .video).first)
        let hevc = try #require(try await AVURLAsset(url: Self.url("frames-hevc.mov")).loadTracks(withMediaType: .video).first)
        try a.insertTimeRange(Self.r(0, 3), of: h264, at: .zero)
        try b.insertTimeRange(Self.r(0, 3), of: hevc, at: Self.t(2))
        let video = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: composition)
        let mutable: AVMutableVideoComposition = video   // the mutable class gives its own kind
        #expect(mutable.renderSize == CGSize(width: 320, height: 240) && mutable.sourceTrackIDForFrameTiming == kCMPersistentTrackID_Invalid)
        #expect(mutable.frameDuration == CMTime(value: 1, timescale: 25))
        let spans = mutable.instructions.compactMap { $0 as? AVVideoCompositionInstruction }.map { instruction in
            "\(instruction.timeRange.start.seconds)-\(instruction.timeRange.end.seconds): \(instruction.layerInstructions.map(\.trackID))"
        }
        #expect(spans == ["0.0-2.0: [1]", "2.0-3.0: [1, 2]", "3.0-5.0: [2]"])
        let valid = try await mutable.isValid(for: composition, timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity), validationDelegate: nil)
        #expect(valid)
    }

    @available(*, deprecated, message: "exercises the synchronous API")
    @Test func synchronousAndCompletionHandlerForms() async throws {
        let asset = AVURLAsset(url: Self.url("frames-h264.mp4"))
        let sync = AVMutableVideoComposition(propertiesOf: asset)
        #expect(sync.renderSize == CGSize(width: 320, height: 240) && sync.instructions.count == 1)
        #expect(sync.isValid(for: asset, timeRange: Self.r(0, 4), validationDelegate: nil))
        let viaHandler: AVVideoComposition? = await withHandOffContinuation { done in
            AVVideoComposition.videoComposition(withPropertiesOf: asset) { composition, _ in done.resume(returning: composition) }
        }
        #expect(viaHandler?.renderSize == sync.renderSize && viaHandler?.frameDuration == sync.frameDuration)

        let missing = AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        #expect(AVVideoComposition(propertiesOf: missing).instructions.isEmpty)
        #expect(!sync.isValid(for: missing, timeRange: Self.r(0, 4), validationDelegate: nil))
        await #expect(throws: (any Error).self) { try await AVVideoComposition.videoComposition(withPropertiesOf: missing) }
    }

    /// Every problem reaches the delegate; its answer stops validation.
    @Test func validationReportsEachProblem() async throws {
        let asset = AVURLAsset(url: Self.url("frames-h264.mp4"))   // 4 s, video track 1
        let composition = AVMutableVideoComposition()
        func instruction(_ start: Double, _ end: Double, tracks: [CMPersistentTrackID]) -> AVMutableVideoCompositionInstruction {
            let result = AVMutableVideoCompositionInstruction()
            result.timeRange = Self.r(start, end)
            result.layerInstructions = tracks.map { id in
                let layer = AVMutableVideoCompositionLayerInstruction()
                layer.trackID = id
                return layer
            }
            return result
        }
        composition.instructions = [instruction(0, 1, tracks: [1]), instruction(1.5, 2, tracks: [1]), instruction(1.8, 3, tracks: [1]),
                                    instruction(3, 3.5, tracks: [7])]
        let recorder = Recorder()
        let valid = try await composition.isValid(for: asset, timeRange: Self.r(0, 4), validationDelegate: recorder)
        #expect(!valid)
        // The overlapping instruction counts for nothing, so the time after the one before it is uncovered.
        #expect(recorder.reports == ["value frameDuration", "value renderSize", "empty 1.0-1.5", "range 1.8", "empty 2.0-3.0", "track 7",
                                     "empty 3.5-4.0"])

        let stopping = Recorder(limit: 2)
        let stopped = try await composition.isValid(for: asset, timeRange: Self.r(0, 4), validationDelegate: stopping)
        #expect(!stopped)
        #expect(stopping.reports == ["value frameDuration", "value renderSize"])

        // Fixed up, and checked without an asset: no track IDs, no asset length to cover.
        composition.frameDuration = CMTime(value: 1, timescale: 30)
        composition.renderSize = CGSize(width: 320, height: 240)
        composition.instructions = [instruction(0, 1, tracks: [1]), instruction(1, 3.5, tracks: [7])]
        let alone = try await composition.isValid(for: nil, timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity), validationDelegate: nil)
        let part = try await composition.isValid(for: nil, timeRange: Self.r(1, 2), validationDelegate: nil)
        let withAsset = try await composition.isValid(for: asset, timeRange: Self.r(0, 4), validationDelegate: nil)
        #expect(alone && part && !withAsset, "only overlapping instructions count; an asset's tracks are checked")
    }

    @Test func audioMixVolumes() throws {
        let parameters = AVMutableAudioMixInputParameters(track: nil)
        #expect(parameters.trackID == kCMPersistentTrackID_Invalid)
        parameters.trackID = 2
        parameters.setVolume(0.5, at: .zero)
        parameters.setVolumeRamp(fromStartVolume: 0.5, toEndVolume: 0, timeRange: Self.r(3, 4))
        parameters.audioTimePitchAlgorithm = .varispeed
        var start: Float = -1, end: Float = -1, range = CMTimeRange.invalid
        #expect(parameters.getVolumeRamp(for: Self.t(1), startVolume: &start, endVolume: &end, timeRange: &range))
        #expect(start == 0.5 && end == 0.5 && range == Self.r(0, 3))
        #expect(parameters.getVolumeRamp(for: Self.t(3.5), startVolume: &start, endVolume: &end, timeRange: &range))
        #expect(start == 0.5 && end == 0 && range == Self.r(3, 4))

        let mix = AVMutableAudioMix()
        mix.inputParameters = [parameters]
        let frozen = try #require(mix.copy() as? AVAudioMix)
        #expect(!(frozen is AVMutableAudioMix) && frozen.inputParameters.first?.trackID == 2)
        #expect(frozen.inputParameters.first?.audioTimePitchAlgorithm == .varispeed)
        let copied = try #require(parameters.copy() as? AVAudioMixInputParameters)
        parameters.setVolume(1, at: .zero)
        #expect(copied.getVolumeRamp(for: Self.t(1), startVolume: &start, endVolume: nil, timeRange: nil) && start == 0.5)
        #expect(!AVMutableAudioMixInputParameters().getVolumeRamp(for: .zero, startVolume: nil, endVolume: nil, timeRange: nil))
    }
}
