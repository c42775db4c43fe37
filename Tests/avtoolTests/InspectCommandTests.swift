@testable import avtool
import FixtureSupport
import Foundation
import Testing

/// Runs the built `avtool` binary as a user would.
enum AVToolProcess {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(ChildProcess.builtProduct("avtool"), arguments)
    }
}

@Suite("avtool inspect")
struct InspectCommandTests {
    @Test func humanReadable() async throws {
        let result = try await AVToolProcess.run(["inspect", Fixtures.path("av.mp4")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == Fixtures.path("av.mp4"))
        #expect(lines.contains("  size       119619 bytes"))
        #expect(lines.contains("  duration   2.000 s"))
        #expect(lines.contains("  track 1    video  avc1  H.264  320x240  25 fps"))
        #expect(lines.contains("  track 2    audio  aac  AAC  44100 Hz  stereo"))
        #expect(lines.contains("  tag        title: Avocet Test Pattern"))
        #expect(lines.contains("  tag        artwork: <1687 bytes>"))
    }

    /// The JSON of every media fixture agrees with the facts the fixture script put in.
    @Test func jsonForAllFixturesMatchesTheFacts() async throws {
        let media = Fixtures.media
        let result = try await AVToolProcess.run(["inspect", "--json"] + media.map(\.path))
        #expect(result.status == 0, "\(result.stderr)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(reports.count == media.count)
        for (report, fx) in zip(reports, media) {
            #expect(report["file"] as? String == fx.path, "in argument order")
            let expectedDuration = try #require(fx.duration, "\(fx.name) has a duration in the facts")
            if fx.unknownDuration == true, report["duration"] is NSNull {
                // The header gives none; null is the honest answer when Avocet does not scan for one.
            } else {
                let duration = try #require(report["duration"] as? Double, "\(fx.name)")
                #expect(abs(duration - expectedDuration) < 0.05, "\(fx.name)")
            }
            #expect(report["preciseTiming"] as? Bool == true, "\(fx.name): exact even for the VBR MP3")
            let tracks = try #require(report["tracks"] as? [[String: Any]])
            if let video = fx.video {
                let track = try #require(tracks.first { $0["mediaType"] as? String == "vide" })
                // naturalSize is the track's stored size, not widened by a pixel aspect ratio.
                let width = video.naturalWidth ?? video.width, height = video.naturalHeight ?? video.height
                #expect(track["width"] as? Int == width && track["height"] as? Int == height, "\(fx.name)")
                let codecs = ["h264": "avc1", "hevc": "hvc1", "vp9": "vp09", "vp8": "vp08"]
                if let codec = codecs[video.codec] {
                    #expect(track["codec"] as? String == codec, "\(fx.name)")
                }
                #expect(track["rotation"] as? Double == (fx.rotation ?? 0), "\(fx.name)")
                let rate = try #require(track["frameRate"] as? Double, "\(fx.name) has a frame rate")
                #expect(abs(rate - video.frameRate) < 1, "\(fx.name): \(rate) fps")
            }
            let audio = tracks.filter { $0["mediaType"] as? String == "soun" }
            #expect(audio.map { $0["sampleRate"] as? Double } == (fx.audio ?? []).map { Double($0.sampleRate) }, "\(fx.name)")
            #expect(audio.map { $0["channels"] as? Int } == (fx.audio ?? []).map(\.channels), "\(fx.name)")
            let titles = (report["metadata"] as? [[String: Any]] ?? []).filter { $0["commonKey"] as? String == "title" }
            #expect(titles.first?["value"] as? String == fx.tags?["title"], "\(fx.name)")
            let chapters = report["chapters"] as? [[String: Any]] ?? []
            #expect(chapters.map { $0["title"] as? String } == (fx.chapters ?? []).map(\.title), "\(fx.name)")
        }
    }

    @Test(arguments: Fixtures.bad.map(\.name) + ["missing.mp4", ""])
    func badInputExitsNonZeroWithOneLineNamingTheFile(name: String) async throws {
        let path = name.isEmpty ? Fixtures.directory.path : Fixtures.path(name)
        let result = try await AVToolProcess.run(["inspect", path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("avtool: \(path): cannot open: ") == true, "\(result.stderr)")
    }

    @Test func goodFilesStillReportWhenOthersFail() async throws {
        let result = try await AVToolProcess.run(["inspect", "--json", Fixtures.path("missing.mp4"), Fixtures.path("tone.wav")])
        #expect(result.status == 1)
        let reports = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(reports?.count == 1)
        #expect(reports?.first?["duration"] as? Double == 1)
        #expect(result.stderr.contains("missing.mp4: cannot open: no such file"))
    }

    /// http URLs work wherever files do; a URL the server does not have gets its one-line error.
    @Test func inspectsHTTPURLs() async throws {
        let server = try LoopbackHTTPServer(routes: ["/av.mp4": .file(URL(fileURLWithPath: Fixtures.path("av.mp4")))])
        let good = server.url("/av.mp4").absoluteString
        let missing = server.url("/missing.mp4").absoluteString
        let result = try await AVToolProcess.run(["inspect", "--json", good, missing])
        #expect(result.status == 1)
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(reports.map { $0["file"] as? String } == [good])
        #expect(reports.first?["duration"] as? Double == 2)
        #expect((reports.first?["tracks"] as? [Any])?.count == 2)
        let complaints = result.stderr.split(separator: "\n").map(String.init)
        #expect(complaints.count == 1, "\(result.stderr)")
        #expect(complaints.first?.contains(missing) == true)
        #expect(complaints.first?.contains("404") == true)
    }

    /// A bad file among good ones, in JSON: the good ones keep their reports, in argument order, and
    /// each bad one gets its line on standard error.
    @Test func badFileAmongGoodOnesInJSONKeepsTheGoodReports() async throws {
        let files = [Fixtures.path("tone.wav"), Fixtures.path("not-media.mp4"), Fixtures.path("av.mp4"),
                     Fixtures.path("truncated.mp4"), Fixtures.path("tagged.flac")]
        let result = try await AVToolProcess.run(["inspect", "--json"] + files)
        #expect(result.status == 1)
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(reports.map { $0["file"] as? String } == [files[0], files[2], files[4]])
        #expect(reports.map { $0["duration"] as? Double } == [1, 2, 1])
        let complaints = result.stderr.split(separator: "\n").map(String.init)
        #expect(complaints.count == 2, "\(result.stderr)")
        #expect(complaints.first?.hasPrefix("avtool: \(files[1]): cannot open: ") == true)
        #expect(complaints.last?.hasPrefix("avtool: \(files[3]): cannot open: ") == true)
    }

    /// Text names a tag by its common key (title, artist, albumName, artwork), and lists the tags
    /// without one after those, by their raw identifier.
    @Test func textNamesTagsByCommonKeyFirst() async throws {
        let result = try await AVToolProcess.run(["inspect", Fixtures.path("av.mp4"), Fixtures.path("tagged.m4a")])
        #expect(result.status == 0, "\(result.stderr)")
        let tags = result.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  tag ") }
        #expect(tags == [
            "  tag        title: Avocet Test Pattern",
            "  tag        artist: The Avocets",
            "  tag        albumName: Fixtures Vol. 1",
            "  tag        artwork: <1687 bytes>",
            "  tag        title: Shore Song",
            "  tag        artist: The Avocets",
            "  tag        albumName: Tidal Flats",
            "  tag        artwork: <1687 bytes>",
            "  tag        itsk/%A9gen: Field Recording",
            "  tag        itsk/trkn: 3",
        ])
        let mkv = try await AVToolProcess.run(["inspect", Fixtures.path("multi.mkv")])
        #expect(mkv.stdout.split(separator: "\n").contains("  tag        title: Two Tongues"), "\(mkv.stdout)")
    }

