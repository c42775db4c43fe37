import Foundation
@testable import MediaEngine
import Testing

/// ALSA's software devices, which need no sound card: the file device keeps what is played.
@Suite("Audio device")
struct AudioDeviceTests {
    /// An ALSA configuration defining `avocet` as a device that writes raw samples to `path` (its
    /// slave, the null device, plays nothing).
    static func fileDevice(_ path: String) -> String {
        #"pcm.avocet { type file slave { pcm { type null } } file "\#(path)" format raw }"#
    }

    @Test func theFileDeviceKeepsTheSamplesPlayed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let device = try AudioDevice(name: "avocet", configuration: Self.fileDevice(path))
            let tone = (0..<4800).flatMap { i -> [Float] in let v = Float(sin(Double(i) * 0.1)) * 0.5; return [v, v] }
            try device.write(tone)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == 4800 * 2 * 4, "\(data.count) bytes")
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(abs(samples[20] - Float(sin(1.0)) * 0.5) < 0.001)
    }

    @Test func aDeviceThatDoesNotExistFailsClearly() {
        #expect(throws: MediaEngineError.self) { _ = try AudioDevice(name: "hw:77,0") }
    }
}
