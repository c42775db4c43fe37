import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// AVAssetExportSession: stream copy and encoding of files and compositions, read back with Avocet and
/// ffprobe (durations, tracks, sizes, frames), and every failure as a clear AVError with no file left.
@Suite("Export", .serialized)
struct ExportTests {
    static func url(_ name: String) -> URL { URL(fileURLWithPath: Fixtures.path(name)) }
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func r(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }

    /// Exports `asset` with `preset` to a fresh file; returns the file and the finished session.
    static func export(_ asset: AVAsset, preset: String, as fileType: AVFileType = .mp4, name: String = "out.mp4",
                       configure: (AVAssetExportSession) -> Void = { _ in }) async throws -> (URL, AVAssetExportSession) {
        let directory = try Fixtures.temporaryDirectory()
        let output = directory.appendingPathComponent(name)
        let session = try #require(AVAssetExportSession(asset: asset, presetName: preset))
        configure(session)
        try await session.export(to: output, as: fileType)
        return (output, session)
    }

    static func frameNumber(_ url: URL, at seconds: Double) async throws -> Int? {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        return ImageGeneratorTests.reading(try await generator.image(at: t(seconds)).image).frameNumber
    }

    @Test("passthrough copies a file's tracks and tags")
    func passthroughFile() async throws {
        let (output, session) = try await Self.export(AVURLAsset(url: Self.url("av.mp4")), preset: AVAssetExportPresetPassthrough)
        #expect(session.progress == 1)
        let copy = AVURLAsset(url: output)
        let (duration, tracks, metadata) = try await copy.load(.duration, .tracks, .commonMetadata)
        #expect(abs(duration.seconds - 2) < 0.05 && tracks.map(\.mediaType) == [.video, .audio])
        let source = try await AVURLAsset(url: Self.url("av.mp4")).load(.commonMetadata)
        let copiedTitle = try await metadata.first { $0.commonKey == .commonKeyTitle }?.load(.stringValue)
        let sourceTitle = try await source.first { $0.commonKey == .commonKeyTitle }?.load(.stringValue)
        #expect(copiedTitle != nil && copiedTitle == sourceTitle)
        let formats = try await tracks[0].load(.formatDescriptions)
        #expect(formats.first?.mediaSubType == .h264)
    }

    /// VP9 from WebM (whose header states no pixel format) into MP4: the copy states its profile, bit
    /// depth and subsampling ('vpcC'), and the file opens, in Avocet and in ffprobe. Without them the
    /// muxer wrote an empty box, and the export "completed" with a file nothing could open (the export
    /// fuzz target's first find). QuickTime cannot hold VP9 (FFmpeg's muxer refuses it): that export
    /// fails with the reason and leaves no file.
    @Test("passthrough copies VP9 from WebM into MP4")
    func passthroughVP9() async throws {
        let source = AVURLAsset(url: Self.url("frames-vp9-10bit.webm"))
        let (output, _) = try await Self.export(source, preset: AVAssetExportPresetPassthrough, name: "vp9.mp4")
        let tracks = try await AVURLAsset(url: output).load(.tracks)
        let video = try #require(tracks.first { $0.mediaType == .video })
        let formats = try await video.load(.formatDescriptions)
        #expect(formats.first?.mediaSubType == .init(rawValue: 0x7670_3039))  // 'vp09'
        let report = try await Self.probe(output)
        let stream = try #require(report.streams.first { $0.codecType == "video" })
        #expect(stream.codecName == "vp9" && stream.pixFmt == "yuv420p10le" && stream.profile == "Profile 2")
        #expect(try await Self.frameNumber(output, at: 1.5) == 37)

        let movie = output.deletingLastPathComponent().appendingPathComponent("vp9.mov")
        let session = try #require(AVAssetExportSession(asset: source, presetName: AVAssetExportPresetPassthrough))
        #expect(await session.compatibleFileTypes == [.mp4, .m4v, .mkv, .webm], "QuickTime is not offered for VP9")
        await #expect(throws: AVError.self) { try await session.export(to: movie, as: .mov) }
        #expect(session.currentStatus == .failed && !FileManager.default.fileExists(atPath: movie.path))
        #expect((session.currentError as? AVError)?.code == .operationNotSupportedForPreset)
    }

    /// The file types a stream copy offers are those that hold every track's codec (FFmpeg's muxers
    /// refuse the others: QuickTime takes no Opus or FLAC, WebM no H.264 or AAC, MP4 no PCM), and
    /// each one offered writes a file that opens. FLAC, whose header leaves its sample rate to
    /// STREAMINFO, is analysed before it is copied (every copy of it failed with "sample rate not set").
    @Test("passthrough offers only the file types that hold the asset's codecs, and each one works")
    func passthroughFileTypes() async throws {
        let cases: [(String, [AVFileType])] = [
            ("tagged.flac", [.mp4, .m4v, .mkv]),
            ("voice.opus", [.mp4, .m4v, .mkv, .webm]),
            ("av.mp4", [.mov, .mp4, .m4v, .mkv]),
            ("tone.wav", [.mov, .mkv]),
        ]
        for (name, expected) in cases {
            let asset = AVURLAsset(url: Self.url(name))
            let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
            #expect(await session.compatibleFileTypes == expected, "\(name)")
            for type in expected {
                let (output, _) = try await Self.export(asset, preset: AVAssetExportPresetPassthrough, as: type, name: "\(name).\(type.rawValue)")
                let duration = try await AVURLAsset(url: output).load(.duration).seconds
                #expect(duration > 0.5, "\(name) as \(type.rawValue): \(duration) s")
            }
        }
    }

    static func probe(_ url: URL) async throws -> FFprobeReport {
        try await onOwnThread { try FFprobeReport.probe(url) }
    }

