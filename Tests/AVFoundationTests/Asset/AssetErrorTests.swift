@testable import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// Bad input ends in a clear AVError naming the file and a failed status: never a crash, a hang or a
/// silent wrong value.
@Suite("AVAsset on bad input")
struct AssetErrorTests {
    static let cases: [(path: String, code: AVError.Code, reason: String)] = [
        (Fixtures.path("not-media.mp4"), .fileFormatNotRecognized, "not a media file"),
        (Fixtures.path("truncated.mp4"), .fileFailedToParse, "truncated"),
        (Fixtures.path("truncated-header.mp4"), .fileFailedToParse, "moov atom not found"),
        (Fixtures.path("missing.mp4"), .failedToLoadMediaData, "no such file"),
        (Fixtures.directory.path, .failedToLoadMediaData, "directory"),
    ]

    @Test(arguments: 0..<cases.count)
    func loadThrowsAClearAVError(index: Int) async throws {
        let (path, code, reason) = Self.cases[index]
        let asset = AVURLAsset(url: URL(fileURLWithPath: path))
        do {
            _ = try await asset.load(.duration, .tracks)
            Issue.record("\(path) must not load")
        } catch let error as AVError {
            #expect(error.code == code, "\(path): \(error.localizedDescription)")
            #expect(error.localizedDescription.hasPrefix(path + ": cannot open: "))
            #expect(error.localizedDescription.contains(reason), "\(error.localizedDescription)")
            #expect((error as NSError).domain == AVError.errorDomain)
            #expect(error.userInfo[NSFilePathErrorKey] as? String == path)
        }
        guard case .failed(let failure) = asset.status(of: .tracks) else { Issue.record("tracks must report failure"); return }
        #expect(failure.code == code.rawValue)
        // A failed key stays failed; asking again gives the same error without another attempt.
        await #expect(throws: AVError.self) { try await asset.load(.commonMetadata) }
    }

    /// Damaged files that FFmpeg recognises but cannot read the header of, whatever its code says:
    /// EIO (a WebM or FLAC cut inside the data the header reads), ENOMEM (an MP4 time-to-sample table
    /// claiming 4 billion entries). Each once failed with `.unknown`; the mutation tests found them.
    @Test(arguments: [("vp9.webm", "cut", 0x1cb), ("tagged.flac", "cut", 0x35), ("av.mp4", "stts", 0)])
    func damagedHeadersFailToParse(_ fixture: String, _ damage: String, _ offset: Int) async throws {
        let url = try Fixtures.damagedCopy(of: fixture) { bytes in
            if damage == "cut" {
                bytes = bytes.prefix(offset)
            } else {
                let box = try #require(bytes.range(of: Data(damage.utf8)))
                bytes.replaceSubrange(box.upperBound + 4..<box.upperBound + 8, with: Data([0xFF, 0xFF, 0xFF, 0xFF]))
            }
        }
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            _ = try await AVURLAsset(url: url).load(.duration, .tracks)
            Issue.record("\(fixture) (\(damage)) must not load")
        } catch let error as AVError {
            #expect(error.code == .fileFailedToParse, "\(fixture): \(error.localizedDescription)")
            #expect(error.localizedDescription.contains("truncated or damaged"), "\(error.localizedDescription)")
        }
    }

    @Test @available(*, deprecated) func legacyStatusAndSynchronousGettersOnFailure() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("truncated.mp4")))
        await asset.loadValues(forKeys: ["duration", "playable"])
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "playable", error: &error) == .failed)
        #expect(error?.code == AVError.Code.fileFailedToParse.rawValue)
        #expect(error?.localizedFailureReason?.contains("truncated") == true)
        #expect(!asset.duration.isValid, "Apple's synchronous getters give an invalid duration on failure")
        #expect(asset.tracks.isEmpty && !asset.isPlayable)
    }

    @Test func anUnreachableHostFailsClearly() async throws {
        let asset = AVURLAsset(url: URL(string: "https://example.invalid/movie.mp4")!)
        do {
            _ = try await asset.load(.duration)
            Issue.record("must fail")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(error.localizedDescription.contains("example.invalid"))
        }
    }

    @Test func aFailingByteSourceFailsTheLoad() async throws {
        let source = try FailingSource(path: Fixtures.path("av.mp4"), failAt: 2000)
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")), source: source)
        do {
            _ = try await asset.load(.tracks)
            Issue.record("must fail")
        } catch let error as AVError {
            #expect(error.code == .failedToLoadMediaData)
            #expect(error.localizedDescription.contains("simulated disk error"))
        }
    }

    @Test func trackLoadsOnABrokenFileFailToo() async throws {
        // The header is fine but the media data stops early; the packet scan reports it.
        let source = try FailingSource(path: Fixtures.path("multi.mkv"), failAt: 130_000)
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("multi.mkv")), source: source)
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        await #expect(throws: AVError.self) { try await video.load(.totalSampleDataLength) }
        guard case .failed = video.status(of: .totalSampleDataLength) else { Issue.record("must report failure"); return }
    }
}
