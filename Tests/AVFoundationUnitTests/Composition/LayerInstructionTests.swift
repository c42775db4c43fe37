@testable import AVFoundation
import Foundation
import Testing

/// Layer instructions: fixed values and ramps, the getters' "in effect, else the next one" rule, and
/// the interpolated value rendering will use.
@Suite("Video composition layer instructions")
struct LayerInstructionTests {
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }

    @Test func opacityRampsAndFixedValues() {
        let instruction = AVMutableVideoCompositionLayerInstruction()
        instruction.trackID = 2
        instruction.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: Self.r(2, 4))
        instruction.setOpacity(0.5, at: Self.t(6))
        var start: Float = -1, end: Float = -1
        var range = CMTimeRange.invalid
        #expect(instruction.getOpacityRamp(for: Self.t(3), startOpacity: &start, endOpacity: &end, timeRange: &range))
        #expect(start == 1 && end == 0 && range == Self.r(2, 4))
        #expect(instruction.getOpacityRamp(for: Self.t(1), startOpacity: &start, endOpacity: nil, timeRange: &range),
                "before any ramp: the first one after")
        #expect(range == Self.r(2, 4))
        #expect(instruction.getOpacityRamp(for: Self.t(5), startOpacity: &start, endOpacity: &end, timeRange: &range))
        #expect(start == 0.5 && end == 0.5 && range.start == Self.t(6) && range.duration == .positiveInfinity, "the fixed value after")
        #expect(instruction.getOpacityRamp(for: Self.t(60), startOpacity: &start, endOpacity: nil, timeRange: nil) && start == 0.5)
        #expect(!AVMutableVideoCompositionLayerInstruction().getOpacityRamp(for: .zero, startOpacity: nil, endOpacity: nil, timeRange: nil))
        let values = instruction.values.withLock { $0.opacities }
        let lerp: (Float, Float, Double) -> Float = { $0 + ($1 - $0) * Float($2) }
        #expect(values.value(at: Self.t(1), interpolate: lerp) == 1, "the default before")
        #expect(values.value(at: Self.t(3), interpolate: lerp) == 0.5, "halfway down the fade")
        #expect(values.value(at: Self.t(5), interpolate: lerp) == 0, "the ramp's end holds")
        #expect(values.value(at: Self.t(7), interpolate: lerp) == 0.5)
    }

    @Test func transformsReplaceAtTheSameStartAndCopiesAreIndependent() throws {
        let instruction = AVMutableVideoCompositionLayerInstruction()
        let quarter = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0)
        instruction.setTransform(.identity, at: .zero)
        instruction.setTransform(quarter, at: .zero)
        instruction.setTransform(.identity, at: Self.t(2))
        var start = CGAffineTransform.identity
        var range = CMTimeRange.invalid
        #expect(instruction.getTransformRamp(for: Self.t(1), start: &start, end: nil, timeRange: &range))
        #expect(start == quarter && range == Self.r(0, 2), "a fixed value lasts until the next")
        let frozen = try #require(instruction.copy() as? AVVideoCompositionLayerInstruction)
        instruction.setTransform(.identity, at: .zero)
        #expect(frozen.getTransformRamp(for: Self.t(1), start: &start, end: nil, timeRange: nil) && start == quarter)
        #expect(!(frozen is AVMutableVideoCompositionLayerInstruction))
        #expect(frozen.mutableCopy() is AVMutableVideoCompositionLayerInstruction)
    }

    @Test func cropRectanglesAndBadTimes() {
        let instruction = AVMutableVideoCompositionLayerInstruction()
        instruction.setCropRectangle(CGRect(x: 0, y: 0, width: 100, height: 50), at: .invalid)
        instruction.setCropRectangleRamp(fromStartCropRectangle: .zero, toEndCropRectangle: .zero, timeRange: Self.r(1, 1))
        #expect(!instruction.getCropRectangleRamp(for: .zero, startCropRectangle: nil, endCropRectangle: nil, timeRange: nil),
                "times that are not numbers and empty ranges set nothing")
        instruction.setCropRectangleRamp(fromStartCropRectangle: CGRect(x: 0, y: 0, width: 320, height: 240),
                                         toEndCropRectangle: CGRect(x: 80, y: 60, width: 160, height: 120), timeRange: Self.r(0, 1))
        var end = CGRect.null
        #expect(instruction.getCropRectangleRamp(for: Self.t(0.5), startCropRectangle: nil, endCropRectangle: &end, timeRange: nil))
        #expect(end == CGRect(x: 80, y: 60, width: 160, height: 120))
    }
}