    /// Two clips spliced by stream copy, cut on keyframes (every second in the frame movies): the
    /// frames after the cut are the second clip's, and ffprobe agrees on the length.
    @Test("passthrough splices a composition")
    func passthroughSplice() async throws {
        let composition = AVMutableComposition()
        let h264 = AVURLAsset(url: Self.url("frames-h264.mp4"))
        try await composition.insertTimeRange(Self.r(0, 2), of: h264, at: .zero)
        try await composition.insertTimeRange(Self.r(3, 4), of: h264, at: Self.t(2))
        let (output, _) = try await Self.export(composition, preset: AVAssetExportPresetPassthrough, as: .mov, name: "splice.mov")
        let report = try await Self.probe(output)
        #expect(abs((report.duration ?? 0) - 3) < 0.05, "\(report.duration ?? -1)")
        #expect(report.streams.map(\.codecName) == ["h264"])
        #expect(try await Self.frameNumber(output, at: 1.5) == 37)
        #expect(try await Self.frameNumber(output, at: 2.5) == 87, "the second clip starts at its own 3 s")
    }

    /// Cuts inside groups of pictures (on frame boundaries), joined by stream copy into a QuickTime movie:
    /// each piece is copied from its keyframe and an edit list of one entry per piece shows it from its
    /// cut, as Apple's exports do. Read back through FFmpeg, pictures are exact for video without
    /// B-frames; with B-frames FFmpeg places a later edit's pictures by decode order, within two frames.
    @Test("passthrough splices cut between keyframes use a multi-entry edit list")
    func passthroughExactCuts() async throws {
        // Frames last 0.04 s; the first piece starts at source frame 13, the second at frame 58. Video
        // without B-frames is checked at the cuts; H.264 with B-frames away from them.
        let checks: [(String, Bool, Int, [(Double, Int)])] = [
            ("frames-mpeg4.avi", false, 0, [(0.02, 13), (0.98, 37), (1.02, 58), (1.78, 77)]),
            ("frames-h264.mp4", true, 2, [(0.02, 13), (0.5, 25), (1.3, 65), (1.6, 73)]),
        ]
        for (source, fastStart, slack, frames) in checks {
            let composition = AVMutableComposition()
            let asset = AVURLAsset(url: Self.url(source))
            try await composition.insertTimeRange(Self.r(0.52, 1.52), of: asset, at: .zero)
            try await composition.insertTimeRange(Self.r(2.32, 3.12), of: asset, at: Self.t(1))
            let (output, _) = try await Self.export(composition, preset: AVAssetExportPresetPassthrough, as: .mov, name: "cuts.mov") {
                $0.shouldOptimizeForNetworkUse = fastStart
            }
            let report = try await Self.probe(output)
            #expect(abs((report.duration ?? 0) - 1.8) < 0.05, "\(source): \(report.duration ?? -1)")
            let duration = try await AVURLAsset(url: output).load(.duration)
            #expect(abs(duration.seconds - 1.8) < 0.05, "\(source): \(duration.seconds)")
            for (time, frame) in frames {
                let got = try await Self.frameNumber(output, at: time) ?? -100
                #expect(abs(got - frame) <= slack, "\(source) at \(time): frame \(got)")
            }
            let bytes = try Data(contentsOf: output)
            #expect((bytes.prefix(64).range(of: Data("moov".utf8)) != nil) == fastStart, "the header in front only when asked")
            let entries = Self.editList(bytes)
            #expect(entries.map(\.duration) == [1000, 800], "\(source): \(entries)")
            #expect(entries.count == 2 && entries[1].mediaTime > entries[0].mediaTime)
        }
    }

