import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

// Apple's classes are subclassable (Objective-C classes are open in Swift), and real app code
// subclasses them: an asset that serves its own bytes, a player item that carries the app's model, a
// player that counts what it is asked, an export session with a hook. These compile here and work.

/// An asset whose bytes come from a project file, as an app's `AVDataAsset`: the subclass sets its own
/// resource loader delegate in `init` (the loader is `ProjectFileLoader` of the resource loader example).
final class ProjectMovieAsset: AVURLAsset, @unchecked Sendable {
    let loader: ProjectFileLoader

    init(project: URL, offset: UInt64, length: Int64) throws {
        loader = try ProjectFileLoader(project: project, offset: offset, length: length)
        super.init(url: URL(string: "project://movie/clip.mp4")!, options: nil)
        resourceLoader.setDelegate(loader, queue: loader.queue)
    }
}

/// A player item that carries the app's own value.
final class EpisodeItem: AVPlayerItem, @unchecked Sendable {
    let episode: Int

    init(asset: AVAsset, episode: Int) {
        self.episode = episode
        super.init(asset: asset, automaticallyLoadedAssetKeys: nil)
    }
}

/// A player that counts the calls it is asked to make, then does them.
final class CountingPlayer: AVPlayer, @unchecked Sendable {
    let calls = Locked<[String]>([])

    override func play() {
        calls.withLock { $0.append("play") }
        super.play()
    }

    override func pause() {
        calls.withLock { $0.append("pause") }
        super.pause()
    }
}

/// A queue player that counts its advances.
final class CountingQueuePlayer: AVQueuePlayer, @unchecked Sendable {
    let advances = Locked(0)

    override func advanceToNextItem() {
        advances.withLock { $0 += 1 }
        super.advanceToNextItem()
    }
}

/// An export session with a hook before the work.
final class HookedExportSession: AVAssetExportSession, @unchecked Sendable {
    let started = Locked(false)

    override func export() async {
        started.withLock { $0 = true }
        await super.export()
    }
}

/// The shapes apps give the rest: a generator, a composition and a custom instruction of their own.
final class AppImageGenerator: AVAssetImageGenerator, @unchecked Sendable {}
final class AppComposition: AVMutableComposition, @unchecked Sendable {}
final class LabelledInstruction: AVMutableVideoCompositionInstruction, @unchecked Sendable {
    // Without the restated conformance Swift 6 warns (Avocet's classes are `@unchecked Sendable`).
    var label = "fade"
}

@Suite("Subclasses of Apple's classes")
struct SubclassingTests {
    @Test func anAssetSubclassServesItsOwnBytes() async throws {
        let movie = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let header = Data("PROJECT v1\n".utf8)
        let project = try Fixtures.temporaryDirectory().appendingPathComponent("subclass.project")
        try (header + movie).write(to: project)

        let asset = try ProjectMovieAsset(project: project, offset: UInt64(header.count), length: Int64(movie.count))
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        let file = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        #expect(duration == (try await file.load(.duration)))
        #expect(tracks.map(\.mediaType) == [.video, .audio])
        #expect(asset.resourceLoader.delegate === asset.loader)
        #expect(asset.url.scheme == "project")

        // Its subclass survives copying into a composition's source and making pictures.
        let generator = AppImageGenerator(asset: asset)
        let (image, _) = try await generator.image(at: CMTime(value: 1, timescale: 2))
        #expect(image.width == 320 && image.height == 240)
    }

    @Test func playerSubclassesPlay() async throws {
        let item = EpisodeItem(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))), episode: 7)
        let player = CountingPlayer(playerItem: item)
        await until("the item is ready") { item.status == .readyToPlay }
        #expect((player.currentItem as? EpisodeItem)?.episode == 7)
        player.play()
        #expect(player.rate == 1)
        player.pause()
        #expect(player.rate == 0)
        #expect(player.calls.withLock { $0 } == ["play", "pause"])

        let first = EpisodeItem(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4"))), episode: 1)
        let second = EpisodeItem(asset: AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tone.wav"))), episode: 2)
        let queue = CountingQueuePlayer(items: [first, second])
        queue.advanceToNextItem()
        #expect(queue.advances.withLock { $0 } == 1)
        #expect((queue.currentItem as? EpisodeItem)?.episode == 2)
    }

    @Test func anExportSessionSubclassExports() async throws {
        let composition = AppComposition()
        let clip = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        try await composition.insertTimeRange(CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1)), of: clip, at: .zero)
        let session = try #require(HookedExportSession(asset: composition, presetName: AVAssetExportPresetPassthrough))
        let out = try Fixtures.temporaryDirectory().appendingPathComponent("subclass.mp4")
        try await session.export(to: out, as: .mp4)
        #expect(session.started.withLock { $0 }, "export(to:as:) goes through the overridable export()")
        #expect(abs(try await AVURLAsset(url: out).load(.duration).seconds - 1) < 0.05)

        let instruction = LabelledInstruction()
        instruction.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1))
        #expect(instruction.label == "fade" && instruction.timeRange.duration.seconds == 1)
    }
}
