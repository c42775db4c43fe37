import FixtureSupport
import Foundation
import Testing

/// `avtool audio`, run as a user would: 16 kHz mono floats of the right count, frequency and level from
/// compressed files, 16-bit samples, a WAV file, the JSON summary, and one-line errors.
@Suite("avtool audio", .serialized)
struct AudioCommandTests {
    /// The amplitude of `frequency` in `samples` at `rate` (Goertzel over the whole run).
    static func amplitude(of frequency: Double, in samples: [Float], rate: Double) -> Double {
        var re = 0.0, im = 0.0
        for (n, x) in samples.enumerated() {
            re += Double(x) * cos(2 * Double.pi * frequency * Double(n) / rate)
            im -= Double(x) * sin(2 * Double.pi * frequency * Double(n) / rate)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(max(1, samples.count))
    }

    @Test(arguments: ["sine-mono.wav", "sine.mp3", "sine.m4a", "sine.opus"])
    func speechFormatFromAnyFile(_ name: String) async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("a.f32").path
        let result = try await AVToolProcess.run(["audio", Fixtures.audioPath(name), "--rate", "16000", "--channels", "1", "--json", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["framesOut"] as? Int == 16_000 && summary["rate"] as? Double == 16_000 && summary["channels"] as? Int == 1)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.count == 16_000 * 4)
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let body = Array(samples[2000..<14_000])
        if name == "sine-mono.wav" {
            #expect(abs(Self.amplitude(of: 1000, in: body, rate: 16_000) - 0.5) < 0.01)
        } else {
            // Stereo 440 Hz left and 880 Hz right, mixed to mono as `ffmpeg -ac 1` mixes (the converter's
            // downmix): each channel at -3 dB, 0.5 × 0.707.
            #expect(abs(Self.amplitude(of: 440, in: body, rate: 16_000) - 0.3536) < 0.02, "\(name)")
            #expect(abs(Self.amplitude(of: 880, in: body, rate: 16_000) - 0.3536) < 0.02, "\(name)")
        }
    }

    /// An output that is not a regular file (a FIFO here; `/dev/null` in use) is written into, not
    /// replaced by a new file renamed over it.
    @Test func anOutputPipeStaysAPipe() async throws {
        let fifo = try Fixtures.temporaryDirectory().appendingPathComponent("out.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading first (without waiting for a writer), so avtool's open does not block;
        // its 64,000 bytes fit in the pipe's buffer.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let result = try await AVToolProcess.run(["audio", Fixtures.audioPath("sine-mono.wav"), "--rate", "16000", "--channels", "1", "-o", fifo])
        #expect(result.status == 0, "\(result.stderr)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the pipe is still a pipe")
        var buffer = [UInt8](repeating: 0, count: 70_000)
        let count = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
        #expect(count == 16_000 * 4, "the samples went through the pipe")
    }

    @Test func sixteenBitSamples() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("a.s16").path
        let result = try await AVToolProcess.run(["audio", Fixtures.audioPath("sine-s16.wav"), "--format", "s16", "-o", out])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        // The file's own rate and channels: 44100 frames of two 16-bit samples, the same as the file's.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(bytes.count == 44_100 * 4)
        let wav = try Data(contentsOf: URL(fileURLWithPath: Fixtures.audioPath("sine-s16.wav")))
        // A plain 44-byte RIFF header precedes the WAV's samples.
        #expect(bytes.prefix(4000) == wav.dropFirst(wav.count - 44_100 * 4).prefix(4000))
    }

    @Test func wavFile() async throws {
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("a.wav").path
        let result = try await AVToolProcess.run(["audio", Fixtures.audioPath("sine.flac"), "--rate", "22050", "--format", "wav", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(out): 22050 frames at 22050 Hz, 2 channels\n")
        let header = try Data(contentsOf: URL(fileURLWithPath: out)).prefix(12)
        #expect(header.prefix(4) == Data("RIFF".utf8) && header.suffix(4) == Data("WAVE".utf8))
    }

    @Test func badArgumentsAndFilesGiveOneLine() async throws {
        let cases: [([String], String)] = [
            (["audio", Fixtures.audioPath("sine.mp3"), "--format", "ogg"], "--format must be f32, s16 or wav"),
            (["audio", Fixtures.audioPath("sine.mp3"), "--rate", "10"], "--rate must be"),
            (["audio", Fixtures.audioPath("sine.mp3"), "--channels", "3"], "--channels must be 1 or 2"),
            (["audio", Fixtures.audioPath("sine.mp3"), "--format", "wav"], "needs -o FILE"),
            (["audio", Fixtures.audioPath("not-audio.wav"), "-o", "/dev/null"], "not a media file"),
            (["audio", "/nonexistent/x.wav", "-o", "/dev/null"], "x.wav"),
        ]
        for (arguments, message) in cases {
            let result = try await AVToolProcess.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count <= 3, "one line (and usage) for \(arguments): \(result.stderr)")
        }
    }
}
