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
        #expect(lines.contains("  duration   2.000 s, 478 kb/s"))
        #expect(lines.contains { $0.contains("video  h264") && $0.contains("320x240") && $0.contains("25 fps") })
        #expect(lines.contains { $0.contains("audio  aac (LC)") && $0.contains("44100 Hz") && $0.contains("stereo") })
        #expect(lines.contains("  tag        title: Avocet Test Pattern"))
        #expect(lines.contains { $0.contains("cover art") })
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
            let tracks = try #require(report["tracks"] as? [[String: Any]])
            let playable = tracks.filter { ($0["isAttachedPicture"] as? Bool) != true }
            if let video = fx.video {
                let track = try #require(playable.first { $0["type"] as? String == "video" })
                #expect(track["width"] as? Int == video.width && track["height"] as? Int == video.height, "\(fx.name)")
                #expect(track["codec"] as? String == video.codec)
                #expect(track["rotation"] as? Double == (fx.rotation ?? 0))
            }
            let audio = playable.filter { $0["type"] as? String == "audio" }
            #expect(audio.map { $0["sampleRate"] as? Int } == (fx.audio ?? []).map(\.sampleRate), "\(fx.name)")
            #expect(audio.map { $0["channels"] as? Int } == (fx.audio ?? []).map(\.channels), "\(fx.name)")
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
        #expect(reports?.first?["formatName"] as? String == "wav")
        #expect(result.stderr.contains("missing.mp4: cannot open: no such file"))
    }

    @Test func noFilesIsAUsageError() throws {
        let result = try AVToolProcess.run(["inspect"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("Missing expected argument"))
    }
}
