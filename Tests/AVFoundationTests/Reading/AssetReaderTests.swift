import AVFoundation
import FixtureSupport
import Foundation
import Locking
import Testing

/// AVAssetReader over real files: stored samples compared with ffprobe's packets, decoded pictures read
/// back from the frame-index movies (which picture, at which time, in which pixel format), decoded
/// sound cut to the sample, random access, misuse, bad input and cancellation. Blocking calls
/// (`copyNextSampleBuffer()`) run on threads of their own, never on the cooperative pool.
@Suite("Asset reader", .serialized)
struct AssetReaderTests {
    static let h264 = Fixtures.frames("frames-h264.mp4")

    /// A started reader with one track output on the first track of `mediaType`.
    static func reader(_ asset: AVAsset, _ mediaType: AVMediaType, settings: [String: Any]?,
                       range: CMTimeRange? = nil) async throws -> (AVAssetReader, AVAssetReaderTrackOutput) {
        let track = try #require(try await asset.loadTracks(withMediaType: mediaType).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
        #expect(reader.canAdd(output))
        reader.add(output)
        if let range { reader.timeRange = range }
        #expect(reader.startReading())
        #expect(reader.status == .reading)
        return (reader, output)
    }

    /// Every buffer of `output`, taken with `copyNextSampleBuffer()` on a thread of its own.
    /// `taken`, when given, counts them as they come.
    static func drain(_ output: AVAssetReaderOutput, taken: Locked<Int>? = nil) async throws -> [CMSampleBuffer] {
        let box = try await onOwnThread { () -> UncheckedSendable<[CMSampleBuffer]> in
            var buffers: [CMSampleBuffer] = []
            while let buffer = output.copyNextSampleBuffer() {
                buffers.append(buffer)
                taken?.withLock { $0 += 1 }
            }
            return UncheckedSendable(buffers)
        }
        return box.value
    }

