import FixtureSupport
import Foundation
import MediaEngine
import Testing

/// A player item's one container: read ahead, with the packets of a stream kept for its decoder, so
/// the decoder reads what the read-ahead read (no second open, no seek inside what was read) and
/// decodes the same pictures as a reader with a container of its own.
@Suite("Item demuxer")
struct ItemDemuxerTests {
    static let path = Fixtures.path("av.mp4")
    /// av.mp4: stream 0 is its 2 s of video (keyframes at 0 and 1 s), stream 1 its sound.
    static let (video, audio) = (0, 1)

    static func demuxer(byteLimit: Int = 64 << 20) -> ItemDemuxer {
        ItemDemuxer(options: DemuxerOptions(), streamIndices: [video, audio], byteLimit: byteLimit) { _ in
            try FileByteSource(path: path)
        }
    }

    /// The presentation times of every picture from `time` on, decoded without conversion.
    static func times(_ reader: StreamReader, from time: Double, _ token: CancellationToken) throws -> [Int64] {
        try reader.start(at: MediaTimestamp(value: Int64((time * 1_000).rounded()), timeBase: Rational(1, 1_000)), token)
        var times: [Int64] = []
        while let timing = try reader.nextPicture(token, into: { _, _ in nil }) { times.append(timing.presentationTime) }
        return times
    }

    /// The same, from a reader with its own container.
    static func ownTimes(from time: Double, _ token: CancellationToken) throws -> [Int64] {
        let own = try StreamReader(source: FileByteSource(path: path), options: DemuxerOptions(), streamIndex: video, cancellation: token)
        return try times(own, from: time, token)
    }

