@testable import MediaEngine
import FixtureSupport
import Foundation
import Testing

/// Every fixture's demuxed facts against what the fixture script put in (Fixtures/facts.json).
@Suite("Demuxer on the fixtures")
struct DemuxerFixtureTests {
    static let mediaNames = Fixtures.media.map(\.name)

    @Test(arguments: mediaNames)
    func demuxedFactsMatchTheScript(name: String) async throws {
        let fx = Fixtures.fixture(name)
        let info = try await Demuxer.open(path: fx.path).info
        let size = try FileManager.default.attributesOfItem(atPath: fx.path)[.size] as? Int
        #expect(info.byteSize == size.map(Int64.init))

        // Duration: encoders pad audio by up to a frame or two, so allow 50 ms. A header that only
        // estimates (VBR MP3 without Xing) is checked against a packet scan in its own test.
        #expect(info.durationIsEstimate == (fx.vbrWithoutXing == true))
        if fx.unknownDuration == true {
            #expect(info.durationSeconds == nil, "\(name): written to a pipe, its header gives no duration")
        } else {
            var duration = try #require(info.durationSeconds, "\(name) has a duration")
            if fx.vbrWithoutXing == true { duration = try #require(fx.duration) }
            #expect(abs(duration - (fx.duration ?? 0)) < 0.05, "\(name) lasts \(duration) s")
        }

        let media = info.streams.filter { !$0.disposition.contains(.attachedPicture) }
        let videos = media.filter { $0.kind == .video }
        let audios = media.filter { $0.kind == .audio }
        if let v = fx.video {
            let stream = try #require(videos.first)
            #expect(videos.count == 1)
            #expect(stream.codecName == v.codec)
            #expect(stream.width == v.width && stream.height == v.height)
            // r_frame_rate is exact for constant-rate video; FFmpeg's average is an estimate
            // (fragmented MP4 gives 24.7 for 25 fps; ffprobe shows the same).
            let real = try #require(stream.realFrameRate?.value, "\(name) has a base frame rate")
            #expect(abs(real - v.frameRate) < 0.001, "\(name): \(real) fps")
            let average = try #require(stream.averageFrameRate?.value)
            #expect(abs(average - v.frameRate) < 1, "\(name) averages \(average) fps")
            #expect(stream.rotation == (fx.rotation ?? 0))
        } else {
            #expect(videos.isEmpty)
        }
        let expectedAudio = fx.audio ?? []
        #expect(audios.count == expectedAudio.count)
        for (stream, a) in zip(audios, expectedAudio) {
            #expect(stream.codecName == a.codec)
            #expect(stream.sampleRate == a.sampleRate)
            #expect(stream.channels == a.channels)
            #expect(stream.channelLayout == (a.channels == 1 ? "mono" : "stereo"))
            #expect(stream.language == a.language)
            if let title = a.title { #expect(stream.metadata.value(for: "title") == title) }
            if fx.vbrWithoutXing != true, let seconds = stream.durationSeconds ?? info.durationSeconds, let expected = fx.duration {
                #expect(abs(seconds - expected) < 0.05, "\(name): audio lasts \(seconds) s")
            }
        }
        if let s = fx.subtitle {
            let stream = try #require(media.first { $0.kind == .subtitle })
            #expect(stream.codecName == s.codec && stream.language == s.language)
        }

        // Tags sit on the container, or on the stream for Ogg's Vorbis comments.
        let allTags = info.metadata + info.streams.flatMap(\.metadata)
        for (key, value) in fx.tags ?? [:] {
            #expect(allTags.value(for: key) == value, "\(name) tag \(key)")
        }

        let chapters = fx.chapters ?? []
        #expect(info.chapters.count == chapters.count)
        for (chapter, expected) in zip(info.chapters, chapters) {
            #expect(chapter.title == expected.title)
            #expect(abs(chapter.start.seconds - expected.start) < 0.001)
            #expect(abs(chapter.end.seconds - expected.end) < 0.001)
        }

        let pictures = info.streams.filter { $0.disposition.contains(.attachedPicture) }
        if fx.coverArt == true {
            let picture = try #require(pictures.first?.attachedPicture)
            #expect(picture.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
            #expect(pictures.first?.width == Fixtures.facts.cover.width)
            #expect(pictures.first?.height == Fixtures.facts.cover.height)
        } else {
            #expect(pictures.isEmpty)
        }
    }

    @Test func containerFormats() async throws {
        let expected = [
            "av.mp4": "mov,mp4,m4a,3gp,3g2,mj2", "tagged.mp3": "mp3", "tone.wav": "wav", "tagged.flac": "flac",
            "voice.opus": "ogg", "vp9.webm": "matroska,webm", "multi.mkv": "matroska,webm",
        ]
        for (name, format) in expected {
            #expect(try await Demuxer.open(path: Fixtures.path(name)).info.formatName == format, "\(name)")
        }
    }

    @Test func rotationComesFromTheDisplayMatrix() async throws {
        let stream = try await Demuxer.open(path: Fixtures.path("rotated.mov")).info.streams[0]
        let matrix = try #require(stream.displayMatrix)
        #expect(Array(matrix[0..<5]) == [0, 65536, 0, -65536, 0], "a=0 b=1 c=-1 d=0: 90 degrees clockwise")
        #expect(stream.rotation == 90)
        let upright = try await Demuxer.open(path: Fixtures.path("av.mp4")).info.streams[0]
        #expect(upright.rotation == 0)
        if let identity = upright.displayMatrix {
            #expect(Array(identity[0..<5]) == [65536, 0, 0, 0, 65536], "an upright movie's matrix is the identity")
        }
    }

    @Test func mp4IndexGivesExactSampleTotals() async throws {
        let info = try await Demuxer.open(path: Fixtures.path("av.mp4")).info
        let video = info.streams[0]
        #expect(video.frameCount == 50, "2 s at 25 fps")
        let total = try #require(video.totalSampleBytes)
        #expect(total > 1000 && total < info.byteSize!)
        #expect(video.codecTag == 0x3163_7661, "avc1, little-endian as FFmpeg stores tags")
        #expect(video.profile != nil)
        #expect(info.streams[1].extradata?.count ?? 0 >= 2, "AAC AudioSpecificConfig")
    }

    @Test func packetScanGivesExactTotalsAndDurations() async throws {
        let demuxer = try await Demuxer.open(path: Fixtures.path("av.mp4"))
        let stats = try await demuxer.scanPackets()
        #expect(stats[0].packetCount == 50)
        #expect(stats[0].totalBytes == demuxer.info.streams[0].totalSampleBytes)
        #expect(stats[0].keyframes == 2, "a keyframe every 25 frames")
        #expect(stats[1].totalBytes == demuxer.info.streams[1].totalSampleBytes)
        let again = try await demuxer.scanPackets()
        #expect(again == stats, "every pass counts from the start")
        #expect(stats[1].firstPresentationTime == -1024, "AAC priming packet included")
    }

    /// The header of a VBR MP3 without Xing estimates the duration from the first frames' bit rate;
    /// a packet scan gives the real one.
    @Test func packetScanCorrectsAnEstimatedDuration() async throws {
        let fx = Fixtures.fixture("vbr-no-xing.mp3")
        let demuxer = try await Demuxer.open(path: fx.path)
        #expect(demuxer.info.durationIsEstimate)
        #expect(abs(demuxer.info.durationSeconds! - fx.duration!) > 1, "the estimate is far off")
        let stats = try await demuxer.scanPackets()[0]
        let tb = demuxer.info.streams[0].timeBase.value!
        let scanned = Double(stats.endPresentationTime! - stats.firstPresentationTime!) * tb
        #expect(abs(scanned - fx.duration!) < 0.06, "scanned \(scanned) s")
    }

    @Test func mp4FragmentBoxes() async throws {
        let fragmented = try #require(try await Demuxer.open(path: Fixtures.path("fragmented.mp4")).info.mp4Boxes)
        #expect(fragmented.canContainFragments && fragmented.containsFragments)
        let plain = try #require(try await Demuxer.open(path: Fixtures.path("av.mp4")).info.mp4Boxes)
        #expect(!plain.canContainFragments && !plain.containsFragments)
        #expect(plain.trackSizes[1] == MP4Boxes.TrackSize(width: 320, height: 240), "the video track header's size")
        #expect(plain.trackSizes[2] == MP4Boxes.TrackSize(width: 0, height: 0), "audio tracks state no size")
        let matroska = try await Demuxer.open(path: Fixtures.path("multi.mkv")).info
        #expect(matroska.mp4Boxes == nil)
        #expect(matroska.streams.allSatisfy { $0.alternateGroup == nil }, "Matroska has no alternate groups")
    }

    /// The track headers' alternate groups, as FFmpeg's muxer writes them: one per media type (video 0,
    /// audio 1, subtitles 3), in version 0 headers.
    @Test func mp4AlternateGroups() async throws {
        let info = try await Demuxer.open(path: Fixtures.path("selection.mp4")).info
        #expect(info.mp4Boxes?.alternateGroups == [1: 0, 2: 1, 3: 1, 4: 3, 5: 3])
        #expect(info.streams.map(\.alternateGroup) == [0, 1, 1, 3, 3])
    }

    @Test func decodeDelayAndDecoders() async throws {
        let info = try await Demuxer.open(path: Fixtures.path("multi.mkv")).info
        #expect(info.streams.allSatisfy { $0.hasDecoder })
        #expect(!info.streams.contains { $0.isEncrypted })
    }

    @Test func fragmentedAndMoovAtEndOpen() async throws {
        let fragmented = try await Demuxer.open(path: Fixtures.path("fragmented.mp4")).info
        let video = try #require(fragmented.streams.first { $0.kind == .video })
        #expect(video.frameCount == nil, "an empty moov lists no samples; the fragments hold them")
        #expect(video.durationSeconds.map { abs($0 - 2) < 0.05 } == true, "the fragments give the duration")
        let moovAtEnd = try await Demuxer.open(path: Fixtures.path("moov-at-end.mp4")).info
        #expect(moovAtEnd.streams.count == 2)
    }
}
