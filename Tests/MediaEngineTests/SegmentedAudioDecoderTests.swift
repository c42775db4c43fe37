@testable import MediaEngine
import FixtureSupport
import Foundation
import Testing

/// One stream decoded in segments on several threads (`SegmentedAudioDecoder`, what `AVAudioFile`
/// reads MP3 and Opus through) gives the very samples one decoder gives: bit for bit, at every seam,
/// and also where a seam's check fails and one decoder takes over.
// One test at a time: each decodes its files twice, on the engine's threads.
@Suite("Segmented audio decoder", .serialized)
struct SegmentedAudioDecoderTests {
    /// The samples of `name`'s first audio stream at its own rate and channels (the first `seconds`, or
    /// all), decoded as `decoding` says, with the reader that decoded them.
    static func decode(_ name: String, _ decoding: AudioDecoding, rate: Int32, channels: Int32, seconds: Int? = nil,
                       _ token: CancellationToken) throws -> (samples: [Float], reader: AudioSampleReader) {
        let reader = try AudioSampleReader(source: FileByteSource(path: Fixtures.audioPath(name)), options: DemuxerOptions(), streamIndex: 0,
                                           outputRate: rate, channels: channels, cancellation: token, decoding: decoding)
        try reader.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, rate)), speed: 1, fillsGap: false, token)
        var all: [Float] = []
        let limit = seconds.map { $0 * Int(rate) * Int(channels) } ?? Int.max
        while all.count < limit {
            let block = try reader.read(3_000, token)
            if block.isEmpty { break }
            all += block
        }
        return (Array(all.prefix(limit)), reader)
    }

    static func seams(_ reader: AudioSampleReader) -> (checked: Int, failed: Int)? {
        (reader.decoder as? SegmentedAudioDecoder).map { ($0.seamsChecked, $0.seamsFailed) }
    }

    /// Samples that differ, as a count and the first index (for the failure's message).
    static func differences(_ a: [Float], _ b: [Float]) -> (count: Int, first: Int?) {
        let pairs = zip(a, b).enumerated().filter { $0.element.0.bitPattern != $0.element.1.bitPattern }
        return (pairs.count + abs(a.count - b.count), pairs.first?.offset)
    }

    // Six of the twelve seconds: the suite runs beside timing tests, and a debug build's reads cost.
    @Test("one-second segments give one decoder's samples bit for bit, every seam agreeing",
          arguments: [("speech-vbr.mp3", Int32(44_100)), ("speech-10ms.opus", Int32(48_000))])
    func segmentsAgreeWithOneDecoder(name: String, rate: Int32) async throws {
        let (one, segmented, seams) = try await IOExecutor.shared.run { token in
            let one = try Self.decode(name, .oneDecoder, rate: rate, channels: 2, seconds: 6, token).samples
            let (samples, reader) = try Self.decode(name, .segmented(seconds: 1), rate: rate, channels: 2, seconds: 6, token)
            return (one, samples, Self.seams(reader))
        }
        #expect(one.count == 2 * 6 * Int(rate))
        let diff = Self.differences(one, segmented)
        #expect(diff.count == 0, "\(diff.count) samples differ, the first at \(diff.first ?? -1) of \(one.count)")
        // A segmented decoder, five seams checked, none failed.
        #expect(seams?.checked ?? 0 >= 5)
        #expect(seams?.failed == 0)
    }

    @Test("MP3 without a pre-roll fails seams' checks; the earlier decoder decodes each such segment again: still the same samples")
    func aFailedSeamFallsBackToOneDecoder() async throws {
        let (one, segmented, seams) = try await IOExecutor.shared.run { token in
            let one = try Self.decode("speech-vbr.mp3", .oneDecoder, rate: 44_100, channels: 2, seconds: 6, token).samples
            let (samples, reader) = try Self.decode("speech-vbr.mp3", .segmented(seconds: 1, prerollSeconds: 0), rate: 44_100, channels: 2,
                                                    seconds: 6, token)
            return (one, samples, Self.seams(reader))
        }
        let diff = Self.differences(one, segmented)
        #expect(diff.count == 0, "\(diff.count) samples differ, the first at \(diff.first ?? -1) of \(one.count)")
        // Five seams at least, each checked; at least one failed, and some were repaired segments' seams.
        #expect(seams?.checked ?? 0 >= 5)
        #expect(seams?.failed ?? 0 >= 1, "\(String(describing: seams))")
    }

    @Test("short, damaged and other streams: the same samples; codecs other than MP3 and Opus decode on one decoder",
          arguments: ["sine.mp3", "sine.opus", "sine-truncated.mp3", "sine.m4a", "sine.flac"])
    func otherStreamsAsOneDecoder(name: String) async throws {
        let rate: Int32 = name.hasSuffix(".opus") ? 48_000 : 44_100
        let (one, segmented, isSegmented) = try await IOExecutor.shared.run { token in
            let one = try Self.decode(name, .oneDecoder, rate: rate, channels: 2, token).samples
            let (samples, reader) = try Self.decode(name, .segmented(seconds: 0.25), rate: rate, channels: 2, token)
            return (one, samples, reader.decoder is SegmentedAudioDecoder)
        }
        #expect(!one.isEmpty)
        #expect(Self.differences(one, segmented).count == 0)
        #expect(isSegmented == (name.hasSuffix(".mp3") || name.hasSuffix(".opus")))
    }

    @Test("starting again mid-stream (a seek) drops the segments in flight and reads on exactly")
    func startingAgainReadsOnExactly() async throws {
        let (one, later) = try await IOExecutor.shared.run { token in
            let one = try Self.decode("speech-10ms.opus", .oneDecoder, rate: 48_000, channels: 2, token).samples
            let reader = try AudioSampleReader(source: FileByteSource(path: Fixtures.audioPath("speech-10ms.opus")), options: DemuxerOptions(),
                                               streamIndex: 0, outputRate: 48_000, channels: 2, cancellation: token,
                                               decoding: .segmented(seconds: 1))
            try reader.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, 48_000)), speed: 1, fillsGap: false, token)
            _ = try reader.read(2 * 48_000, token)
            // Back to 5 s, then everything from there.
            try reader.start(at: MediaTimestamp(value: 5 * 48_000, timeBase: Rational(1, 48_000)), speed: 1, fillsGap: false, token)
            var later: [Float] = []
            while true {
                let block = try reader.read(4_096, token)
                if block.isEmpty { break }
                later += block
            }
            return (one, later)
        }
        // From 5 s on (the stream's first sound is at 0), as one decoder of the whole stream gave it.
        let tail = Array(one.dropFirst(5 * 48_000 * 2))
        #expect(later.count == tail.count)
        // A seek starts a decoder 80 ms early, which Opus does not always settle in: the samples after
        // the first second match exactly, the first second closely.
        let settled = 48_000 * 2
        #expect(Self.differences(Array(later.dropFirst(settled)), Array(tail.dropFirst(settled))).count == 0)
        let error = zip(later.prefix(settled), tail.prefix(settled)).map { abs($0 - $1) }.max() ?? 0
        #expect(error < 1e-3)
    }

    @Test("a cancelled read ends with a cancellation, with segments in flight")
    func cancellingEndsTheRead() async throws {
        let outcome = try await IOExecutor.shared.run { _ in
            let token = CancellationToken()
            let reader = try AudioSampleReader(source: FileByteSource(path: Fixtures.audioPath("speech-vbr.mp3")), options: DemuxerOptions(),
                                               streamIndex: 0, outputRate: 44_100, channels: 2, cancellation: token,
                                               decoding: .segmented(seconds: 1))
            try reader.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, 44_100)), speed: 1, fillsGap: false, token)
            _ = try reader.read(44_100, token)
            token.cancel()
            return Result { try reader.read(10 * 44_100, token) }
        }
        guard case .failure(let error) = outcome else { Issue.record("read on after a cancel"); return }
        #expect((error as? MediaEngineError)?.code == .cancelled)
    }
}
