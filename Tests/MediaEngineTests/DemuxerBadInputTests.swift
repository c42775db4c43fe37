@testable import MediaEngine
import FixtureSupport
import Foundation
import Testing

/// Bad input ends in a clear error naming the file: never a crash, a hang or a silent wrong value.
@Suite("Demuxer on bad input")
struct DemuxerBadInputTests {
    private func openError(_ path: String) async -> MediaEngineError? {
        do {
            _ = try await Demuxer.open(path: path)
            return nil
        } catch let error as MediaEngineError {
            return error
        } catch {
            Issue.record("unexpected error type \(error)")
            return nil
        }
    }

    @Test(arguments: Fixtures.bad.map(\.name))
    func badFixturesFailWithTheirCode(name: String) async throws {
        let fx = Fixtures.fixture(name)
        let error = try #require(await openError(fx.path), "\(name) must not open")
        #expect(error.code.rawValue == fx.bad, "\(error)")
        #expect(error.description.hasPrefix(fx.path + ": cannot open: "))
    }

    @Test func truncatedMessagesSayWhy() async throws {
        let body = try #require(await openError(Fixtures.path("truncated.mp4")))
        #expect(body.reason.contains("truncated") && body.reason.contains("bytes"))
        let header = try #require(await openError(Fixtures.path("truncated-header.mp4")))
        #expect(header.reason.contains("moov atom not found"), "FFmpeg's own words: \(header.reason)")
    }

    @Test func missingFile() async throws {
        let error = try #require(await openError("/nonexistent/avocet/missing.mp4"))
        #expect(error.code == .fileNotFound)
        #expect(error.description == "/nonexistent/avocet/missing.mp4: cannot open: no such file")
    }

    @Test func directory() async throws {
        let error = try #require(await openError(Fixtures.directory.path))
        #expect(error.code == .notAFile)
        #expect(error.reason == "it is a directory")
    }

    @Test func emptyFile() async throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("empty.mp4")
        try Data().write(to: url)
        #expect(await openError(url.path)?.code == .notMedia)
    }

    @Test(arguments: ["noise.bin", "noise.mp3", "noise.mp4", "noise.mkv"])
    func randomBytesAreNotMedia(name: String) async throws {
        var generator = SplitMix64(seed: 42)
        let bytes = Data((0..<32768).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        let url = try Fixtures.temporaryDirectory().appendingPathComponent(name)
        try bytes.write(to: url)
        let error = try #require(await openError(url.path))
        #expect(error.code == .notMedia, "\(error)")
    }

    @Test func failingSourceReportsItsOwnError() async throws {
        let source = try FailingSource(path: Fixtures.path("av.mp4"), failAt: 1000)
        do {
            _ = try await Demuxer.open(source: source)
            Issue.record("must fail")
        } catch let error as MediaEngineError {
            #expect(error.code == .readFailed)
            #expect(error.reason.contains("simulated disk error"))
        }
    }
}
