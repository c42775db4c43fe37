import FixtureSupport
import Foundation
import Testing

/// Runs the built `avtool` binary as a user would.
enum AVToolProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `avtool` built next to this test bundle (`swift build` puts both in the same folder).
    static let executable: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            beside.appendingPathComponent("avtool"),
            beside.deletingLastPathComponent().appendingPathComponent("avtool"),
            Fixtures.directory.deletingLastPathComponent().appendingPathComponent(".build/debug/avtool"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    static func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

@Suite("avtool inspect")
struct InspectCommandTests {
    @Test func humanReadable() throws {
        let result = try AVToolProcess.run(["inspect", Fixtures.path("av.mp4")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == Fixtures.path("av.mp4"))
        #expect(lines.contains("  size       119619 bytes"))
        #expect(lines.contains("  duration   2.000 s"))
        #expect(lines.contains("  track 1    video  avc1  H.264  320x240  25 fps"))
        #expect(lines.contains("  track 2    audio  aac  AAC  44100 Hz  stereo"))
        #expect(lines.contains("  tag        itsk/%A9nam: Avocet Test Pattern"))
        #expect(lines.contains("  tag        itsk/covr: <1687 bytes>"))
    }

    /// The JSON of every media fixture agrees with the facts the fixture script put in.
    @Test func jsonForAllFixturesMatchesTheFacts() throws {
        let media = Fixtures.media
        let result = try AVToolProcess.run(["inspect", "--json"] + media.map(\.path))
        #expect(result.status == 0, "\(result.stderr)")
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(reports.count == media.count)
        for (report, fx) in zip(reports, media) {
            #expect(report["file"] as? String == fx.path, "in argument order")
            let duration = try #require(report["duration"] as? Double)
            #expect(abs(duration - fx.duration!) < 0.05, "\(fx.name)")
            #expect(report["preciseTiming"] as? Bool == true, "\(fx.name): exact even for the VBR MP3")
            let tracks = try #require(report["tracks"] as? [[String: Any]])
            if let video = fx.video {
                let track = try #require(tracks.first { $0["mediaType"] as? String == "vide" })
                #expect(track["width"] as? Int == video.width && track["height"] as? Int == video.height, "\(fx.name)")
                let codecs = ["h264": "avc1", "vp9": "vp09"]
                #expect(track["codec"] as? String == codecs[video.codec])
                #expect(track["rotation"] as? Double == (fx.rotation ?? 0))
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
    func badInputExitsNonZeroWithOneLineNamingTheFile(name: String) throws {
        let path = name.isEmpty ? Fixtures.directory.path : Fixtures.path(name)
        let result = try AVToolProcess.run(["inspect", path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("avtool: \(path): cannot open: ") == true, "\(result.stderr)")
    }

    @Test func goodFilesStillReportWhenOthersFail() throws {
        let result = try AVToolProcess.run(["inspect", "--json", Fixtures.path("missing.mp4"), Fixtures.path("tone.wav")])
        #expect(result.status == 1)
        let reports = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        #expect(reports?.count == 1)
        #expect(reports?.first?["duration"] as? Double == 1)
        #expect(result.stderr.contains("missing.mp4: cannot open: no such file"))
    }

    @Test func noFilesIsAUsageError() throws {
        let result = try AVToolProcess.run(["inspect"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Missing expected argument"))
    }
}