    /// The entries of the first `elst` box in an MP4/MOV file: duration (movie timescale) and media time.
    static func editList(_ bytes: Data) -> [(duration: Int, mediaTime: Int)] {
        guard let found = bytes.range(of: Data("elst".utf8)) else { return [] }
        let b = [UInt8](bytes[found.upperBound...].prefix(4096))
        func u32(_ i: Int) -> Int { i + 4 <= b.count ? Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) : 0 }
        guard b.first == 0 else { return [] }
        return (0..<min(u32(4), 100)).map { (u32(8 + 12 * $0), u32(12 + 12 * $0)) }
    }

    /// A cut inside a group of pictures at the start: the pictures before it are hidden by an edit
    /// list, so the file starts at the cut, as `ffmpeg -ss 0.5 -c copy` writes it.
    @Test("passthrough of a time range cut between keyframes uses an edit list")
    func passthroughCut() async throws {
        let (output, _) = try await Self.export(AVURLAsset(url: Self.url("frames-h264.mp4")), preset: AVAssetExportPresetPassthrough) {
            $0.timeRange = Self.r(0.5, 2)
        }
        let duration = try await AVURLAsset(url: output).load(.duration)
        #expect(abs(duration.seconds - 1.5) < 0.05, "\(duration.seconds)")
        let first = try await Self.frameNumber(output, at: 0)
        #expect(first == 12 || first == 13, "\(String(describing: first))")
    }

    /// An MPEG-TS movie's timeline starts at its first sample (ffmpeg's clock starts at 1.4 s): stream
    /// copy takes the same pictures the asset shows at each time, whole or cut.
    @Test("passthrough of an MPEG-TS movie copies the pictures at the asset's times")
    func passthroughTransportStream() async throws {
        let facts = Fixtures.frames("frames-long-gop.ts")
        let source = AVURLAsset(url: Self.url(facts.name))
        let (whole, _) = try await Self.export(source, preset: AVAssetExportPresetPassthrough, as: .mov, name: "whole.mov")
        let duration = try await AVURLAsset(url: whole).load(.duration).seconds
        #expect(abs(duration - facts.duration) < 0.1, "\(duration)")
        #expect(try await Self.frameNumber(whole, at: 0) == 0)
        #expect(try await Self.frameNumber(whole, at: facts.duration - 0.5) == Int((facts.duration - 0.5) * Double(facts.fps)))
        // The end of a range is the asset's time, not the container clock's (1.4 s later).
        let (cut, _) = try await Self.export(source, preset: AVAssetExportPresetPassthrough, as: .mov, name: "cut.mov") {
            $0.timeRange = Self.r(0, 2)
        }
        let cutDuration = try await AVURLAsset(url: cut).load(.duration).seconds
        #expect(abs(cutDuration - 2) < 0.1, "\(cutDuration)")
        #expect(try await Self.frameNumber(cut, at: 1.98) == 2 * facts.fps - 1, "the last picture before 2 s last")
        // A cut inside the one long group of pictures: copied from its keyframe, shown from the cut.
        let (inside, _) = try await Self.export(source, preset: AVAssetExportPresetPassthrough, as: .mov, name: "inside.mov") {
            $0.timeRange = Self.r(1, 2)
        }
        let insideDuration = try await AVURLAsset(url: inside).load(.duration).seconds
        #expect(abs(insideDuration - 1) < 0.1, "\(insideDuration)")
        #expect(try await Self.frameNumber(inside, at: 0) == facts.fps, "the picture at 1 s first")
    }

    @Test("re-encoding keeps the shape, the rate and the preferred transform, and never enlarges")
    func reencode() async throws {
        let (output, session) = try await Self.export(AVURLAsset(url: Self.url("frames-rotated.mov")), preset: AVAssetExportPreset1280x720,
                                                      as: .mov, name: "rotated.mov")
        #expect(session.progress == 1)
        let report = try await Self.probe(output)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        #expect(video.codecName == "h264" && video.width == 320 && video.height == 240)
        #expect(video.rotation == -90 || video.rotation == 270, "\(String(describing: video.rotation))")
        let track = try #require(try await AVURLAsset(url: output).loadTracks(withMediaType: .video).first)
        let (transform, rate) = try await track.load(.preferredTransform, .nominalFrameRate)
        #expect(transform == CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0) && abs(rate - 25) < 0.1)
        #expect(try await Self.frameNumber(output, at: 1.0) == 25)

        let (small, _) = try await Self.export(AVURLAsset(url: Self.url("av.mp4")), preset: AVAssetExportPresetLowQuality, name: "small.mp4")
        let smallReport = try await Self.probe(small)
        #expect(smallReport.streams.map(\.codecName) == ["h264", "aac"])
        let smallVideo = try #require(smallReport.streams.first { $0.codecType == "video" })
        #expect((smallVideo.width ?? 0) <= 224 && (smallVideo.height ?? 0) <= 168 && (smallVideo.width ?? 1) % 2 == 0)
        #expect(abs((smallReport.duration ?? 0) - 2) < 0.1)
    }

    /// A 17 KB movie whose movie and track headers claim 24 days (each duration field set to 2^31 - 1
    /// ms): the tracks keep the lengths of the samples the file holds, so the export writes 4 s in a
    /// moment. It encoded silence and a held picture towards the 24 days until cancelled.
    @Test("headers that claim weeks do not stretch the export")
    func lyingHeadersDoNotStretchTheExport() async throws {
        var bytes = try Data(contentsOf: Self.url("frames-short-sound.mp4"))
        var patched = 0
        // Version 0 boxes: the duration is 20 bytes after a track header's type, 16 after a movie header's.
        for (type, offset) in [("tkhd", 20), ("mvhd", 16)] {
            var from = bytes.startIndex
            while let found = bytes[from...].firstRange(of: Data(type.utf8)) {
                let field = found.lowerBound + 4 + offset
                if bytes[found.lowerBound + 4] == 0, field + 4 <= bytes.endIndex {
                    bytes.replaceSubrange(field..<field + 4, with: [0x7F, 0xFF, 0xFF, 0xFF])
                    patched += 1
                }
                from = found.upperBound
            }
        }
        #expect(patched == 3, "two track headers and the movie header")
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("lying.mp4")
        try bytes.write(to: file)
        let asset = AVURLAsset(url: file)
        #expect(try await asset.load(.duration).seconds > 2_000_000, "the movie header's claim is the asset's duration, as Apple reads it")
        let ranges = try await asset.load(.tracks).asyncMap { ($0.mediaType, try await $0.load(.timeRange)) }
        #expect(ranges.map(\.1.end.seconds).allSatisfy { $0 < 4.1 }, "\(ranges)")
        let (movie, session) = try await Self.export(asset, preset: AVAssetExportPresetLowQuality, name: "lying-out.mp4")
        #expect(session.progress == 1)
        let report = try await Self.probe(movie)
        #expect(abs((report.duration ?? 0) - 4) < 0.05, "\(String(describing: report.duration))")
    }

    /// A movie whose B-frames start its video 0.08 s after its sound, with no edit list to say so (a
    /// fragmented MP4 as FFmpeg writes one): the export's video starts there too, behind an empty edit,
    /// with the source's 25 pictures. It began with a black frame at zero, 26 frames in all. Read back,
    /// the track's range ends where its header says its presentation does (empty edit included), not
    /// that far after its start.
    @Test("a video track that starts late starts late in the export, not with a black frame")
    func lateVideoStartsLate() async throws {
        let (movie, _) = try await Self.export(AVURLAsset(url: Self.url("fragmented-bframes.mp4")), preset: AVAssetExportPresetLowQuality,
                                               name: "late-video.mp4")
        let report = try await Self.probe(movie)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        #expect(video.nbFrames == "25" && abs((Double(video.duration ?? "") ?? 0) - 1) < 0.01, "\(video)")
        let tracks = try await AVURLAsset(url: movie).load(.tracks)
        let ranges = try await tracks.asyncMap { ($0.mediaType, try await $0.load(.timeRange)) }
        let pictures = try #require(ranges.first { $0.0 == .video }?.1)
        let sound = try #require(ranges.first { $0.0 == .audio }?.1)
        #expect(abs(pictures.start.seconds - 0.08) < 0.001 && abs(pictures.end.seconds - 1.08) < 0.001, "\(pictures.start.seconds) to \(pictures.end.seconds)")
        #expect(abs(sound.start.seconds) < 0.001 && abs(sound.end.seconds - 1.08) < 0.03, "\(sound.start.seconds) to \(sound.end.seconds)")
    }

    /// An AVI whose header states no durations and whose packets carry no presentation times (FFmpeg
    /// times its B-frames only once decoded): the scan places them by their decode times, so the video
    /// keeps its own 25 pictures. It took the asset's length from the longer sound and held the last
    /// picture for one frame more.
    @Test("an AVI without times exports its own pictures")
    func aviWithoutTimesKeepsItsPictures() async throws {
        let (movie, _) = try await Self.export(AVURLAsset(url: Self.url("no-duration.avi")), preset: AVAssetExportPresetLowQuality, name: "avi.mp4")
        let report = try await Self.probe(movie)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        #expect(video.nbFrames == "25", "\(video)")
    }

    /// Each encoded track keeps its own length, as on Apple's platforms: a movie with 1 s of video and
    /// 4 s of sound exports 1 s of pictures (not 3 s of a held or black frame), and a composition whose
    /// sound ends at 2 s of its 4 s exports 2 s of AAC (not 2 s of silence more). The export fuzz
    /// target found why it matters: a 28 KB movie whose video claimed four hours made an M4A of four
    /// hours of silence.
    @Test("each encoded track keeps its own length rather than the asset's")
    func tracksKeepTheirLengths() async throws {
        let (movie, session) = try await Self.export(AVURLAsset(url: Self.url("frames-short-video.mp4")), preset: AVAssetExportPresetLowQuality,
                                                     name: "short-video.mp4")
        #expect(session.progress == 1)
        let report = try await Self.probe(movie)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        let audio = try #require(report.streams.first { $0.codecType == "audio" })
        #expect(video.nbFrames == "25" && abs((Double(video.duration ?? "") ?? 0) - 1) < 0.05, "\(video)")
        #expect(abs((Double(audio.duration ?? "") ?? 0) - 4) < 0.05, "\(audio)")

        let composition = AVMutableComposition()
        let pictures = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let sound = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        let videoSource = try #require(try await AVURLAsset(url: Self.url("frames-h264.mp4")).loadTracks(withMediaType: .video).first)
        let audioSource = try #require(try await AVURLAsset(url: Self.url("av.mp4")).loadTracks(withMediaType: .audio).first)
        try pictures.insertTimeRange(Self.r(0, 4), of: videoSource, at: .zero)
        try sound.insertTimeRange(Self.r(0, 2), of: audioSource, at: .zero)
        let (m4a, _) = try await Self.export(composition, preset: AVAssetExportPresetAppleM4A, as: .m4a, name: "two-seconds.m4a")
        let m4aReport = try await Self.probe(m4a)
        #expect(m4aReport.streams.map(\.codecName) == ["aac"] && abs((m4aReport.duration ?? 0) - 2) < 0.05)

        // A window that starts after the sound has ended has no sound to write.
        let late = try #require(AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetAppleM4A))
        late.timeRange = Self.r(3, 4)
        let nothing = try Fixtures.temporaryDirectory().appendingPathComponent("late.m4a")
        await #expect(throws: AVError.self) { try await late.export(to: nothing, as: .m4a) }
        #expect((late.currentError as? AVError)?.code == .operationNotSupportedForPreset && !FileManager.default.fileExists(atPath: nothing.path))
    }

    /// A variable-rate movie with B-frames (eight pictures showing from 0, 1, 4, 9, 10, 11, 12 and
    /// 20 s, to 21 s; every packet states a decode duration of 1 s) re-encodes to its eight pictures
    /// at their own times, as Apple's exports keep a source's timing: a picture is encoded once
    /// however long it shows, where a constant rate wrote one a frame period (21 here; for the fuzzed
    /// movie above, 13,824). The source and the export, read back with zero tolerance, show the same
    /// picture at each time: each shows until the next starts, not for its packet's duration, and
    /// no picture is passed over where the gaps shrink again (9, 10, 11, 12 s).
    @Test("a variable-rate movie keeps its pictures' times, each encoded once")
    func variableRateKeepsItsTiming() async throws {
        let source = Self.url("frames-slideshow.mp4")
        let (output, session) = try await Self.export(AVURLAsset(url: source), preset: AVAssetExportPresetLowQuality, name: "slideshow.mp4")
        #expect(session.progress == 1)
        let report = try await Self.probe(output)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        #expect(video.nbFrames == "8" && abs((report.duration ?? 0) - 21) < 0.05, "\(video)")
        let expected = [(0.5, 0), (3.9, 1), (8.9, 2), (9.5, 3), (10.5, 4), (11.99, 5), (19.9, 6), (20.5, 7)]
        for url in [source, output] {
            for (time, picture) in expected {
                let shown = try await Self.frameNumber(url, at: time)
                #expect(shown == picture, "\(url.lastPathComponent) at \(time) s: \(String(describing: shown))")
            }
        }
    }

    /// The cross-fade of the image tests, exported: the written frames show the blend.
    @Test("a video composition and an audio mix are rendered into the export")
    func videoCompositionExport() async throws {
        let (composition, video) = try await CompositionImageTests.crossFade(background: nil, end: 3)
        let audioSource = try #require(try await AVURLAsset(url: Self.url("av.mp4")).loadTracks(withMediaType: .audio).first)
        let audio = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 3))
        try audio.insertTimeRange(Self.r(0, 2), of: audioSource, at: .zero)

        let silence = AVMutableAudioMixInputParameters(track: audio)
        silence.setVolume(0, at: .zero)
        silence.setVolume(1, at: Self.t(1))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [silence]

        let (output, _) = try await Self.export(composition, preset: AVAssetExportPresetHighestQuality) {
            $0.videoComposition = video
            $0.audioMix = mix
        }
        let report = try await Self.probe(output)
        #expect(abs((report.duration ?? 0) - 3) < 0.1 && report.streams.map(\.codecType) == ["video", "audio"])
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: output))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let middle = try await generator.image(at: Self.t(1.5)).image
        #expect(CompositionImageTests.rgb(middle, 80, 60).isClose(to: FramePattern.RGB(128, 128, 0), tolerance: 30),
                "\(CompositionImageTests.rgb(middle, 80, 60))")
        let late = try await generator.image(at: Self.t(2.5)).image
        #expect(CompositionImageTests.rgb(late, 80, 60).isClose(to: .green, tolerance: 30))
        let loud = try await Self.meanVolume(output, from: 1.2, to: 1.9), quiet = try await Self.meanVolume(output, from: 0.1, to: 0.8)
        #expect(quiet < -60 && loud > -40, "quiet \(quiet) dB, loud \(loud) dB")
    }

    /// ffmpeg's mean volume (dBFS) of the audio between two times.
    static func meanVolume(_ url: URL, from start: Double, to end: Double) async throws -> Double {
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = ["-hide_banner", "-nostats", "-ss", String(start), "-to", String(end), "-i", url.path,
                                 "-af", "volumedetect", "-vn", "-f", "null", "-"]
            let pipe = Pipe()
            process.standardError = pipe
            try process.run()
            let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard let line = text.split(separator: "\n").first(where: { $0.contains("mean_volume:") }),
                  let value = line.split(separator: ":").last?.replacingOccurrences(of: "dB", with: "")
                    .trimmingCharacters(in: .whitespaces), let db = Double(value) else { return -200 }
            return db
        }
    }

    @Test("AppleM4A writes the audio alone; optimizing for the network puts the index first")
    func audioOnlyAndFastStart() async throws {
        let (output, _) = try await Self.export(AVURLAsset(url: Self.url("av.mp4")), preset: AVAssetExportPresetAppleM4A, as: .m4a,
                                                name: "sound.m4a") { $0.shouldOptimizeForNetworkUse = true }
        let report = try await Self.probe(output)
        #expect(report.streams.map(\.codecName) == ["aac"] && abs((report.duration ?? 0) - 2) < 0.1)
        let head = try Data(contentsOf: output).prefix(4096)
        let moov = head.range(of: Data("moov".utf8)), mdat = head.range(of: Data("mdat".utf8))
        #expect(moov != nil && (mdat == nil || moov?.lowerBound ?? 0 < mdat?.lowerBound ?? 0))

        let (chapters, _) = try await Self.export(AVURLAsset(url: Self.url("chapters.mp4")), preset: AVAssetExportPresetPassthrough,
                                                  name: "chapters.mp4")
        let titles = try await Self.probe(chapters).chapters?.compactMap { $0.tags?["title"] }
        #expect(titles == ["Arrival", "Feeding", "Departure"])
    }

    @Test("bad requests and failing sources end in .failed with a clear AVError and no file")
    func failures() async throws {
        let asset = AVURLAsset(url: Self.url("frames-h264.mp4"))
        let directory = try Fixtures.temporaryDirectory()
        func outcome(_ preset: String, _ url: URL?, _ type: AVFileType?, asset: AVAsset = asset) async -> (AVAssetExportSession.Status, AVError.Code?) {
            guard let session = AVAssetExportSession(asset: asset, presetName: preset) else { return (.unknown, nil) }
            session.outputURL = url
            session.outputFileType = type
            await session.export()
            return (session.currentStatus, (session.currentError as? AVError)?.code)
        }
        let existing = directory.appendingPathComponent("exists.mp4")
        try Data([1, 2, 3]).write(to: existing)
        #expect(await outcome(AVAssetExportPresetPassthrough, existing, .mp4) == (.failed, .fileAlreadyExists))
        #expect(try Data(contentsOf: existing) == Data([1, 2, 3]), "an existing file is left alone")
        #expect(await outcome(AVAssetExportPresetPassthrough, URL(fileURLWithPath: "/nonexistent/dir/out.mp4"), .mp4) == (.failed, .exportFailed))
        #expect(await outcome(AVAssetExportPresetPassthrough, nil, .mp4) == (.failed, .exportFailed))
        // A directory that cannot be written: a file's path as the folder (root writes through modes,
        // so a read-only folder is tried only when the tests are not root).
        #expect(await outcome(AVAssetExportPresetPassthrough, existing.appendingPathComponent("out.mp4"), .mp4) == (.failed, .exportFailed))
        if getuid() != 0 {
            let locked = directory.appendingPathComponent("locked")
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o500])
            #expect(await outcome(AVAssetExportPreset640x480, locked.appendingPathComponent("out.mp4"), .mp4) == (.failed, .exportFailed))
            #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path).isEmpty)
            try FileManager.default.removeItem(at: locked)
        }
        let m4a = directory.appendingPathComponent("video.m4a")
        #expect(await outcome(AVAssetExportPresetAppleM4A, m4a, .m4a) == (.failed, .operationNotSupportedForPreset))
        let wrongType = directory.appendingPathComponent("video.wav")
        #expect(await outcome(AVAssetExportPreset640x480, wrongType, .wav) == (.failed, .operationNotSupportedForPreset))
        let truncated = directory.appendingPathComponent("truncated.mp4")
        let (status, code) = await outcome(AVAssetExportPreset640x480, truncated, .mp4, asset: AVURLAsset(url: Self.url("truncated.mp4")))
        #expect(status == .failed && code != nil)
        let missing = directory.appendingPathComponent("missing.mp4")
        #expect(await outcome(AVAssetExportPreset640x480, missing, .mp4, asset: AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/a.mp4"))).0 == .failed)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left == ["exists.mp4"], "no partial files: \(left)")
        #expect(AVAssetExportSession(asset: asset, presetName: "NoSuchPreset") == nil)
    }

    @Test("cancelling stops promptly and removes the partial file; progress only rises")
    func cancellation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let output = directory.appendingPathComponent("cancelled.mp4")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: Self.url("frames-h264.mp4")), presetName: AVAssetExportPresetHighestQuality))
        session.outputURL = output
        session.outputFileType = .mp4
        var seen: [Float] = []
        let heard = PlayerTests.Recorder<String>()
        let states = Task { () -> [String] in
            for await state in session.states(updateInterval: 0.01) {
                switch state {
                case .pending: heard.add("pending")
                case .waiting: heard.add("waiting")
                case .exporting(let progress): heard.add("exporting \(progress.fractionCompleted)")
                }
            }
            return heard.values
        }
        let export = Task { await session.export() }
        // Cancelled once a fifth is done and the states have reported the export under way (they are
        // sampled every 10 ms, so a fast export could otherwise pass unseen).
        await until("a fifth exported and the state reported") {
            seen.append(session.progress)
            return (session.progress >= 0.2 && heard.values.contains { $0.hasPrefix("exporting") })
                || session.currentStatus == .failed || session.currentStatus == .completed
        }
        let asked = ContinuousClock.now
        session.cancelExport()
        await export.value
        #expect(ContinuousClock.now - asked < TestTiming.bound(5, hang: 10), "at once, not when the export ends")
        #expect(session.currentStatus == .cancelled && (session.currentError as? AVError)?.code == .operationCancelled)
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(seen == seen.sorted(), "progress never falls")
        let names = await states.value
        #expect(names.contains { $0.hasPrefix("exporting") }, "\(names)")
    }

    @Test("HEVC presets write hvc1; Matroska stream copy; a file length limit; chosen and filtered metadata")
    func presetsTypesAndTags() async throws {
        let (hevc, _) = try await Self.export(AVURLAsset(url: Self.url("frames-h264.mp4")), preset: AVAssetExportPresetHEVC1920x1080,
                                              as: .mov, name: "hevc.mov") { $0.timeRange = Self.r(0, 1) }
        let hevcReport = try await Self.probe(hevc)
        #expect(hevcReport.streams.first?.codecName == "hevc" && abs((hevcReport.duration ?? 0) - 1) < 0.05)
        #expect(try await AVURLAsset(url: hevc).loadTracks(withMediaType: .video).first?.load(.formatDescriptions).first?.mediaSubType == .hevc)
        #expect(try await Self.frameNumber(hevc, at: 0.5) == 12)

        let (mkv, _) = try await Self.export(AVURLAsset(url: Self.url("av.mp4")), preset: AVAssetExportPresetPassthrough, as: .mkv, name: "copy.mkv")
        let mkvReport = try await Self.probe(mkv)
        #expect(mkvReport.format.formatName.contains("matroska") && mkvReport.streams.map(\.codecName) == ["h264", "aac"])
        let (webm, _) = try await Self.export(AVURLAsset(url: Self.url("vp9.webm")), preset: AVAssetExportPresetPassthrough, as: .webm, name: "copy.webm")
        let webmReport = try await Self.probe(webm)
        #expect(webmReport.format.formatName.contains("webm") && webmReport.streams.map(\.codecName) == ["vp9", "opus"])
        #expect(try Data(contentsOf: webm).range(of: Data("webm".utf8)) != nil, "the EBML DocType says webm")
        #expect(abs((webmReport.duration ?? 0) - 1) < 0.05)

        let (limited, _) = try await Self.export(AVURLAsset(url: Self.url("frames-h264.mp4")), preset: AVAssetExportPresetHighestQuality,
                                                 name: "limited.mp4") { $0.fileLengthLimit = 2_000 }
        let size = try FileManager.default.attributesOfItem(atPath: limited.path)[.size] as? Int ?? 0
        let limitedDuration = try await AVURLAsset(url: limited).load(.duration).seconds
        #expect(size < 10_000 && limitedDuration < 3.9 && limitedDuration > 0, "\(size) bytes, \(limitedDuration) s")

        let title = AVMutableMetadataItem()
        title.keySpace = .common
        title.key = AVMetadataKey.commonKeyTitle.rawValue as NSString
        title.value = "Chosen" as NSString
        let place = AVMutableMetadataItem()
        place.keySpace = .common
        place.key = AVMetadataKey.commonKeyLocation.rawValue as NSString
        place.value = "+48.85+002.35/" as NSString
        let (tagged, _) = try await Self.export(AVURLAsset(url: Self.url("av.mp4")), preset: AVAssetExportPresetPassthrough, name: "tagged.mp4") {
            $0.metadata = [title, place]
            $0.metadataItemFilter = .forSharing()
        }
        let tags = try await Self.probe(tagged).format.tags ?? [:]
        #expect(tags["title"] == "Chosen" && tags["location"] == nil, "\(tags)")
    }

    static let extensions: [AVFileType: String] = [.mov: "mov", .mp4: "mp4", .m4v: "m4v", .m4a: "m4a", .mkv: "mkv", .webm: "webm"]

    /// Every preset Avocet offers, on a 1 s cut, into the file types it offers in turn: the codecs and
    /// the size it promises (shrunk to fit its box, never enlarged: the source is 320x240), the pictures
    /// and the length, read back with ffprobe and Avocet; an .m4v file carries Apple's brand.
    @Test("every preset writes its codecs at its size, in each of its file types", arguments: AVAssetExportSession.allExportPresets())
    func everyPreset(_ preset: String) async throws {
        let audioOnly = preset == AVAssetExportPresetAppleM4A
        let asset = AVURLAsset(url: Self.url(audioOnly ? "av.mp4" : "frames-h264.mp4"))
        let session = try #require(AVAssetExportSession(asset: asset, presetName: preset))
        let types = session.supportedFileTypes
        let all = AVAssetExportSession.allExportPresets()
        let type = types[(all.firstIndex(of: preset) ?? 0) % max(1, types.count)]
        let (output, done) = try await Self.export(asset, preset: preset, as: type, name: "out-\(all.firstIndex(of: preset) ?? 0).\(Self.extensions[type] ?? "bin")") {
            $0.timeRange = Self.r(0, 1)
        }
        #expect(done.currentStatus == .completed && done.progress == 1)
        let report = try await Self.probe(output)
        #expect(abs((report.duration ?? 0) - 1) < 0.1, "\(preset) as \(type.rawValue): \(String(describing: report.duration)) s")
        if type == .m4v { #expect(report.format.tags?["major_brand"] == "M4V ", "\(String(describing: report.format.tags))") }
        let video = report.streams.first { $0.codecType == "video" && !$0.isAttachedPicture }
        if audioOnly {
            #expect(video == nil && report.streams.map(\.codecName) == ["aac"])
            return
        }
        let expected: (codec: String, width: Int, height: Int) = switch preset {
        case AVAssetExportPresetHEVCHighestQuality, AVAssetExportPresetHEVC1920x1080, AVAssetExportPresetHEVC3840x2160: ("hevc", 320, 240)
        case AVAssetExportPresetLowQuality: ("h264", 224, 168)
        default: ("h264", 320, 240)
        }
        #expect(video?.codecName == expected.codec && video?.width == expected.width && video?.height == expected.height,
                "\(preset): \(String(describing: video?.codecName)) \(String(describing: video?.width))x\(String(describing: video?.height))")
        #expect(try await Self.frameNumber(output, at: 0.5) == 12, "\(preset): the picture at 0.5 s")
    }

    /// A volume ramp from silence to full over the audio's two seconds: quiet early, louder late, never silent.
    @Test("an audio mix's volume ramp is rendered into the export")
    func volumeRampExport() async throws {
        let asset = AVURLAsset(url: Self.url("av.mp4"))
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let ramp = AVMutableAudioMixInputParameters(track: track)
        ramp.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: Self.r(0, 2))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [ramp]
        let (output, _) = try await Self.export(asset, preset: AVAssetExportPresetAppleM4A, as: .m4a, name: "ramp.m4a") { $0.audioMix = mix }
        let (source, early, late) = (try await Self.meanVolume(Self.url("av.mp4"), from: 1.5, to: 1.9),
                                     try await Self.meanVolume(output, from: 0.1, to: 0.5), try await Self.meanVolume(output, from: 1.5, to: 1.9))
        // Gains of 0.05-0.25 early (-26 to -12 dB), 0.75-0.95 late (-2.5 to -0.5 dB).
        #expect(early > -90 && late - early > 8 && abs(source - late) < 4, "source \(source) dB, early \(early) dB, late \(late) dB")
    }

    @available(*, deprecated, message: "exercises the deprecated class method and status")
    @Test("presets, compatibility, estimates and the completion-handler form")
    func presetQueries() async throws {
        let video = AVURLAsset(url: Self.url("frames-h264.mp4")), sound = AVURLAsset(url: Self.url("tone.wav"))
        #expect(AVAssetExportSession.allExportPresets().contains(AVAssetExportPresetHEVC3840x2160))
        // Declared, not offered: Debian's libx265 cannot write an alpha layer.
        #expect(!AVAssetExportSession.allExportPresets().contains(AVAssetExportPresetHEVCHighestQualityWithAlpha))
        #expect(AVAssetExportSession(asset: video, presetName: AVAssetExportPresetHEVCHighestQualityWithAlpha) == nil)
        #expect(!(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPresetHEVCHighestQualityWithAlpha, with: video,
                                                           outputFileType: nil)))
        #expect(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPreset1280x720, with: video, outputFileType: .mp4))
        #expect(!(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPresetAppleM4A, with: video, outputFileType: nil)))
        #expect(!(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPreset1280x720, with: video, outputFileType: .wav)))
        #expect(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPresetAppleM4A, with: sound, outputFileType: .m4a))
        #expect(AVAssetExportSession.exportPresets(compatibleWith: sound).contains(AVAssetExportPresetAppleM4A))
        let session = try #require(AVAssetExportSession(asset: video, presetName: AVAssetExportPresetPassthrough))
        #expect(await session.compatibleFileTypes.contains(.mov))
        session.timeRange = Self.r(1, 3)
        #expect(try await session.estimatedMaximumDuration == Self.t(2))
        let estimate = try await session.estimatedOutputFileLengthInBytes
        let whole = try FileManager.default.attributesOfItem(atPath: Fixtures.path("frames-h264.mp4"))[.size] as? Int ?? 0
        #expect(estimate > 0 && estimate < Int64(whole), "\(estimate) of \(whole)")

        let out = try Fixtures.temporaryDirectory().appendingPathComponent("handler.mp4")
        session.outputURL = out
        session.outputFileType = .mp4
        #expect(session.status == .unknown)
        await withHandOffContinuation { (done: CheckedContinuation<Void, Never>) in
            session.exportAsynchronously { done.resume() }
        }
        #expect(session.status == .completed && session.error == nil && session.progress == 1)
        #expect(abs(try await AVURLAsset(url: out).load(.duration).seconds - 2) < 0.05)
    }

    /// The source file is cut short after the asset was loaded: the export fails with the reason and
    /// leaves no file, rather than writing a shorter (or black) movie.
    @Test("a source that changes under the export fails it")
    func sourceFailsPartWay() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let source = directory.appendingPathComponent("source.mp4")
        try FileManager.default.copyItem(at: Self.url("frames-h264.mp4"), to: source)
        let output = directory.appendingPathComponent("out.mp4")
        for preset in [AVAssetExportPresetHighestQuality, AVAssetExportPresetPassthrough] {
            let asset = AVURLAsset(url: source)
            _ = try await asset.load(.tracks)
            let handle = try FileHandle(forWritingTo: source)
            try handle.truncate(atOffset: 2000)
            try handle.close()
            let session = try #require(AVAssetExportSession(asset: asset, presetName: preset))
            session.outputURL = output
            session.outputFileType = .mp4
            await session.export()
            #expect(session.currentStatus == .failed, "\(preset): \(session.currentStatus)")
            #expect((session.currentError as? AVError)?.localizedDescription.contains("changed") == true,
                    "\(String(describing: session.currentError))")
            try? FileManager.default.removeItem(at: source)
            try FileManager.default.copyItem(at: Self.url("frames-h264.mp4"), to: source)
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    /// What an app or a file can set to absurd values: no trap, a clear error or a sane result.
    @Test("absurd transforms, sizes, rates and missing durations neither crash nor hang")
    func absurdValues() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: 1))
        try track.insertTimeRange(Self.r(0, 1), of: try await CompositionImageTests.videoTrack("frames-h264.mp4"), at: .zero)
        track.preferredTransform = CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: .nan, ty: 1e300)
        let (copied, _) = try await Self.export(composition, preset: AVAssetExportPresetPassthrough, as: .mov, name: "nan.mov")
        #expect(try await AVURLAsset(url: copied).loadTracks(withMediaType: .video).first?.load(.preferredTransform) == .identity)

        let far = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
        far.setTransform(CGAffineTransform(translationX: 1e20, y: -1e20), at: .zero)
        let video = CompositionImageTests.videoComposition([far], range: Self.r(0, 1), renderSize: CGSize(width: 1e15, height: 1))
        let generator = AVAssetImageGenerator(asset: composition)
        generator.videoComposition = video
        let image = try await generator.image(at: Self.t(0.5)).image
        #expect(image.width <= 65536 && image.height == 1, "\(image.width)x\(image.height)")
        video.renderSize = CGSize(width: 64, height: 48)
        generator.videoComposition = video
        let offscreen = try await generator.image(at: Self.t(0.5)).image
        #expect(CompositionImageTests.rgb(offscreen, 32, 24).isClose(to: .black), "the layer lies far away: the background shows")

        video.frameDuration = CMTime(value: 1, timescale: 1_000_000_000)
        let session = try #require(AVAssetExportSession(asset: composition, presetName: AVAssetExportPreset640x480))
        session.videoComposition = video
        session.outputURL = try Fixtures.temporaryDirectory().appendingPathComponent("fast.mp4")
        session.outputFileType = .mp4
        await session.export()
        #expect(session.currentStatus == .failed && (session.currentError as? AVError)?.code == .invalidVideoComposition)

        // A live recording states no duration: the estimates say 0 rather than trap.
        let live = try #require(AVAssetExportSession(asset: AVURLAsset(url: Self.url("frames-live.webm")), presetName: AVAssetExportPresetMediumQuality))
        let estimate = try await live.estimatedOutputFileLengthInBytes
        #expect(estimate >= 0)
    }

    /// A 29.97 fps movie (a frame every 1,001 / 30,000 s, as most phone and camera movies) re-encodes
    /// every picture at its own frame. The export asked for each frame's picture a microsecond early
    /// (rounded down, then down again to the stream's ticks), got the one before, and, since a
    /// picture shown again is not encoded twice, dropped every third picture (42 of 60).
    @Test("a 29.97 fps movie re-encodes every picture, each at its frame")
    func ntscRateKeepsEveryPicture() async throws {
        let (output, _) = try await Self.export(AVURLAsset(url: Self.url("frames-ntsc.mp4")), preset: AVAssetExportPreset640x480, name: "ntsc.mp4")
        let report = try await Self.probe(output)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        #expect(video.nbFrames == "60" && abs((report.duration ?? 0) - 2.002) < 0.01, "\(video)")
        for frame in [1, 2, 3, 29, 44, 59] {
            let shown = try await Self.frameNumber(output, at: (Double(frame) + 0.5) * 1001 / 30000)
            #expect(shown == frame, "frame \(frame): \(String(describing: shown))")
        }
    }

    /// A browser's or a live recording states no duration in its header: the export scans the file
    /// once to learn where it ends, and writes all of it (it failed with "no known duration").
    @Test("a recording without a duration in its header exports whole")
    func recordingWithoutDuration() async throws {
        let asset = AVURLAsset(url: Self.url("frames-live.webm"))
        #expect(try await asset.load(.duration).isIndefinite)
        let (output, session) = try await Self.export(asset, preset: AVAssetExportPresetLowQuality, name: "live.mp4")
        #expect(session.progress == 1)
        let report = try await Self.probe(output)
        let video = try #require(report.streams.first { $0.codecType == "video" })
        #expect(video.nbFrames == "100" && abs((report.duration ?? 0) - 4) < 0.05, "\(video)")
        for (time, frame) in [(0.01, 0), (2.01, 50), (3.97, 99)] {
            let shown = try await Self.frameNumber(output, at: time)
            #expect(shown == frame, "at \(time) s: \(String(describing: shown))")
        }
    }
}
