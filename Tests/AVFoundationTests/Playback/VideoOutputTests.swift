@testable import AVFoundation
import FixtureSupport
import Foundation
import Testing

/// AVPlayerItemVideoOutput: pictures decoded ahead on the engine's threads, handed out as
/// CVPixelBuffers in the format asked for, the right picture for each item time, and a seek.
@Suite("Video output", .serialized)
struct VideoOutputTests {
    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }

    /// The picture at `time`, once the pipeline has decoded it.
    static func picture(_ output: AVPlayerItemVideoOutput, at time: CMTime) async throws -> (CVPixelBuffer, CMTime)? {
        var picture: (CVPixelBuffer, CMTime)?
        await until("the picture at \(time.seconds) s") {
            var shown = CMTime.invalid
            if output.hasNewPixelBuffer(forItemTime: time), let buffer = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: &shown) {
                picture = (buffer, shown)
            }
            return picture != nil
        }
        return picture
    }

    /// The frame number a BGRA buffer of a frame-index movie shows.
    static func frameNumber(_ buffer: CVPixelBuffer) -> Int? {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return nil }
        let row = CVPixelBufferGetBytesPerRow(buffer)
        var rgba = Data(count: width * height * 4)
        // B, G, R, A to R, G, B, A: a word per pixel with its first and third bytes swapped (few
        // operations, so the cooperative thread running the test is not held for long under a sanitizer).
        rgba.withUnsafeMutableBytes { raw in
            guard let out = raw.baseAddress else { return }
            for y in 0..<height {
                let source = (base + y * row).assumingMemoryBound(to: UInt32.self)
                let target = (out + y * width * 4).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let v = source[x]
                    target[x] = v & 0xFF00_FF00 | (v >> 16) & 0xFF | (v & 0xFF) << 16
                }
            }
        }
        return FramePattern.read(rgba, width: width, height: height).frameNumber
    }

    @Test func bgraPicturesFollowTheItemTime() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        item.add(output)
        #expect(item.outputs.count == 1)
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)

        let first = try #require(try await Self.picture(output, at: Self.t(0.5)))
        #expect(CVPixelBufferGetWidth(first.0) == 320 && CVPixelBufferGetHeight(first.0) == 240)
        #expect(CVPixelBufferGetPixelFormatType(first.0) == kCVPixelFormatType_32BGRA && CVPixelBufferGetBytesPerRow(first.0) == 1280)
        #expect(Self.frameNumber(first.0) == 12 && abs(first.1.seconds - 0.48) < 0.001, "\(first.1.seconds)")
        #expect(!output.hasNewPixelBuffer(forItemTime: Self.t(0.5)), "the same picture is not new")
        let next = try #require(try await Self.picture(output, at: Self.t(0.53)))
        #expect(Self.frameNumber(next.0) == 13)
        // A jump ahead: the buffer is dropped and decoding goes on from there.
        let later = try #require(try await Self.picture(output, at: Self.t(3.01)))
        #expect(Self.frameNumber(later.0) == 75)
        let afterJump = try #require(try await Self.picture(output, at: CMTime(value: 3085, timescale: 1000)))
        #expect(Self.frameNumber(afterJump.0) == 77, "frames keep their own times after a jump off a frame boundary")
        // A step back, before what is buffered, gives the earlier picture.
        let back = try #require(try await Self.picture(output, at: CMTime(value: 3050, timescale: 1000)))
        #expect(Self.frameNumber(back.0) == 76)
        #expect(player.currentItem === item)
    }

    /// A composition played with its video composition: the output hands out the composed pictures
    /// (the cross-fade of the image tests: half red, half the mirrored green at 1.5 s).
    @Test func aVideoCompositionIsPlayed() async throws {
        let (composition, video) = try await CompositionImageTests.crossFade(background: CGColor(red: 1, green: 1, blue: 1, alpha: 1), end: 3)
        let item = AVPlayerItem(asset: composition)
        item.videoComposition = video
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        let (buffer, shown) = try #require(try await Self.picture(output, at: Self.t(1.5)))
        #expect(CVPixelBufferGetWidth(buffer) == 320 && CVPixelBufferGetHeight(buffer) == 240 && shown == Self.t(1.5))
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let base = try #require(CVPixelBufferGetBaseAddress(buffer)).assumingMemoryBound(to: UInt8.self)
        let pixel = 60 * CVPixelBufferGetBytesPerRow(buffer) + 80 * 4
        let (b, g, r) = (Int(base[pixel]), Int(base[pixel + 1]), Int(base[pixel + 2]))
        #expect(abs(r - 128) < 30 && abs(g - 128) < 30 && b < 30, "half red, half green: \(r), \(g), \(b)")
        #expect(player.currentItem === item)
    }

    @Test func biPlanarPictures() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let output = AVPlayerItemVideoOutput(outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)])
        item.add(output)
        let player = AVPlayer(playerItem: item)
        try await PlayerTests.ready(item, in: player)
        let (buffer, _) = try #require(try await Self.picture(output, at: Self.t(1)))
        #expect(CVPixelBufferGetPlaneCount(buffer) == 2 && CVPixelBufferIsPlanar(buffer))
        #expect(CVPixelBufferGetWidthOfPlane(buffer, 1) == 160 && CVPixelBufferGetHeightOfPlane(buffer, 1) == 120)
        let y = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0)).assumingMemoryBound(to: UInt8.self)
        let row = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
        let red = Int(y[60 * row + 80]), green = Int(y[60 * row + 240])
        // BT.601 video range: red's luma is about 81, green's about 145.
        #expect(abs(red - 81) < 12 && abs(green - 145) < 12, "red \(red), green \(green)")
        #expect(CVPixelBufferUnlockBaseAddress(buffer, []) == kCVReturnInvalidArgument, "not locked")
        #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 5) == nil)
        _ = player
    }

    /// The output's 4:2:0 pictures are the decoder's own samples, converted once: the luma plane equals
    /// the one `AVAssetReaderTrackOutput` gives for the same picture (a detour through RGB would change
    /// it), and the buffers come from a pool that is reused as pictures are let go.
    @Test func picturesAreConvertedOnceIntoPooledBuffers() async throws {
        let url = URL(fileURLWithPath: Fixtures.path("frames-h264.mp4"))
        let nv12 = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)]
        let item = AVPlayerItem(url: url)
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nv12)
        item.add(output)
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        let (shown, time) = try #require(try await Self.picture(output, at: Self.t(1.01)))

        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let trackOutput = AVAssetReaderTrackOutput(track: track, outputSettings: nv12)
        reader.add(trackOutput)
        reader.timeRange = CMTimeRange(start: time, duration: CMTime(value: 1, timescale: 100))
        #expect(reader.startReading())
        // copyNextSampleBuffer blocks while it decodes: on a Dispatch thread, not the cooperative pool.
        let next = await withCheckedContinuation { (done: CheckedContinuation<CMSampleBuffer?, Never>) in
            DispatchQueue.global().async { done.resume(returning: trackOutput.copyNextSampleBuffer()) }
        }
        let sample = try #require(next)
        #expect(sample.presentationTimeStamp == time)
        let decoded = try #require(sample.imageBuffer)
        func luma(_ buffer: CVPixelBuffer) -> [UInt8] {
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
            guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) else { return [] }
            let row = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0), width = CVPixelBufferGetWidthOfPlane(buffer, 0)
            var plane: [UInt8] = []
            for y in 0..<CVPixelBufferGetHeightOfPlane(buffer, 0) {
                plane.append(contentsOf: UnsafeBufferPointer(start: (base + y * row).assumingMemoryBound(to: UInt8.self), count: width))
            }
            return plane
        }
        let handed = luma(shown)
        #expect(handed.count == 320 * 240 && handed == luma(decoded), "the luma plane is the decoder's")

        // Thirty pictures in turn, each let go before the next: a handful of buffers serve them all.
        var addresses = Set<Int>()
        for frame in 31..<61 {
            let (buffer, _) = try #require(try await Self.picture(output, at: CMTime(value: Int64(frame) * 1000 + 500, timescale: 25_000)))
            addresses.insert(Int(bitPattern: CVPixelBufferGetBaseAddressOfPlane(buffer, 0)))
        }
        #expect(addresses.count <= 10, "\(addresses.count) buffers for 30 pictures")
        _ = player
    }

    /// The rows of plane `plane`, each cut to the plane's width.
    static func samples(_ buffer: CVPixelBuffer, plane: Int) -> [UInt8] {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane) else { return [] }
        let row = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
        let width = CVPixelBufferGetWidthOfPlane(buffer, plane) * (CVPixelBufferGetPlaneCount(buffer) == 2 && plane == 1 ? 2 : 1)
        return (0..<CVPixelBufferGetHeightOfPlane(buffer, plane)).flatMap { y in
            UnsafeBufferPointer(start: (base + y * row).assumingMemoryBound(to: UInt8.self), count: width)
        }
    }

    /// 4:2:0 planar pictures (`y420`, as a window converting with SDL takes them) hold the samples the
    /// bi-planar ones do, at the decoded size and at one asked for: the same Y plane, and the Cb and Cr
    /// planes that interleaved make the CbCr plane.
    @Test(arguments: [nil, (160, 120), (161, 121)] as [(Int, Int)?])
    func planarPictures(size: (Int, Int)?) async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        func attributes(_ format: OSType) -> [String: Any] {
            var asked: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: format]
            if let size { (asked[kCVPixelBufferWidthKey as String], asked[kCVPixelBufferHeightKey as String]) = (size.0, size.1) }
            return asked
        }
        let planar = AVPlayerItemVideoOutput(pixelBufferAttributes: attributes(kCVPixelFormatType_420YpCbCr8Planar))
        let biPlanar = AVPlayerItemVideoOutput(pixelBufferAttributes: attributes(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange))
        item.add(planar)
        item.add(biPlanar)
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        let (three, time) = try #require(try await Self.picture(planar, at: Self.t(1.01)))
        let (two, sameTime) = try #require(try await Self.picture(biPlanar, at: Self.t(1.01)))
        #expect(time == sameTime)
        #expect(CVPixelBufferGetPixelFormatType(three) == kCVPixelFormatType_420YpCbCr8Planar && CVPixelBufferGetPlaneCount(three) == 3)
        let (width, height) = size ?? (320, 240)
        #expect(CVPixelBufferGetWidth(three) == width && CVPixelBufferGetHeight(three) == height)
        // Scaled to an odd size, swscale's two output formats may take different paths: a step apart at most.
        let tolerance = width % 2 == 0 ? 0 : 1
        func apart(_ a: [UInt8], _ b: [UInt8]) -> Int { a.count == b.count ? zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0 : .max }
        let luma = Self.samples(three, plane: 0)
        #expect(luma.count == width * height && apart(luma, Self.samples(two, plane: 0)) <= tolerance)
        let interleaved = Self.samples(two, plane: 1)
        let (cb, cr) = (Self.samples(three, plane: 1), Self.samples(three, plane: 2))
        let chroma = (width + 1) / 2 * ((height + 1) / 2)
        #expect(cb.count == chroma && apart(cb, stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }) <= tolerance)
        #expect(cr.count == chroma && apart(cr, stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] }) <= tolerance)
        _ = player
    }

    /// Width and height in the attributes scale every picture in the pass that converts it.
    @Test func picturesAtTheSizeAskedFor() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
            kCVPixelBufferWidthKey as String: 640, kCVPixelBufferHeightKey as String: 480,
        ])
        item.add(output)
        let player = AVPlayer(playerItem: item)
        player.sourceClock = CMClock.manual()
        try await PlayerTests.ready(item, in: player)
        let (buffer, time) = try #require(try await Self.picture(output, at: Self.t(0.5)))
        #expect(CVPixelBufferGetWidth(buffer) == 640 && CVPixelBufferGetHeight(buffer) == 480 && CVPixelBufferGetBytesPerRow(buffer) >= 2560)
        #expect(Self.frameNumber(buffer) == 12 && abs(time.seconds - 0.48) < 0.001, "the same picture, twice the size")
        // A size that is not whole (one key alone) is ignored: pictures come as decoded.
        let alone = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferWidthKey as String: 100])
        item.add(alone)
        let (decoded, _) = try #require(try await Self.picture(alone, at: Self.t(1)))
        #expect(CVPixelBufferGetWidth(decoded) == 320 && CVPixelBufferGetHeight(decoded) == 240)
        _ = player
    }

    final class PullDelegate: NSObject, AVPlayerItemOutputPullDelegate, @unchecked Sendable {
        let told = PlayerTests.Recorder<String>()
        func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) { told.add("media") }
    }

    /// Apple's usual order: the delegate and the request before the output is added and the item ready.
    @Test func thePullDelegateHearsOfMedia() async throws {
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        let delegate = PullDelegate()
        output.setDelegate(delegate, queue: DispatchQueue(label: "test.pull"))
        output.requestNotificationOfMediaDataChange(withAdvanceInterval: 0.03)
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        item.add(output)
        let player = AVPlayer(playerItem: item)
        await until("delegate.told.values == [\"media\"]") { delegate.told.values == ["media"] }
        #expect(delegate.told.values == ["media"])
        _ = player
    }

    /// The descriptors this process holds open on `path`.
    static func descriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    /// The output's pictures come from the packets the item's read-ahead read: the file is open once
    /// while it plays (a video-only file: no sound reader), and the pictures are right before and after
    /// an exact seek and a tolerant one (which looks in that container's index).
    @Test func theReadAheadAndThePicturesShareOneOpenFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).mp4").path
        try FileManager.default.copyItem(atPath: Fixtures.path("frames-h264.mp4"), toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let item = AVPlayerItem(url: URL(fileURLWithPath: path))
            let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
            item.add(output)
            let player = AVPlayer(playerItem: item)
            player.sourceClock = CMClock.manual()
            try await PlayerTests.ready(item, in: player)
            let first = try #require(try await Self.picture(output, at: Self.t(0.5)))
            #expect(Self.frameNumber(first.0) == 12)
            #expect(Self.descriptors(on: path) == 1, "descriptors on the file: \(Self.descriptors(on: path))")
            #expect(await player.seek(to: Self.t(3.02), toleranceBefore: .zero, toleranceAfter: .zero))
            let later = try #require(try await Self.picture(output, at: Self.t(3.02)))
            #expect(Self.frameNumber(later.0) == 75)
            #expect(Self.descriptors(on: path) == 1, "descriptors on the file after the seek: \(Self.descriptors(on: path))")
            // A tolerant seek finds its keyframe in the same container's index (keyframes every second).
            #expect(await player.seek(to: Self.t(2.1)))
            #expect(player.currentTime() == Self.t(2), "\(player.currentTime().seconds)")
            let keyframe = try #require(try await Self.picture(output, at: Self.t(2)))
            #expect(Self.frameNumber(keyframe.0) == 50)
            #expect(Self.descriptors(on: path) == 1, "descriptors on the file after a tolerant seek: \(Self.descriptors(on: path))")
        }
    }

    /// Sound, pictures and read-ahead of a file's item read one container: the file is open once while
    /// it plays, and what is played is right (the sound a tone, the pictures those of their times).
    @Test func soundPicturesAndReadAheadShareOneOpenFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).mp4").path
        let sound = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-\(UUID().uuidString).raw").path
        try FileManager.default.copyItem(atPath: Fixtures.path("av.mp4"), toPath: path)
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: sound)
        }
        var written = 0
        do {
            let item = AVPlayerItem(url: URL(fileURLWithPath: path))
            let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
            item.add(output)
            let (player, clock) = try await PlayerTests.soundPlayer(item, writingTo: sound)
            await PlayerTests.play(player, on: clock, until: "half a second played",
                                   keepingUp: PlayerTests.soundAhead(of: player, on: clock)) { player.currentTime() >= Self.t(0.5) }
            #expect(try await Self.picture(output, at: player.currentTime()) != nil)
            #expect(Self.descriptors(on: path) == 1, "descriptors on the file: \(Self.descriptors(on: path))")
            player.pause()
            written = player.audioFramesWritten
        }
        let samples = await AudioOutputTests.samples(at: sound, atLeast: written, "what was written")
        let rms = (samples.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, samples.count))).squareRoot()
        #expect(written >= 24_000 && rms > 0.01, "\(written) frames at \(rms)")
    }

    /// After a seek a paused player's output decodes the one picture there (a player being scrubbed keeps
    /// its decoder free for the next place); once the time moves past it, it decodes ahead in full.
    @Test func aPausedSeekDecodesOnePictureAndPlayingDecodesAhead() async throws {
        let item = AVPlayerItem(url: URL(fileURLWithPath: Fixtures.path("frames-h264.mp4")))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        item.add(output)
        let player = AVPlayer(playerItem: item)
        let clock = CMClock.manual()
        player.sourceClock = clock
        try await PlayerTests.ready(item, in: player)
        #expect(await player.seek(to: Self.t(2.2), toleranceBefore: .zero, toleranceAfter: .zero))
        let (shown, time) = try #require(try await Self.picture(output, at: Self.t(2.2)))
        #expect(Self.frameNumber(shown) == 55 && time == CMTime(value: 55 * 512, timescale: 12_800), "\(time.seconds)")
        await until("the output stops decoding") { !output.decodedAhead.decoding }
        #expect(output.decodedAhead.pictures == 1, "pictures decoded ahead of a paused seek: \(output.decodedAhead)")
        await PlayerTests.play(player, on: clock, until: "pictures decoded ahead") { output.decodedAhead.pictures >= 4 }
        player.pause()
        #expect(output.decodedAhead.pictures >= 4, "\(output.decodedAhead)")
    }
}

