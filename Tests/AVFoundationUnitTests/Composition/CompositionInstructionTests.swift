import AVFoundation
import Foundation
import Testing

/// Video composition instructions and colours: defaults, settable twins, copies.
@Suite("Video composition instructions")
struct CompositionInstructionTests {
    @Test func defaultsAndSettableValues() throws {
        let instruction = AVMutableVideoCompositionInstruction()
        #expect(!instruction.timeRange.isValid && instruction.backgroundColor == nil && instruction.layerInstructions.isEmpty)
        #expect(instruction.enablePostProcessing && instruction.passthroughTrackID == kCMPersistentTrackID_Invalid)
        let layer = AVMutableVideoCompositionLayerInstruction()
        layer.trackID = 3
        instruction.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1))
        instruction.backgroundColor = CGColor(red: 1, green: 0, blue: 0, alpha: 1)
        instruction.layerInstructions = [layer]
        instruction.enablePostProcessing = false
        #expect(instruction.requiredSourceTrackIDs == [NSNumber(value: 3)])
        layer.setOpacity(0.5, at: .zero)
        var opacity: Float = 0
        #expect(instruction.layerInstructions.first?.getOpacityRamp(for: .zero, startOpacity: &opacity, endOpacity: nil, timeRange: nil) == true)
        #expect(opacity == 0.5, "the layer instructions themselves are shared, as Apple's copy property shares them")
        let frozen = try #require(instruction.copy() as? AVVideoCompositionInstruction)
        instruction.timeRange = .zero
        #expect(frozen.timeRange.duration == CMTime(value: 2, timescale: 1) && !(frozen is AVMutableVideoCompositionInstruction))
        #expect(frozen.backgroundColor == CGColor(red: 1, green: 0, blue: 0, alpha: 1) && !frozen.enablePostProcessing)
        let composition = AVMutableVideoComposition()
        composition.instructions = [frozen]
        #expect((composition.instructions.first as? AVVideoCompositionInstruction)?.layerInstructions.count == 1)
    }

    @Test func colours() {
        let red = CGColor(red: 1, green: 0, blue: 0, alpha: 0.5)
        #expect(red.numberOfComponents == 4 && red.alpha == 0.5 && red.colorSpace?.name == CGColorSpace.sRGB)
        #expect(CGColor.black.components == [0, 1] && CGColor.clear.alpha == 0 && CGColor.white.numberOfComponents == 2)
        #expect(CGColor(gray: 1, alpha: 1) == .white && red != .black)
    }
}