    /// A video and a sound reader of one demuxer: ten pictures from the start, then `between`, then the
    /// sound starts at `soundTime` and takes a packet, then the rest of the pictures. Every picture's
    /// time, and the container's seeks.
    static func picturesAroundASoundStart(at soundTime: MediaTimestamp, _ token: CancellationToken,
                                          between: (ItemDemuxer) throws -> Void = { _ in }) throws -> (pictures: [Int64], seeks: Int) {
        let demuxer = Self.demuxer()
        let video = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
        let sound = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.audio, cancellation: token))
        try video.start(at: MediaTimestamp(value: 0, timeBase: Rational(1, 1)), token)
        var pictures: [Int64] = []
        for _ in 0..<10 { if let timing = try video.nextPicture(token, into: { _, _ in nil }) { pictures.append(timing.presentationTime) } }
        try between(demuxer)
        try sound.start(at: soundTime, token)
        let shelf = PacketShelf()
        try withExtendedLifetime(shelf) { try sound.nextPacket(token, lendingFrom: shelf)?.giveBack() }
        while let timing = try video.nextPicture(token, into: { _, _ in nil }) { pictures.append(timing.presentationTime) }
        return (pictures, demuxer.seeks)
    }

    @Test("decoders that come after the read-ahead began read what it kept from the start, without a seek; keep(from:) lets the past go")
    func keptFromTheStart() async throws {
        let demuxer = Self.demuxer()
        let (progress, shared, second, own, seeks, before, after) = try await IOExecutor.shared.run { token in
            let progress = try demuxer.readAhead(from: 0, through: 1.5, token)
            let reader = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
            let other = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
            let shared = try Self.times(reader, from: 0, token)
            let second = try Self.times(other, from: 0, token)
            let before = demuxer.keptByteCount
            demuxer.keep(from: 1.5)
            _ = try demuxer.readAhead(from: 2, through: 10, placing: false, token)
            return (progress, shared, second, try Self.ownTimes(from: 0, token), demuxer.seeks, before, demuxer.keptByteCount)
        }
        #expect(progress.reached.map { $0 >= 1.5 } == true && !progress.ended && !progress.full, "\(progress)")
        #expect(shared.count == 50 && shared == own, "\(shared.count) pictures: \(shared.prefix(4))… vs \(own.prefix(4))…")
        #expect(second == own, "a second reader of the stream reads the same packets")
        #expect(seeks == 0)
        // av.mp4 is 120 KB; from 1.5 s on, what is kept starts at the keyframe at 1 s.
        #expect(before > 100_000 && after < before * 2 / 3, "kept \(before) bytes, then \(after)")
    }

    @Test("a decoder whose place a seek for another took goes on from its last packet")
    func aDisplacedDecoderGoesOn() async throws {
        let (pictures, own, seeks) = try await IOExecutor.shared.run { token in
            // The sound starts past what reading on reaches: the container seeks there, and the
            // pictures go on from the tenth (a seek back for them).
            let (pictures, seeks) = try Self.picturesAroundASoundStart(at: MediaTimestamp(value: 19, timeBase: Rational(1, 10)), token)
            return (pictures, try Self.ownTimes(from: 0, token), seeks)
        }
        #expect(pictures == own, "\(pictures.count) pictures vs \(own.count)")
        #expect(seeks == 2, "one for the sound, one back for the pictures: \(seeks)")
    }

    @Test("a start inside what was read costs no seek and gives the pictures from its keyframe on; one beyond seeks")
    func startsInsideWhatWasRead() async throws {
        let (inside, ownInside, seeksInside) = try await IOExecutor.shared.run { token in
            let demuxer = Self.demuxer()
            let reader = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
            _ = try demuxer.readAhead(from: 0, through: 2, token)
            return (try Self.times(reader, from: 1.5, token), try Self.ownTimes(from: 1.5, token), demuxer.seeks)
        }
        #expect(!inside.isEmpty && inside == ownInside, "\(inside) vs \(ownInside)")
        #expect(seeksInside == 0)
        // Read to 0.3 s: 1.2 s is reached by reading on, 1.9 s is not.
        let (near, ownNear, seeksNear, beyond, ownBeyond, seeksBeyond) = try await IOExecutor.shared.run { token in
            let demuxer = Self.demuxer()
            let reader = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
            _ = try demuxer.readAhead(from: 0, through: 0.3, token)
            let near = try Self.times(reader, from: 1.2, token)
            let seeksNear = demuxer.seeks
            let other = Self.demuxer()
            let far = try #require(try StreamReader(demuxer: other, streamIndex: Self.video, cancellation: token))
            _ = try other.readAhead(from: 0, through: 0.3, token)
            let beyond = try Self.times(far, from: 1.9, token)
            return (near, try Self.ownTimes(from: 1.2, token), seeksNear, beyond, try Self.ownTimes(from: 1.9, token), other.seeks)
        }
        #expect(!near.isEmpty && near == ownNear, "\(near) vs \(ownNear)")
        #expect(seeksNear == 0)
        #expect(!beyond.isEmpty && beyond == ownBeyond, "\(beyond) vs \(ownBeyond)")
        #expect(seeksBeyond == 1)
    }

    @Test("a decoder whose place a seek back for another took gets no packet twice")
    func aSeekBackForAnotherRepeatsNothing() async throws {
        let (pictures, own, seeks) = try await IOExecutor.shared.run { token in
            // The sound before 0.35 s is let go; the sound then starts at 0.1 s: the container seeks back
            // to the keyframe at 0, and the pictures go on after the tenth, not from the keyframe again.
            let (pictures, seeks) = try Self.picturesAroundASoundStart(at: MediaTimestamp(value: 1, timeBase: Rational(1, 10)), token) { demuxer in
                demuxer.keep(from: 0.35)
                _ = try demuxer.readAhead(from: 0, through: 0.6, placing: false, token)
            }
            return (pictures, try Self.ownTimes(from: 0, token), seeks)
        }
        #expect(pictures == own, "\(pictures.count) pictures vs \(own.count): \(pictures.prefix(14))")
        #expect(seeks == 1, "one, back for the sound: \(seeks)")
    }

    @Test("the read-ahead pauses when the queues are full; the decoder reads on past the limit")
    func fullQueuesPauseTheReadAhead() async throws {
        let demuxer = Self.demuxer(byteLimit: 20_000)
        let (first, times, own, after) = try await IOExecutor.shared.run { token in
            let reader = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
            let first = try demuxer.readAhead(from: 0, through: 10, token)
            let times = try Self.times(reader, from: 0, token)
            return (first, times, try Self.ownTimes(from: 0, token), try demuxer.readAhead(from: 2, through: 10, placing: false, token))
        }
        #expect(first.full && !first.ended, "\(first)")
        #expect(first.reached.map { $0 < 2 } == true, "stopped short of the end: \(first)")
        #expect(times == own, "\(times.count) pictures vs \(own.count)")
        #expect(after.ended && !after.full, "\(after)")
    }

    @Test("closed: the decoder's reads fail as cancelled")
    func closedFailsAsCancelled() async throws {
        let demuxer = Self.demuxer()
        let outcome = try await IOExecutor.shared.run { token -> Result<[Int64], MediaEngineError> in
            let reader = try #require(try StreamReader(demuxer: demuxer, streamIndex: Self.video, cancellation: token))
            demuxer.close()
            return Result { try Self.times(reader, from: 0, token) }.mapError { $0 as? MediaEngineError ?? MediaEngineError(.failed, source: "", operation: "", reason: "\($0)") }
        }
        guard case .failure(let error) = outcome else { Issue.record("read after close: \(outcome)"); return }
        #expect(error.code == .cancelled, "\(error)")
    }

    @Test("a tolerant seek's keyframe from the container's index: busy before it opens unless waiting, never blocking")
    func keyframesFromTheIndex() async throws {
        let demuxer = Self.demuxer()
        @Sendable func ms(_ value: Int64) -> MediaTimestamp { MediaTimestamp(value: value, timeBase: Rational(1, 1_000)) }
        let wide = PictureRequest(time: ms(1_200), earliest: nil, latest: nil)
        let narrow = PictureRequest(time: ms(1_200), earliest: ms(1_150), latest: ms(1_250))
        let (closed, found, none, later) = try await IOExecutor.shared.run { token in
            let closed = try demuxer.keyframeTime(streamIndex: Self.video, for: wide, waiting: false, token)
            let found = try demuxer.keyframeTime(streamIndex: Self.video, for: wide, waiting: true, token)
            let none = try demuxer.keyframeTime(streamIndex: Self.video, for: narrow, waiting: false, token)
            let later = try demuxer.keyframeTime(streamIndex: Self.video, for: PictureRequest(time: ms(1_800), earliest: nil, latest: nil),
                                                 waiting: false, token)
            return (closed, found, none, later)
        }
        #expect(closed == .busy, "not open yet: \(closed)")
        guard case .keyframe(let key) = found, case .keyframe(let last) = later else {
            Issue.record("no keyframe: \(found), \(later)")
            return
        }
        #expect(key.seconds == 1, "the keyframe at 1 s: \(key.seconds)")
        #expect(last.seconds == 1 || last.seconds == 2, "the nearest of 1 s and the end: \(last.seconds)")
        #expect(none == .unknown, "no keyframe within 50 ms: \(none)")
        #expect(demuxer.seeks == 0)
    }
}
