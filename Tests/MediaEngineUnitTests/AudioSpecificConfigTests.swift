@testable import MediaEngine
import Testing

/// The AAC setup data reader the engine uses when no stream analysis ran.
@Suite("AudioSpecificConfig")
struct AudioSpecificConfigTests {
    @Test func plainLayoutGivesTheObjectTypeAndTheFrameLength() throws {
        // AAC LC (2), 44.1 kHz (index 4), stereo: 0x12 0x10; the same with the frame length flag: 0x12 0x14.
        let lc = try #require(AudioSpecificConfig([0x12, 0x10]))
        #expect(lc.objectType == 2 && !lc.hasShortFrames)
        #expect(AACProfile(objectType: lc.objectType) == .lowComplexity)
        #expect(AudioSpecificConfig([0x12, 0x14])?.hasShortFrames == true)
    }

    @Test func extensionLayoutsNeverReadTheFlag() throws {
        // HE-AAC (5): the bit that would be the flag belongs to the extension sampling index there.
        let he = try #require(AudioSpecificConfig([0x2B, 0x94]))
        #expect(he.objectType == 5 && !he.hasShortFrames)
        #expect(AACProfile(objectType: 5) == .highEfficiency)
        // An explicit sampling frequency (index 15) moves every later field.
        #expect(AudioSpecificConfig([0x17, 0x84])?.hasShortFrames == false)
        // Escaped object type 31: 32 plus the next six bits.
        #expect(AudioSpecificConfig([0xF8, 0x20])?.objectType == 33)
        #expect(AudioSpecificConfig([0xF8]) == nil, "an escaped type needs a second byte")
        #expect(AudioSpecificConfig([]) == nil)
    }
}
