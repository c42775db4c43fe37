@testable import MediaEngine
import FixtureSupport
import Foundation
import Synchronization
import Testing

/// A container opened once for its description and the reading of one stream (`AVAudioFile`'s open):
/// the reader hands out the packets a reader of its own would, from the first, and the header is read
/// once where the description leaves the container at its start.
@Suite("Described reader")
struct DescribedReaderTests {
    /// A file read through positional reads, counting the bytes read.
    final class CountingSource: ByteSource {
        let file: FileByteSource
        let bytes = Atomic<Int>(0)
        init(_ path: String) throws { file = try FileByteSource(path: path) }
        var name: String { file.name }
        func size(cancellation: CancellationToken) throws -> Int64? { try file.size(cancellation: cancellation) }
        func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, cancellation: CancellationToken) throws -> Int {
            let n = try file.read(at: offset, into: buffer, cancellation: cancellation)
            bytes.add(max(0, n), ordering: .relaxed)
            return n
        }
    }

    /// Every sample the reader decodes from its stream's first packet.
    static func samples(_ reader: AudioSampleReader, rate: Int32, _ token: CancellationToken) throws -> [Float] {
        try reader.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, rate)), speed: 1, fillsGap: false, token)
        var all: [Float] = []
        while true {
            let block = try reader.read(4_096, token)
            if block.isEmpty { return all }
            all += block
        }
    }

    // Containers whose header suffices and containers analysed first (avformat_find_stream_info, whose
    // packets are handed out again), and Matroska, whose description reads its first packets: then
    // the reader opens the container again.
    @Test(arguments: [("sine.m4a", false), ("sine-alac.m4a", false), ("sine.mp3", false), ("sine.opus", false), ("sine.ogg", false),
                      ("sine.flac", false), ("sine.mka", true), ("sine-movie.mp4", false),
                      ("fragmented.mp4", false), ("multi.mkv", true)])
    func theSharedReaderReadsAsItsOwnWould(name: String, reopens: Bool) async throws {
        // The audio fixtures, and movies among the media fixtures (a fragmented MP4: its fragments are
        // found while reading, from the first).
        let path = FileManager.default.fileExists(atPath: Fixtures.audioPath(name)) ? Fixtures.audioPath(name) : Fixtures.path(name)
        let token = CancellationToken()
        let shared = try CountingSource(path)
        let (info, reader, choice) = try AudioSampleReader.opening(source: shared, options: DemuxerOptions(), cancellation: token) { info in
            let stream = try #require(info.streams.first { $0.kind == .audio })
            return (stream.index, Int32(48_000), Int32(2), (streamIndex: stream.index, outputRate: Int32(48_000), channels: Int32(2)))
        }
        let opening = shared.bytes.load(ordering: .relaxed)
        let alone = try CountingSource(path)
        let described = try Demuxer(source: alone, options: DemuxerOptions(), cancellation: token).info
        let describing = alone.bytes.load(ordering: .relaxed)
        #expect(info.streams.map(\.index) == described.streams.map(\.index) && info.duration == described.duration)
        // The shared open reads the header once; Matroska's reader opens the container again.
        if reopens {
            #expect(opening > describing, "\(opening) bytes read for \(describing) describing")
        } else {
            #expect(opening == describing, "\(opening) bytes read for \(describing) describing")
        }
        let own = try AudioSampleReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: choice.streamIndex,
                                        outputRate: choice.outputRate, channels: choice.channels, cancellation: token)
        let expected = try Self.samples(own, rate: choice.outputRate, token)
        let got = try Self.samples(reader, rate: choice.outputRate, token)
        #expect(expected.count > 48_000, "a second of stereo at least: \(expected.count)")
        #expect(got == expected, "\(got.count) samples for \(expected.count); first differs at \(zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
    }
}