    /// The README's example output, line for line (the first line is the path as given).
    @Test func readmeExample() async throws {
        let result = try await AVToolProcess.run(["inspect", Fixtures.path("multi.mkv")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").dropFirst().map(String.init) == [
            "  size       134584 bytes",
            "  duration   2.021 s",
            "  track 1    video  avc1  H.264  320x240  25 fps",
            "  track 2    audio  aac  AAC  48000 Hz  stereo  [eng]  “English”",
            "  track 3    audio  aac  AAC  48000 Hz  mono  [fra]  “Français”",
            "  track 4    subtitle  srt  [eng]",
            "  tag        title: Two Tongues",
            "  chapter    0.000–1.000  Low Tide",
            "  chapter    1.000–2.000  High Tide",
        ])
    }

    /// Files whose header gives no duration still get a report that encodes: the duration is null
    /// when Avocet does not know it, or the media's length when it scanned for it; never a failed encode.
    @Test func filesWithoutAHeaderDurationEncode() async throws {
        let fixtures = Fixtures.media.filter { $0.unknownDuration == true }
        #expect(fixtures.count == 2)
        let result = try await AVToolProcess.run(["inspect", "--json"] + fixtures.map(\.path))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Unable to encode"))
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(reports.map { $0["file"] as? String } == fixtures.map(\.path))
        for (report, fx) in zip(reports, fixtures) {
            let duration = report["duration"]
            if let seconds = duration as? Double {
                #expect(abs(seconds - (fx.duration ?? 0)) < 0.1, "\(fx.name): \(seconds) s")
            } else {
                #expect(duration is NSNull, "\(fx.name): duration is a number or null, not missing: \(String(describing: duration))")
            }
        }
        let text = try await AVToolProcess.run(["inspect"] + fixtures.map(\.path))
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!text.stdout.contains("nan"), "an unknown duration reads as unknown, not nan")
    }

    @Test func versionPrintsAVToolsVersion() async throws {
        let result = try await AVToolProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "avtool \(AVTool.version) (Avocet)\n")
        #expect(AVTool.version.split(separator: ".").count == 3 && AVTool.version.split(separator: ".").allSatisfy { Int($0) != nil })
    }

    @Test func noFilesIsAUsageError() async throws {
        let result = try await AVToolProcess.run(["inspect"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Missing expected argument"))
    }
}