    /// The picture's frame number, read from the frame-index pattern of a 32BGRA buffer.
    static func frameNumber(_ buffer: CVPixelBuffer) -> Int? {
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return nil }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let p = base + y * rowBytes + x * 4
                let o = (y * width + x) * 4
                rgba[o] = p.load(fromByteOffset: 2, as: UInt8.self)
                rgba[o + 1] = p.load(fromByteOffset: 1, as: UInt8.self)
                rgba[o + 2] = p.load(as: UInt8.self)
            }
        }
        return FramePattern.read(Data(rgba), width: width, height: height).frameNumber
    }

    /// Float32 settings at the track's rate and channels.
    static var float32: [String: Any] { [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32] }

    /// The first channel of interleaved Float32 buffers, by frame number (the buffers' own timescale,
    /// their sample rate): where each sample lies, as their times say.
    static func firstChannel(_ buffers: [CMSampleBuffer]) throws -> [Int64: Float] {
        var samples: [Int64: Float] = [:]
        for buffer in buffers {
            let asbd = try #require(buffer.formatDescription?.audioStreamBasicDescription)
            let first = buffer.presentationTimeStamp.convertScale(Int32(asbd.mSampleRate), method: .roundHalfAwayFromZero).value
            let bytes = try #require(buffer.dataBuffer).dataBytes()
            bytes.withUnsafeBytes { raw in
                let values = raw.bindMemory(to: Float.self)
                for i in 0..<buffer.numSamples { samples[first + Int64(i)] = values[i * Int(asbd.mChannelsPerFrame)] }
            }
        }
        return samples
    }

    /// The largest difference between two reads where both have a sample, and how many of `part`'s
    /// samples `whole` lacks.
    static func difference(_ part: [Int64: Float], within whole: [Int64: Float]) -> (largest: Float, missing: Int) {
        var largest: Float = 0, missing = 0
        for (frame, value) in part {
            guard let other = whole[frame] else { missing += 1; continue }
            largest = max(largest, abs(value - other))
        }
        return (largest, missing)
    }

    /// ffprobe's CSV lines (`-of csv=p=0`) for `arguments` and the file at `path`.
    static func ffprobe(_ arguments: [String], _ path: String) async throws -> [[String]] {
        let output = try await onOwnThread {
            try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "error"] + arguments + ["-of", "csv=p=0", path])
        }
        return output.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    // MARK: Stored samples

    @Test("stored samples are ffprobe's packets: bytes, times, keyframes")
    func storedSamples() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let (reader, output) = try await Self.reader(asset, .video, settings: nil)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        let probe = try await onOwnThread {
            try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/ffprobe"),
                                         ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts,size,flags",
                                          "-of", "csv=p=0", Self.h264.path])
        }
        let packets = probe.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        try #require(buffers.count == packets.count && packets.count == 100, "\(buffers.count) buffers, \(packets.count) packets")
        for (buffer, packet) in zip(buffers, packets) {
            // ffprobe prints pts,dts,size,flags.
            #expect(buffer.presentationTimeStamp == CMTime(value: Int64(packet[0]) ?? -1, timescale: 12800))
            #expect(buffer.decodeTimeStamp == CMTime(value: Int64(packet[1]) ?? -1, timescale: 12800))
            #expect(buffer.totalSampleSize == Int(packet[2]))
            #expect(buffer.numSamples == 1)
            let notSync = buffer.sampleAttachments[0][.notSync] as? Bool ?? false
            #expect(notSync == !packet[3].hasPrefix("K"))
            #expect(buffer.formatDescription?.mediaSubType == .h264)
            #expect(buffer.dataBuffer?.dataLength == Int(packet[2]))
        }
        // The first packet's bytes are the file's: a length-prefixed NAL unit as MP4 stores it.
        let first = try #require(buffers.first?.dataBuffer)
        let bytes = try first.dataBytes()
        let nalLength = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(nalLength > 0 && nalLength + 4 <= bytes.count)
    }

    /// What a stored sample buffer carries, for comparing two reads.
    struct StoredSample: Equatable {
        let pts: CMTime
        let dts: CMTime
        let duration: CMTime
        let notSync: Bool
        let bytes: Data

        init(_ buffer: CMSampleBuffer) throws {
            (pts, dts, duration) = (buffer.presentationTimeStamp, buffer.decodeTimeStamp, buffer.duration)
            notSync = buffer.sampleAttachments.first?[.notSync] as? Bool ?? false
            bytes = try buffer.dataBuffer?.dataBytes() ?? Data()
        }
    }

    /// A reader of `path`'s stored track of `type`, over `range`, random access: the buffers of its
    /// pass and, after a reset to `again`, of the second; taken with `copyNextSampleBuffer()` on a
    /// thread of its own, or awaited.
    static func storedPasses(_ path: String, _ type: AVMediaType, range: CMTimeRange, again: CMTimeRange, blocking: Bool) async throws
        -> (first: [StoredSample], second: [StoredSample]) {
        let asset = AVURLAsset(url: URL(fileURLWithPath: path))
        let track = try #require(try await asset.loadTracks(withMediaType: type).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        output.supportsRandomAccess = true
        reader.add(output)
        reader.timeRange = range
        #expect(reader.startReading())
        let take = { () async throws -> [StoredSample] in
            if blocking { return try await Self.drain(output).map(StoredSample.init) }
            var taken: [StoredSample] = []
            for try await buffer in output.sampleBuffers { taken.append(try StoredSample(buffer)) }
            return taken
        }
        let first = try await take()
        output.reset(forReadingTimeRanges: [NSValue(timeRange: again)])
        let second = try await take()
        output.markConfigurationAsFinal()
        #expect(reader.status == .completed)
        return (first, second)
    }

    @Test("stored samples taken with copyNextSampleBuffer (made on the taking thread) are those the async form gives, over ranges and after a reset",
          arguments: [("av.mp4", AVMediaType.video), ("av.mp4", .audio), ("iphone.mov", .video), ("edit-list.mp4", .audio)])
    func storedSamplesTakenInlineAreTheSame(_ name: String, _ type: AVMediaType) async throws {
        let path = Fixtures.path(name)
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 4), duration: CMTime(value: 1, timescale: 1))
        let again = CMTimeRange(start: CMTime(value: 1, timescale: 2), duration: CMTime(value: 1, timescale: 2))
        let blocking = try await Self.storedPasses(path, type, range: range, again: again, blocking: true)
        let awaited = try await Self.storedPasses(path, type, range: range, again: again, blocking: false)
        #expect(blocking.first.count > 10 && blocking.second.count > 5, "\(blocking.first.count), \(blocking.second.count)")
        #expect(blocking.first == awaited.first)
        #expect(blocking.second == awaited.second)
        // Every sample of a range presents, or decodes, before its end (the first may be the keyframe before its start).
        #expect(blocking.second.allSatisfy { $0.dts < again.end || $0.pts < again.end })
    }

    /// The first `count` stored samples of each of `url`'s video and audio tracks, and the reader
    /// (still reading, its outputs holding what they read ahead).
    static func firstStoredSamples(_ url: URL, count: Int) async throws -> (AVAssetReader, UncheckedSendable<[CMSampleBuffer]>) {
        let asset = AVURLAsset(url: url)
        let reader = try AVAssetReader(asset: asset)
        for type in [AVMediaType.video, .audio] {
            let track = try #require(try await asset.loadTracks(withMediaType: type).first)
            reader.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
        }
        #expect(reader.startReading())
        let outputs = UncheckedSendable(reader.outputs)
        let taken = try await onOwnThread {
            UncheckedSendable(outputs.value.flatMap { output in (0..<count).compactMap { _ in output.copyNextSampleBuffer() } })
        }
        return (reader, taken)
    }

    @Test("a reader let go mid-read, stored samples waiting in its outputs, closes its file; the samples taken keep their bytes")
    func droppedMidReadLetsItsFileGo() async throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("avocet-dropped-\(UUID().uuidString).mp4")
        try FileManager.default.copyItem(atPath: Fixtures.path("av.mp4"), toPath: copy.path)
        defer { try? FileManager.default.removeItem(at: copy) }
        var (reader, taken): (AVAssetReader?, UncheckedSendable<[CMSampleBuffer]>) = try await Self.firstStoredSamples(copy, count: 3)
        // Each output reads its own container, ahead of its caller: 3 of the file's 50 pictures were taken.
        await until("both outputs have the file open") { VideoOutputTests.descriptors(on: copy.path) == 2 }
        #expect(reader?.status == .reading)
        reader = nil
        await until("the outputs' files are closed") { VideoOutputTests.descriptors(on: copy.path) == 0 }
        // The samples taken hold copies of their packets, which went back to a shelf now freed.
        let (again, fresh) = try await Self.firstStoredSamples(copy, count: 3)
        again.cancelReading()
        let bytes = { (buffers: [CMSampleBuffer]) in try buffers.map { try #require($0.dataBuffer).dataBytes() } }
        #expect(taken.value.count == 6)
        #expect(try bytes(taken.value) == bytes(fresh.value))
        #expect(try bytes(taken.value).allSatisfy { !$0.isEmpty })
    }

    @Test("alwaysCopiesSampleData false: stored samples (the large ones not copied) have the same bytes and times, kept after the reader goes",
          arguments: [AVMediaType.video, .audio])
    func storedWithoutCopies(type: AVMediaType) async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let track = try #require(try await asset.loadTracks(withMediaType: type).first)
        func read(copies: Bool) async throws -> [CMSampleBuffer] {
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
            output.alwaysCopiesSampleData = copies
            reader.add(output)
            #expect(reader.startReading())
            let buffers = try await Self.drain(output)
            #expect(reader.status == .completed)
            return buffers
        }
        // The reader, its output and their packet shelf are gone once `read` returns: the buffers hold
        // their packets (AddressSanitizer runs this too).
        let shared = try await read(copies: false)
        let copied = try await read(copies: true)
        let bytes = { (buffers: [CMSampleBuffer]) in try buffers.map { try #require($0.dataBuffer).dataBytes() } }
        #expect(shared.count == copied.count && shared.count > 40, "\(shared.count) and \(copied.count)")
        #expect(try bytes(shared) == bytes(copied))
        #expect(shared.map(\.presentationTimeStamp) == copied.map(\.presentationTimeStamp))
        #expect(shared.map(\.decodeTimeStamp) == copied.map(\.decodeTimeStamp))
        #expect(shared.map { $0.sampleAttachments[0][.notSync] as? Bool ?? false } == copied.map { $0.sampleAttachments[0][.notSync] as? Bool ?? false })
    }

    @Test("stored audio samples of an AAC track: one packet each, in order")
    func storedAudio() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let (reader, output) = try await Self.reader(asset, .audio, settings: nil)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        // Two seconds of 44.1 kHz AAC: 1024 frames a packet, about 87 packets.
        #expect((85...90).contains(buffers.count), "\(buffers.count) packets")
        #expect(buffers.allSatisfy { $0.formatDescription?.mediaSubType == .mpeg4AAC })
        let times = buffers.map(\.presentationTimeStamp)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    // MARK: Decoded pictures

    @Test("decoded 32BGRA pictures: every frame in order, at its time", arguments: AssetRoute.allCases)
    func decodedBGRA(_ route: AssetRoute) async throws {
        let settings: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA]
        let (reader, output) = try await Self.reader(route.asset(Self.h264.name), .video, settings: settings)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        try #require(buffers.count == 100)
        for (n, buffer) in buffers.enumerated() {
            let image = try #require(buffer.imageBuffer)
            #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_32BGRA)
            #expect(CVPixelBufferGetWidth(image) == 320 && CVPixelBufferGetHeight(image) == 240)
            #expect(buffer.presentationTimeStamp == CMTime(value: Int64(n) * 512, timescale: 12800))
            #expect(buffer.duration == CMTime(value: 512, timescale: 12800))
            if n % 9 == 0 { #expect(Self.frameNumber(image) == n, "frame \(n)") }
        }
    }

    @Test("a time range gives the pictures showing in it; a size scales them")
    func pictureRangeAndSize() async throws {
        let settings: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA),
                                       kCVPixelBufferWidthKey as String: 160, kCVPixelBufferHeightKey as String: 120]
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 1, timescale: 1))
        let (reader, output) = try await Self.reader(asset, .video, settings: settings, range: range)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        #expect(buffers.map { Int($0.presentationTimeStamp.value / 512) } == Array(25..<50))
        let first = try #require(buffers.first?.imageBuffer)
        #expect(CVPixelBufferGetWidth(first) == 160 && CVPixelBufferGetHeight(first) == 120)
        #expect(Self.frameNumber(first) == 25)
    }

    @Test("420v pictures: two planes, video-range luma; x420 from a 10-bit VP9")
    func biPlanar() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let (_, output) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        let buffer = try #require(try await onOwnThread { UncheckedSendable(output.copyNextSampleBuffer()) }.value)
        let image = try #require(buffer.imageBuffer)
        #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(CVPixelBufferGetPlaneCount(image) == 2)
        #expect(CVPixelBufferGetWidthOfPlane(image, 1) == 160)
        // The top-left quarter is red: BT.601 video-range luma of pure red is 81.
        let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(image, 0)).load(fromByteOffset: 40 * CVPixelBufferGetBytesPerRowOfPlane(image, 0) + 40, as: UInt8.self)
        #expect(abs(Int(luma) - 81) <= 12, "luma \(luma)")
        #expect(buffer.formatDescription.map { CMVideoFormatDescriptionMatchesImageBuffer($0, imageBuffer: image) } == true)

        let vp9 = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-vp9-10bit.webm")))
        let (reader10, output10) = try await Self.reader(vp9, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: [kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange]])
        let buffers = try await Self.drain(output10)
        #expect(reader10.status == .completed)
        #expect(buffers.count == 100)
        let ten = try #require(buffers.first?.imageBuffer)
        #expect(CVPixelBufferGetPixelFormatType(ten) == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
        let sample = try #require(CVPixelBufferGetBaseAddressOfPlane(ten, 0)).load(fromByteOffset: 40 * CVPixelBufferGetBytesPerRowOfPlane(ten, 0) + 80, as: UInt16.self)
        // 10 bits in the high bits: red's luma 81 (8-bit) is about 324 (10-bit), shifted left 6.
        #expect(sample & 0x3F == 0 && abs(Int(sample >> 6) - 324) <= 48, "sample \(sample)")
    }

    @Test("y420 pictures: three planes, the Y plane the 420v output's, Cb and Cr its interleaved plane taken apart")
    func planar() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let (_, three) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8Planar])
        let (_, two) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        let planar = try #require(try await onOwnThread { UncheckedSendable(three.copyNextSampleBuffer()) }.value?.imageBuffer)
        let biPlanar = try #require(try await onOwnThread { UncheckedSendable(two.copyNextSampleBuffer()) }.value?.imageBuffer)
        #expect(CVPixelBufferGetPixelFormatType(planar) == kCVPixelFormatType_420YpCbCr8Planar && CVPixelBufferGetPlaneCount(planar) == 3)
        func plane(_ buffer: CVPixelBuffer, _ index: Int, samples: Int) -> [UInt8] {
            guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, index) else { return [] }
            let row = CVPixelBufferGetBytesPerRowOfPlane(buffer, index)
            return (0..<CVPixelBufferGetHeightOfPlane(buffer, index)).flatMap { y in
                UnsafeBufferPointer(start: (base + y * row).assumingMemoryBound(to: UInt8.self), count: samples)
            }
        }
        #expect(plane(planar, 0, samples: 320) == plane(biPlanar, 0, samples: 320))
        let interleaved = plane(biPlanar, 1, samples: 320)
        #expect(plane(planar, 1, samples: 160) == stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] })
        #expect(plane(planar, 2, samples: 160) == stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] })
        // The top-left quarter is red: its Cr is high (about 240 in BT.601 video range).
        let cr = plane(planar, 2, samples: 160)
        #expect(cr.count == 160 * 120 && abs(Int(cr[20 * 160 + 20]) - 240) <= 16, "Cr \(cr.count > 3220 ? cr[3220] : 0)")
    }

    // MARK: Decoded sound

    @Test("decoded sound: 16 kHz mono Float32, every frame, contiguous times")
    func soundResampled() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tone.wav")))
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 16000, AVNumberOfChannelsKey: 1,
                                       AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
        let (reader, output) = try await Self.reader(asset, .audio, settings: settings)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        let asbd = try #require(buffers.first?.formatDescription?.audioStreamBasicDescription)
        #expect(asbd.mSampleRate == 16000 && asbd.mChannelsPerFrame == 1 && asbd.mBitsPerChannel == 32)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0 && asbd.mBytesPerFrame == 4)
        var next = CMTime.zero
        var total = 0
        var peak: Float = 0
        for buffer in buffers {
            #expect(buffer.presentationTimeStamp == next)
            total += buffer.numSamples
            next = CMTime(value: Int64(total), timescale: 16000)
            let data = try #require(buffer.dataBuffer)
            #expect(data.dataLength == buffer.numSamples * 4)
            let bytes = try data.dataBytes()
            bytes.withUnsafeBytes { raw in
                for v in raw.bindMemory(to: Float.self) { peak = max(peak, abs(v)) }
            }
        }
        // One second resampled: 16000 frames, give or take the resampler's last partial frame.
        #expect(abs(total - 16000) <= 1, "\(total) frames")
        #expect(peak > 0.1 && peak <= 1.01, "peak \(peak)")
    }

    @Test("a time range cuts sound to the sample; default settings are 16-bit integers at the track's rate")
    func soundCut() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tone.wav")))
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 4), duration: CMTime(value: 1, timescale: 2))
        let (reader, output) = try await Self.reader(asset, .audio, settings: [AVFormatIDKey: kAudioFormatLinearPCM], range: range)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        let asbd = try #require(buffers.first?.formatDescription?.audioStreamBasicDescription)
        #expect(asbd.mSampleRate == 22050 && asbd.mChannelsPerFrame == 1 && asbd.mBitsPerChannel == 16)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0)
        #expect(buffers.first?.presentationTimeStamp == CMTime(value: 5512, timescale: 22050))
        #expect(buffers.reduce(0) { $0 + $1.numSamples } == 16537 - 5512)
    }

    @Test("the waveform pattern: Int16 samples through CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer")
    func waveformPattern() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tone.wav")))
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16, AVLinearPCMIsBigEndianKey: false,
                                       AVLinearPCMIsFloatKey: false, AVLinearPCMIsNonInterleaved: false]
        let (reader, output) = try await Self.reader(asset, .audio, settings: settings)
        let (frames, peak) = try await onOwnThread { () -> (Int, Int) in
            var frames = 0, peak = 0
            while let sample = output.copyNextSampleBuffer() {
                var list = AudioBufferList()
                var block: CMBlockBuffer?
                let status = CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
                    sample, bufferListSizeNeededOut: nil, bufferListOut: &list, bufferListSize: MemoryLayout<AudioBufferList>.size,
                    blockBufferAllocator: nil, blockBufferMemoryAllocator: nil,
                    flags: kCMSampleBufferFlag_AudioBufferList_Assure16ByteAlignment, blockBufferOut: &block)
                guard status == noErr, let data = list.mBuffers.mData else { return (-1, -1) }
                let count = Int(list.mBuffers.mDataByteSize) / 2
                let samples = UnsafeBufferPointer(start: data.bindMemory(to: Int16.self, capacity: count), count: count)
                peak = max(peak, samples.map { abs(Int($0)) }.max() ?? 0)
                frames += count
            }
            return (frames, peak)
        }
        #expect(reader.status == .completed)
        #expect(frames == 22050)
        // ffmpeg's astats measures the fixture's peak at -18.06 dBFS: 4093 in 16 bits.
        #expect(abs(peak - 4093) <= 20, "peak \(peak)")
    }

    @Test("non-interleaved stereo: one channel after the other in each buffer")
    func nonInterleaved() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
                                       AVLinearPCMIsNonInterleaved: true]
        let (_, output) = try await Self.reader(asset, .audio, settings: settings)
        let buffers = try await Self.drain(output)
        let asbd = try #require(buffers.first?.formatDescription?.audioStreamBasicDescription)
        #expect(asbd.mChannelsPerFrame == 2 && asbd.mBytesPerFrame == 4)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)
        #expect(buffers.first.map { $0.totalSampleSize } != nil)
        #expect(buffers.first?.dataBuffer?.dataLength == (buffers.first?.numSamples ?? 0) * 8)
        let frames = buffers.reduce(0) { $0 + $1.numSamples }
        #expect(abs(frames - 88200) <= 1024, "\(frames) frames")
    }

    // MARK: Real-world files

    @Test("a range ending between two frames' times keeps the frame that starts before its end")
    func rangeEndBetweenTicks() async throws {
        // AVI counts in frames: at 25 fps, 0.5 s is 12.5 ticks, and frame 12 (0.48 s) shows in [0, 0.5).
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-mpeg4.avi")))
        let range = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 2))
        let (reader, output) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA],
                                                     range: range)
        let pictures = try await Self.drain(output)
        #expect(reader.status == .completed)
        #expect(pictures.map(\.presentationTimeStamp) == (0...12).map { CMTime(value: Int64($0), timescale: 25) })
        #expect(Self.frameNumber(try #require(pictures.last?.imageBuffer)) == 12)
        let (_, stored) = try await Self.reader(asset, .video, settings: nil, range: range)
        let packets = try await Self.drain(stored)
        #expect(packets.map(\.decodeTimeStamp) == (0...12).map { CMTime(value: Int64($0), timescale: 25) })
    }

    @Test("sound that starts after the range's start still ends at its end; none when it starts after it")
    func soundStartingLate() async throws {
        // FFmpeg leaves an MP3's priming out: its first sample is at 1105 / 44100 s (the track's start).
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tagged.mp3")))
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let start = try await track.load(.timeRange).start.convertScale(44100, method: .roundHalfAwayFromZero)
        #expect(start.value == 1105)
        let tenth = CMTimeRange(start: .zero, duration: CMTime(value: 4410, timescale: 44100))
        let (reader, output) = try await Self.reader(asset, .audio, settings: Self.float32, range: tenth)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        #expect(buffers.first?.presentationTimeStamp == start)
        #expect(buffers.reduce(0) { $0 + $1.numSamples } == 4410 - 1105)
        let beforeIt = CMTimeRange(start: .zero, duration: CMTime(value: 882, timescale: 44100))
        let (early, none) = try await Self.reader(asset, .audio, settings: Self.float32, range: beforeIt)
        #expect(try await Self.drain(none).isEmpty)
        #expect(early.status == .completed)
    }

    @Test("sound read from the middle is the sound a read from the start gives there", arguments: ["tagged.mp3", "tagged.m4a"])
    func soundFromTheMiddle(_ name: String) async throws {
        // MP3 keeps part of a frame in the frames before it (the bit reservoir): decoding from the
        // frame at the start alone gives the wrong sound for a frame or two.
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name)))
        let (_, whole) = try await Self.reader(asset, .audio, settings: Self.float32)
        let all = try Self.firstChannel(try await Self.drain(whole))
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 1, timescale: 5))
        let (reader, part) = try await Self.reader(asset, .audio, settings: Self.float32, range: range)
        let buffers = try await Self.drain(part)
        #expect(reader.status == .completed)
        #expect(buffers.first?.presentationTimeStamp.seconds == 1)
        let middle = try Self.firstChannel(buffers)
        #expect(!middle.isEmpty)
        let (largest, missing) = Self.difference(middle, within: all)
        #expect(missing == 0 && largest < 1e-4, "\(name): \(largest) apart, \(missing) missing")
    }

    @Test("Matroska's stored video samples carry FFmpeg's decode times; a range ends by them")
    func matroskaDecodeTimes() async throws {
        let fixture = Fixtures.frames("frames-h264.mkv")
        let asset = AVURLAsset(url: URL(fileURLWithPath: fixture.path))
        let (reader, output) = try await Self.reader(asset, .video, settings: nil)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        // pts, dts, flags; Matroska counts milliseconds.
        let packets = try await Self.ffprobe(["-select_streams", "v:0", "-show_entries", "packet=pts,dts,flags"], fixture.path)
        func time(_ field: String) -> CMTime { Int64(field).map { CMTime(value: $0, timescale: 1000) } ?? .invalid }
        try #require(buffers.count == packets.count && packets.count == fixture.frameCount)
        #expect(packets.filter { $0[1] != "N/A" }.count > packets.count - 3, "FFmpeg infers all but the first decode times")
        for (buffer, packet) in zip(buffers, packets) {
            #expect(buffer.presentationTimeStamp == time(packet[0]))
            #expect(buffer.decodeTimeStamp == time(packet[1]) || (!buffer.decodeTimeStamp.isValid && !time(packet[1]).isValid))
        }
        // From the keyframe at 1 s to the last packet decoded before 2 s: the B-frames decoded after
        // a later picture are in.
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 1, timescale: 1))
        let (_, ranged) = try await Self.reader(asset, .video, settings: nil, range: range)
        let inRange = try await Self.drain(ranged)
        let first = try #require(packets.firstIndex { $0[0] == "1000" && $0[2].hasPrefix("K") })
        let expected = packets[first...].prefix { (Int($0[1]) ?? Int($0[0]) ?? 0) < 2000 }
        #expect(inRange.count == expected.count, "\(inRange.count) samples, ffprobe \(expected.count) packets")
        #expect(inRange.last?.presentationTimeStamp == expected.last.map { time($0[0]) })
    }

    @Test("an MP4's decoded sound ends where its track does: the AAC padding past the edit list is left out",
          arguments: ["tagged.m4a", "av.mp4"])
    func soundEndsWithTheTrack(_ name: String) async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name)))
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let range = try await track.load(.timeRange)
        let (reader, output) = try await Self.reader(asset, .audio, settings: Self.float32)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed)
        let rate = try #require(buffers.first?.formatDescription?.audioStreamBasicDescription).mSampleRate
        let frames = buffers.reduce(0) { $0 + $1.numSamples }
        // ffprobe decodes whole packets, padding included: more than the track holds.
        let decoded = try await Self.ffprobe(["-select_streams", "a:0", "-show_entries", "frame=nb_samples"], Fixtures.path(name))
            .compactMap { $0.first.flatMap { Int($0) } }.reduce(0, +)
        #expect(decoded > frames)
        #expect(frames == Int((range.duration.seconds * rate).rounded()), "\(name): \(frames) frames, \(decoded) decoded by ffprobe")
        #expect(buffers.first?.presentationTimeStamp == .zero)
    }

    @Test("a fragmented MP4 whose audio jumps after its first packet: each sample where its time says")
    func audioTimestampGap() async throws {
        // FFmpeg stretches the priming packet over the two frames the B-frames start the video late.
        let name = "fragmented-bframes.mp4"
        let gap = try await Self.ffprobe(["-select_streams", "a:0", "-show_entries", "packet=pts"], Fixtures.path(name)).prefix(2).compactMap { Int64($0[0]) }
        #expect(gap == [0, 3528])
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path(name)))
        let (_, whole) = try await Self.reader(asset, .audio, settings: Self.float32)
        let wholeBuffers = try await Self.drain(whole)
        var next = CMTime.zero
        for buffer in wholeBuffers {
            #expect(buffer.presentationTimeStamp == next)
            next = buffer.presentationTimeStamp + CMTime(value: Int64(buffer.numSamples), timescale: 44100)
        }
        let all = try Self.firstChannel(wholeBuffers)
        // Silence between the first packet's 1024 frames and the second packet's time.
        #expect((1024..<3528).allSatisfy { all[Int64($0)] == 0 })
        #expect(all[3528 + 512].map { $0 != 0 } == true)
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 2), duration: CMTime(value: 1, timescale: 10))
        let (_, part) = try await Self.reader(asset, .audio, settings: Self.float32, range: range)
        let (largest, missing) = Self.difference(try Self.firstChannel(try await Self.drain(part)), within: all)
        #expect(missing == 0 && largest < 1e-4, "\(largest) apart, \(missing) missing")
    }

    @Test("HLS sound: every frame from the playlist's start, and a range read where a whole read puts it")
    func hlsSound() async throws {
        let hls = Fixtures.facts.hls
        let variant = try #require(hls.variants.first)
        let root = Fixtures.directory.appendingPathComponent(hls.directory).appendingPathComponent(variant.name)
        var routes: [String: LoopbackHTTPServer.Route] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            routes["/\(variant.name)/\(file)"] = .file(root.appendingPathComponent(file))
        }
        let server = try LoopbackHTTPServer(routes: routes)
        defer { server.stop() }
        let asset = AVURLAsset(url: server.url("/\(variant.name)/index.m3u8"))
        let (reader, whole) = try await Self.reader(asset, .audio, settings: Self.float32)
        let buffers = try await Self.drain(whole)
        #expect(reader.status == .completed)
        let decoded = try await Self.ffprobe(["-select_streams", "a:0", "-show_entries", "frame=nb_samples"], root.appendingPathComponent("index.m3u8").path)
            .compactMap { $0.first.flatMap { Int($0) } }.reduce(0, +)
        #expect(buffers.first?.presentationTimeStamp == .zero)
        #expect(buffers.reduce(0) { $0 + $1.numSamples } == decoded)
        let all = try Self.firstChannel(buffers)
        let range = CMTimeRange(start: CMTime(value: 3, timescale: 2), duration: CMTime(value: 1, timescale: 1))
        let (_, part) = try await Self.reader(asset, .audio, settings: Self.float32, range: range)
        let partBuffers = try await Self.drain(part)
        #expect(partBuffers.first?.presentationTimeStamp == CMTime(value: 66150, timescale: 44100))
        let (largest, missing) = Self.difference(try Self.firstChannel(partBuffers), within: all)
        #expect(missing == 0 && largest < 1e-3, "\(largest) apart, \(missing) missing")
    }

    @Test("MPEG-TS with one keyframe: a range in the middle decodes from it")
    func transportStreamLongGroup() async throws {
        let fixture = Fixtures.frames("frames-long-gop.ts")
        let asset = AVURLAsset(url: URL(fileURLWithPath: fixture.path))
        let range = CMTimeRange(start: CMTime(value: 2, timescale: 1), duration: CMTime(value: 1, timescale: 5))
        let (reader, output) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA],
                                                     range: range)
        let pictures = try await Self.drain(output)
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(try pictures.map { Self.frameNumber(try #require($0.imageBuffer)) } == Array(50..<55))
        #expect(pictures.map(\.presentationTimeStamp) == (50..<55).map { CMTime(value: Int64($0) * 3600, timescale: 90000) })
        // Stored: from the keyframe, the stream's first packet, up to the last decoded before the end.
        let (_, stored) = try await Self.reader(asset, .video, settings: nil, range: range)
        let packets = try await Self.drain(stored)
        #expect(packets.count == 55)
        #expect(packets.first.map { $0.sampleAttachments[0][.notSync] == nil } == true)
        #expect(packets.first?.decodeTimeStamp == .zero)
    }

    // MARK: Mixed sound

    /// The largest magnitude among Float32 interleaved samples of `buffers`.
    static func peak(_ buffers: [CMSampleBuffer]) throws -> Float {
        var peak: Float = 0
        for buffer in buffers {
            try buffer.withAudioBufferList { list, _ in
                for audio in list {
                    guard let data = audio.mData else { continue }
                    let samples = UnsafeBufferPointer(start: data.bindMemory(to: Float.self, capacity: Int(audio.mDataByteSize) / 4),
                                                      count: Int(audio.mDataByteSize) / 4)
                    peak = max(peak, samples.map(abs).max() ?? 0)
                }
            }
        }
        return peak
    }

    @Test("an audio mix output mixes two tracks at the mix's volumes, in the convenient format")
    func audioMix() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("multi.mkv")))
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        try #require(tracks.count == 2)
        func read(volume: Float) async throws -> [CMSampleBuffer] {
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: nil)
            let mix = AVMutableAudioMix()
            mix.inputParameters = tracks.map { track in
                let parameters = AVMutableAudioMixInputParameters(track: track)
                parameters.setVolume(volume, at: .zero)
                return parameters
            }
            output.audioMix = mix
            #expect(reader.canAdd(output))
            reader.add(output)
            #expect(reader.startReading())
            let buffers = try await Self.drain(output)
            #expect(reader.status == .completed, "\(String(describing: reader.error))")
            return buffers
        }
        // The mix ends at the asset's duration (Matroska's includes the last audio frame).
        let frames = Int(try await asset.load(.duration).convertScale(48000, method: .roundTowardZero).value)
        let loud = try await read(volume: 1)
        let asbd = try #require(loud.first?.formatDescription?.audioStreamBasicDescription)
        #expect(asbd.mSampleRate == 48000 && asbd.mChannelsPerFrame == 2 && asbd.mBitsPerChannel == 32)
        #expect(asbd.mFormatFlags & kAudioFormatFlagIsFloat != 0)
        #expect(frames > 96000 && loud.reduce(0) { $0 + $1.numSamples } == frames)
        #expect(loud.first?.presentationTimeStamp == .zero)
        #expect(try Self.peak(loud) > 0.05)
        let silent = try await read(volume: 0)
        #expect(silent.reduce(0) { $0 + $1.numSamples } == frames)
        #expect(try Self.peak(silent) == 0)
    }

    /// A movie with 1 s of sound under 4 s of pictures: the mix ends where the sound does, as the
    /// track's own output and an export's sound do (it went on with 3 s of silence to the asset's end).
    /// A time range from inside the sound ends there too; one after it gives no sound at all.
    @Test("an audio mix output ends where its tracks' sound ends")
    func audioMixEndsWithItsTracks() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("frames-short-sound.mp4")))
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        let soundEnd = try #require(try await tracks.first?.load(.timeRange).end)
        let duration = try await asset.load(.duration)
        #expect(abs(soundEnd.seconds - 1) < 0.05 && abs(duration.seconds - 4) < 0.05)
        func frames(in range: CMTimeRange?) async throws -> (count: Int, end: CMTime?) {
            let reader = try AVAssetReader(asset: asset)
            if let range { reader.timeRange = range }
            let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: nil)
            reader.add(output)
            #expect(reader.startReading())
            let buffers = try await Self.drain(output)
            #expect(reader.status == .completed, "\(String(describing: reader.error))")
            return (buffers.reduce(0) { $0 + $1.numSamples }, buffers.last.map { $0.presentationTimeStamp + $0.duration })
        }
        let whole = try await frames(in: nil)
        let expected = Int(soundEnd.convertScale(44_100, method: .roundTowardZero).value)
        #expect(whole.count == expected, "\(whole.count) frames, \(expected) expected")
        let tail = try await frames(in: CMTimeRange(start: CMTime(value: 1, timescale: 2), duration: CMTime(value: 2, timescale: 1)))
        #expect(tail.count == expected - 22_050 && tail.end == CMTime(value: CMTimeValue(expected), timescale: 44_100), "\(tail)")
        let after = try await frames(in: CMTimeRange(start: CMTime(value: 2, timescale: 1), duration: CMTime(value: 1, timescale: 1)))
        #expect(after.count == 0)
    }

    @Test("a composition's audio track reads its segments' sound in turn")
    func compositionAudio() async throws {
        let tone = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("tone.wav")))
        let source = try #require(try await tone.loadTracks(withMediaType: .audio).first)
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        let half = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 2))
        try track.insertTimeRange(half, of: source, at: .zero)
        try track.insertTimeRange(half, of: source, at: CMTime(value: 1, timescale: 2))
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
        let (reader, output) = try await Self.reader(composition, .audio, settings: settings)
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(buffers.reduce(0) { $0 + $1.numSamples } == 22050)
        // The second half repeats the first: the same samples a quarter second into each.
        var samples: [Float] = []
        for buffer in buffers {
            let bytes = try #require(buffer.dataBuffer).dataBytes()
            bytes.withUnsafeBytes { samples += $0.bindMemory(to: Float.self) }
        }
        let quarter = 22050 / 4
        for i in stride(from: quarter, to: quarter + 200, by: 7) {
            #expect(abs(samples[i] - samples[i + 11025]) < 0.01, "sample \(i)")
        }
        #expect(samples[quarter..<(quarter + 100)].contains { abs($0) > 0.05 })
    }

    // MARK: The async sequence

    @Test("sampleBuffers awaits every buffer without blocking the pool")
    func asyncSequence() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let (reader, output) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        var count = 0
        for try await buffer in output.sampleBuffers {
            #expect(buffer.presentationTimeStamp == CMTime(value: Int64(count) * 512, timescale: 12800))
            count += 1
        }
        #expect(count == 100)
        #expect(reader.status == .completed)
    }

    @Test("a failed read throws from the sequence")
    func asyncSequenceThrows() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("not-media.mp4")))
        let reader = try AVAssetReader(asset: asset)
        // Tracks cannot be loaded from garbage: use a track of a good asset to show the reader's check,
        // then a truncated movie for a read that fails.
        let good = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let track = try #require(try await good.loadTracks(withMediaType: .video).first)
        let foreign = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        #expect(!reader.canAdd(foreign))

        // A file cut short after its asset was loaded: the reader's own open sees it changed.
        let directory = try Fixtures.temporaryDirectory()
        let copy = directory.appendingPathComponent("cut.mp4")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.path("av.mp4")), to: copy)
        let cut = AVURLAsset(url: copy)
        let (treader, toutput) = try await Self.reader(cut, .video, settings: nil)
        let handle = try FileHandle(forWritingTo: copy)
        try handle.truncate(atOffset: 60_000)
        try handle.close()
        // The reader read ahead from the whole file, or opened the cut one: either it reads every
        // sample, or it throws the change.
        var count = 0
        do {
            for try await _ in toutput.sampleBuffers { count += 1 }
            #expect(treader.status == .completed && count == 50)
        } catch {
            #expect(treader.status == .failed)
            #expect((error as? AVError)?.code == .fileFailedToParse, "\(error)")
        }
    }

    @Test("damaged media data: pictures that decode, then the end; no crash, no hang")
    func damagedMediaData() async throws {
        let damaged = try Fixtures.damagedCopy(of: "av.mp4") { data in
            // Zero a stretch in the middle of the media data (the header, first, stays whole).
            let start = data.count / 2
            data.replaceSubrange(start..<(start + 20_000), with: Data(count: 20_000))
        }
        let (reader, output) = try await Self.reader(AVURLAsset(url: damaged), .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        var count = 0
        do {
            for try await _ in output.sampleBuffers { count += 1 }
        } catch {
            #expect(reader.status == .failed)
        }
        #expect(count > 0 && count <= 50, "\(count) pictures")
        #expect(reader.status == .completed || reader.status == .failed)
    }

    // MARK: Random access

    @Test("random access: a second pass over another range; complete only once final")
    func randomAccess() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        output.supportsRandomAccess = true
        reader.add(output)
        reader.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 2))
        #expect(reader.startReading())
        let first = try await Self.drain(output)
        #expect(first.count == 13 || first.count == 12, "\(first.count)")
        #expect(reader.status == .reading)
        output.reset(forReadingTimeRanges: [NSValue(timeRange: CMTimeRange(start: CMTime(value: 2, timescale: 1), duration: CMTime(value: 1, timescale: 5))),
                                            NSValue(timeRange: CMTimeRange(start: CMTime(value: 3, timescale: 1), duration: CMTime(value: 1, timescale: 5)))])
        let second = try await Self.drain(output)
        #expect(second.map { Int($0.presentationTimeStamp.value / 512) } == Array(50..<55) + Array(75..<80))
        #expect(Self.frameNumber(try #require(second.first?.imageBuffer)) == 50)
        #expect(reader.status == .reading)
        output.markConfigurationAsFinal()
        #expect(reader.status == .completed)
    }

    // MARK: Misuse and bad input

    @Test("misuse fails the reader with a reason, never traps")
    func misuse() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)

        let early = try AVAssetReader(asset: asset)
        let unstarted = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        early.add(unstarted)
        #expect(unstarted.copyNextSampleBuffer() == nil)
        #expect(early.status == .failed)
        #expect((early.error as? AVError)?.code == .operationNotAllowed)

        let (reader, output) = try await Self.reader(asset, .video, settings: nil)
        reader.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
        #expect(reader.status == .failed)
        #expect((reader.error as? AVError)?.errorDescription?.contains("after reading has started") == true)
        #expect(output.copyNextSampleBuffer() == nil)
        #expect(!reader.startReading())

        let twice = try AVAssetReader(asset: asset)
        twice.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
        #expect(twice.startReading())
        #expect(!twice.startReading())
        #expect(twice.status == .failed)
        twice.timeRange = .zero

        let none = try AVAssetReader(asset: asset)
        #expect(!none.startReading())
        #expect(none.status == .failed)
    }

    @Test("settings a reader cannot produce: canAdd false, startReading fails with unsupportedOutputSettings")
    func badSettings() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: Fixtures.path("av.mp4")))
        let video = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let audio = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let cases: [(AVAssetTrack, [String: Any])] = [
            (video, [AVVideoCodecKey: AVVideoCodecType.h264.rawValue]),
            (video, [AVVideoScalingModeKey: AVVideoScalingModeResizeAspect]),
            (video, [kCVPixelBufferPixelFormatTypeKey as String: FourCharCode(fourCharString: "2vuy")]),
            (video, [AVFormatIDKey: kAudioFormatLinearPCM]),
            (audio, [AVFormatIDKey: kAudioFormatMPEG4AAC]),
            (audio, [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateConverterAudioQualityKey: AVAudioQuality.high.rawValue]),
            (audio, [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 12]),
            (audio, [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA]),
        ]
        for (track, settings) in cases {
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
            #expect(!reader.canAdd(output), "\(settings)")
            reader.add(output)
            #expect(!reader.startReading())
            #expect(reader.status == .failed)
            #expect((reader.error as? AVError)?.code == .unsupportedOutputSettings, "\(settings): \(String(describing: reader.error))")
        }
    }

    @Test("a file gone before reading fails the reader with Apple's code")
    func missingFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let copy = directory.appendingPathComponent("gone.mp4")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Self.h264.path), to: copy)
        let asset = AVURLAsset(url: copy)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        try FileManager.default.removeItem(at: copy)
        let reader = try AVAssetReader(asset: asset)
        reader.add(AVAssetReaderTrackOutput(track: track, outputSettings: nil))
        #expect(reader.startReading())
        let buffers = try await Self.drain(try #require(reader.outputs.first))
        #expect(buffers.isEmpty)
        #expect(reader.status == .failed)
        #expect((reader.error as? AVError)?.code == .failedToLoadMediaData)
    }

    @Test("a server that drops every connection mid-body fails the reader clearly, after the pictures it had")
    func sourceFailsMidRead() async throws {
        let server = try LoopbackHTTPServer(routes: ["/cut.mp4": .closeMidBody(URL(fileURLWithPath: Fixtures.path("av.mp4")), afterBytes: 100_000)])
        defer { server.stop() }
        let asset = AVURLAsset(url: server.url("/cut.mp4"), options: [AvocetURLAssetHTTPConnectTimeoutKey: 2.0, AvocetURLAssetHTTPReadTimeoutKey: 2.0])
        // The asset's own load reads ahead on the same feed: when the cut reaches it first, the load
        // fails, as clearly; otherwise the reader meets the cut.
        do {
            _ = try await asset.loadTracks(withMediaType: .video)
        } catch {
            #expect((error as? AVError)?.code == .failedToLoadMediaData, "\(error)")
            return
        }
        let (reader, output) = try await Self.reader(asset, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        let clock = ContinuousClock()
        let started = clock.now
        var count = 0
        var thrown: (any Error)?
        do {
            for try await _ in output.sampleBuffers { count += 1 }
        } catch {
            thrown = error
        }
        #expect(clock.now - started < TestTiming.bound(20, hang: 60))
        #expect(count < 50, "\(count) pictures")
        #expect(reader.status == .failed)
        #expect((thrown as? AVError)?.code == .failedToLoadMediaData || (thrown as? AVError)?.code == .fileFailedToParse,
                "\(String(describing: thrown))")
    }

    @Test("cancelReading wakes a caller waiting in copyNextSampleBuffer on a server that trickles")
    func cancelWhileWaiting() async throws {
        // 1 KiB every 100 ms: the header loads in a second or so, the media data would take ten.
        let server = try LoopbackHTTPServer(routes: ["/slow.mp4": .slow(URL(fileURLWithPath: Fixtures.path("av.mp4")), bytesPerChunk: 1024, delay: 0.1)])
        defer { server.stop() }
        let asset = AVURLAsset(url: server.url("/slow.mp4"))
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        reader.add(output)
        #expect(reader.startReading())
        let taken = Locked(0)
        let waiting = Task { try await Self.drain(output, taken: taken).count }
        // The first picture is in: the caller now waits for the next, which trickles in.
        await until("the first picture arrives") { taken.withLock { $0 } >= 1 }
        let clock = ContinuousClock()
        let cancelled = clock.now
        reader.cancelReading()
        let count = try await waiting.value
        #expect(clock.now - cancelled < TestTiming.bound(5, hang: 30))
        #expect(count < 50)
        #expect(reader.status == .cancelled)
        #expect(output.copyNextSampleBuffer() == nil)
    }

    /// A composition of frames-h264.mp4's seconds 2-3 then 0-1.
    static func swapped() async throws -> (AVMutableComposition, AVMutableCompositionTrack) {
        let composition = AVMutableComposition()
        let source = AVURLAsset(url: URL(fileURLWithPath: Self.h264.path))
        let track = try #require(try await source.loadTracks(withMediaType: .video).first)
        let target = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let second = CMTime(value: 1, timescale: 1)
        try target.insertTimeRange(CMTimeRange(start: CMTime(value: 2, timescale: 1), duration: second), of: track, at: .zero)
        try target.insertTimeRange(CMTimeRange(start: .zero, duration: second), of: track, at: second)
        return (composition, target)
    }

    @Test("a composition's video track reads its segments' pictures in turn; stored samples are refused clearly")
    func compositionVideo() async throws {
        let (composition, target) = try await Self.swapped()
        let (reader, output) = try await Self.reader(composition, .video, settings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        try #require(buffers.count == 50)
        for (i, buffer) in buffers.enumerated() where i % 6 == 0 {
            #expect(buffer.presentationTimeStamp == CMTime(value: Int64(i), timescale: 25))
            let expected = i < 25 ? 50 + i : i - 25
            #expect(Self.frameNumber(try #require(buffer.imageBuffer)) == expected, "frame \(i)")
        }

        let stored = try AVAssetReader(asset: composition)
        let raw = AVAssetReaderTrackOutput(track: target, outputSettings: nil)
        #expect(!stored.canAdd(raw))
        stored.add(raw)
        #expect(!stored.startReading())
        #expect((stored.error as? AVError)?.code == .operationNotSupportedForAsset)
    }

    @Test("a video composition output renders at the composition's frame duration, in 420v when asked")
    func videoComposition() async throws {
        let (composition, target) = try await Self.swapped()
        let video = AVMutableVideoComposition()
        video.renderSize = CGSize(width: 320, height: 240)
        video.frameDuration = CMTime(value: 1, timescale: 10)
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1))
        instruction.layerInstructions = [AVMutableVideoCompositionLayerInstruction(assetTrack: target)]
        video.instructions = [instruction]

        let reader = try AVAssetReader(asset: composition)
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: [target], videoSettings: nil)
        output.videoComposition = video
        #expect(reader.canAdd(output))
        reader.add(output)
        #expect(reader.startReading())
        let buffers = try await Self.drain(output)
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(buffers.map(\.presentationTimeStamp) == (0..<20).map { CMTime(value: Int64($0), timescale: 10) })
        // At 0.3 s the composition shows source frame 2.3 s (57.5 frames in: frame 57); at 1.2 s, frame 5.
        #expect(Self.frameNumber(try #require(buffers[3].imageBuffer)) == 57)
        #expect(Self.frameNumber(try #require(buffers[12].imageBuffer)) == 5)

        let nv12 = try AVAssetReader(asset: composition)
        let planar = AVAssetReaderVideoCompositionOutput(videoTracks: [target],
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                                                         kCVPixelBufferWidthKey as String: 160, kCVPixelBufferHeightKey as String: 120])
        planar.videoComposition = video
        nv12.add(planar)
        #expect(nv12.startReading())
        let first = try #require(try await onOwnThread { UncheckedSendable(planar.copyNextSampleBuffer()) }.value?.imageBuffer)
        #expect(CVPixelBufferGetPixelFormatType(first) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(CVPixelBufferGetWidth(first) == 160 && CVPixelBufferGetPlaneCount(first) == 2)
        nv12.cancelReading()
        #expect(nv12.status == .cancelled)

        // Two tracks without a composition cannot be composed.
        let two = try AVAssetReader(asset: composition)
        let second = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect(!two.canAdd(AVAssetReaderVideoCompositionOutput(videoTracks: [target, second], videoSettings: nil)))
    }
}

/// A value handed between threads by a test that knows only one of them touches it at a time.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
