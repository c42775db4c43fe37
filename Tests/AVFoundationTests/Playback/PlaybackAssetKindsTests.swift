import AVFoundation
import CoreMedia
import FixtureSupport
import Foundation
import Testing

/// Every kind of asset the earlier work loads plays the same way: a file, a resource loader
/// delegate's bytes, an HTTP file, an HLS playlist and a composition become ready, hand out pictures
/// through a video output at the item's time, write sound to the audio device, and play to their end
/// on a manual clock.
@Suite("Playback of every asset kind", .serialized)
struct PlaybackAssetKindsTests {
    enum Kind: String, CaseIterable, Sendable {
        case file, resourceLoader, http, hls, composition
    }

    @Test(arguments: Kind.allCases)
    func playsToItsEnd(kind: Kind) async throws {
        var server: LoopbackHTTPServer?
        defer { server?.stop() }
        let asset: AVAsset
        switch kind {
        case .file:
            asset = AVURLAsset(url: PlayerTests.url("av.mp4"))
        case .resourceLoader:
            asset = DelegateKeeper.keep(try FileServingDelegate(file: Fixtures.path("av.mp4"))).asset("av.mp4")
        case .http:
            let started = try LoopbackHTTPServer(routes: ["/av.mp4": .file(PlayerTests.url("av.mp4"), contentType: "video/mp4")])
            server = started
            asset = AVURLAsset(url: started.url("/av.mp4"))
        case .hls:
            let started = try HLSAssetTests().server()
            server = started
            asset = AVURLAsset(url: started.url("/hls/master.m3u8"))
        case .composition:
            let source = AVURLAsset(url: PlayerTests.url("av.mp4"))
            let composition = AVMutableComposition()
            try await composition.insertTimeRange(CMTimeRange(start: PlayerTests.t(1), duration: PlayerTests.t(1)), of: source, at: .zero)
            try await composition.insertTimeRange(CMTimeRange(start: .zero, duration: PlayerTests.t(1)), of: source, at: PlayerTests.t(1))
            asset = composition
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }

        let item = AVPlayerItem(asset: asset)
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        let player = AVPlayer(playerItem: item)
        player.audioDevice = AudioOutputTests.fileDevice(path)
        let clock = CMClock.manual()
        player.sourceClock = clock
        try await PlayerTests.ready(item, in: player)
        #expect(item.status == .readyToPlay, "\(kind): \(String(describing: item.error)) \((item.error as? NSError)?.localizedDescription ?? "")")
        let duration = item.duration.seconds
        #expect(duration > 1.9 && duration < 4.1, "\(kind): \(duration)")

        player.play()
        clock.advance(by: PlayerTests.t(0.5))
        let time = output.itemTime(forHostTime: CMClockGetTime(clock).seconds)
        #expect(time == PlayerTests.t(0.5), "\(kind)")
        var buffer: CVPixelBuffer?
        await until("\(kind): a picture at 0.5 s") {
            buffer = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: nil)
            return buffer != nil
        }
        let picture = try #require(buffer, "\(kind): a picture at 0.5 s")
        #expect(CVPixelBufferGetWidth(picture) >= 160 && CVPixelBufferGetHeight(picture) >= 120)

        await until("player.audioFramesWritten > 4_800") { player.audioFramesWritten > 4_800 }
        #expect(player.audioFramesWritten > 4_800, "\(kind): sound reached the device")
        for _ in 0..<45 { clock.advance(by: PlayerTests.t(0.1)) }
        await until("player.rate == 0") { player.rate == 0 }
        #expect(player.rate == 0 && player.currentTime() == item.duration, "\(kind): played to the end")
    }
}
